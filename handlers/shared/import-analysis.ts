// What analysis and a mapping change share: reading a CSV upload the way the user's remembered
// (or just corrected) mapping says, matching the drafts to the user's records, and flagging
// duplicates of existing transactions. A bank export is read as a stream (csv-stream.ts, the
// legacy import's reader) and checked and stored a batch at a time, so a file of any number of
// rows is analysed in flat memory; the project's own layout keeps the older in-memory reader.
import type { Kysely, Transaction } from 'kysely';
import { userTimeZoneOrUtc } from '../../db/budget-spending.js';
import { rememberedMapping } from '../../db/import-mappings.js';
import { duplicateCandidates, recordsOf } from '../../db/import-matching.js';
import { clearSuggestions, insertSuggestions, markSessionReady, type CheckedSuggestion, type ImportSessionRow } from '../../db/import-sessions.js';
import type { Database, JsonObject } from '../../db/schema.js';
import { CsvReadError } from '../../domain/import-rows.js';
import { readBankCsv, withSourceWallet, type BankCsvPlan, type CsvReadingOverride } from '../../domain/statements/csv-statement.js';
import { csvDataRows, headerSignatureOf, openCsvFile, surveyCsvFile, type CsvFile, type CsvLayout } from '../../domain/statements/csv-stream.js';
import { findDuplicate, matchRecords, NEAR_DAYS, type MatchedDraft, type UserRecords } from '../../domain/statements/matching.js';
import { draftsFromCsv, type SuggestionDraft } from '../../domain/statements/suggestions.js';
import { decodeStatementText, looksBinary } from '../../domain/statements/text-encoding.js';

export interface ExtractedDrafts {
  drafts: SuggestionDraft[];
  /** What the session's metadata keeps about the reading (`csv_reading`, `statement_balances`). */
  details: JsonObject;
}

/**
 * A CSV upload read: a bank export with its reading (the override given, else the mapping the
 * user last confirmed for the same header), or the project's own layout with the older reader.
 */
export async function readCsvUpload(db: Kysely<Database>, userId: number, data: Buffer, override?: CsvReadingOverride): Promise<ExtractedDrafts> {
  const decoded = decodeStatementText(data);
  if (looksBinary(decoded.text)) throw new CsvReadError('The file is not a text CSV file.');
  let read = readBankCsv(decoded, override);
  if (read && !override && read.reading.header_signature) {
    const remembered = await rememberedMapping(db, userId, read.reading.header_signature);
    if (remembered) read = readBankCsv(decoded, remembered);
  }
  if (!read) return { drafts: draftsFromCsv(decoded.text), details: {} };
  return { drafts: read.drafts, details: { csv_reading: read.reading as unknown as JsonObject } };
}

/** The drafts matched to the user's records, each with the existing transaction it probably repeats. */
export async function checkedSuggestions(db: Kysely<Database>, userId: number, drafts: SuggestionDraft[]): Promise<CheckedSuggestion[]> {
  const matched = matchRecords(drafts, await recordsOf(db, userId));
  return withDuplicates(db, userId, matched);
}

/**
 * `zone`: the user's time zone when the caller knows it (a streamed analysis reads it once, not
 * per batch). `throughId`: the ledger's newest transaction before this session began importing,
 * so its own rows are never duplicates of its later ones (two equal card payments on one day are
 * two payments).
 */
export async function withDuplicates(db: Kysely<Database>, userId: number, drafts: MatchedDraft[], zone?: string, throughId?: number): Promise<CheckedSuggestion[]> {
  zone ??= await userTimeZoneOrUtc(db, userId);
  // only transactions of the same amount within NEAR_DAYS can be repeated: SQL finds them for the whole batch
  const candidates = await duplicateCandidates(db, userId, drafts, NEAR_DAYS, zone, throughId);
  return drafts.map((draft, at) => {
    const found = findDuplicate(draft, candidates[at]);
    // Object.assign, not a spread: see matchRecords
    return Object.assign({}, draft, {
      duplicate: found && {
        transaction_id: found.transaction.id,
        match_type: found.kind,
        confidence: found.kind === 'exact' ? 1 : 0.8,
        transaction_amount: found.transaction.amount,
        transaction_description: found.transaction.description,
        transaction_date: found.transaction.date,
        transaction_type: found.transaction.type,
      },
    });
  });
}

/** Suggestions checked and stored per database transaction by a streamed analysis. */
export const ANALYSIS_BATCH = 2000;

/** A bank export surveyed as a stream, ready to be read row by row. */
export interface SurveyedCsv {
  file: CsvFile;
  layout: CsvLayout & { kind: 'bank' };
  plan: BankCsvPlan;
}

/**
 * The upload surveyed as a stream with the override given, else the mapping the user last
 * confirmed for its header; undefined when it is in the project's own layout (readCsvUpload
 * reads that). Rows that name no account get a wallet named after the export's source (the
 * provider, else `fileName`).
 */
export async function surveyBankUpload(db: Kysely<Database>, userId: number, data: Uint8Array, fileName: string, override?: CsvReadingOverride): Promise<SurveyedCsv | undefined> {
  const file = openCsvFile(data);
  let reading = override;
  if (!reading) {
    // the head names the header: the remembered mapping is known before the one full pass
    const signature = await headerSignatureOf(file);
    reading = (signature && (await rememberedMapping(db, userId, signature))) || undefined;
  }
  const layout = await surveyCsvFile(file, reading);
  if (layout.kind !== 'bank') return undefined;
  const plan = withSourceWallet(layout.plan, fileName);
  return { file, layout: { ...layout, plan }, plan };
}

/**
 * The file's transaction rows matched to the user's records, ANALYSIS_BATCH at a time: the
 * service's own work (parse and match), no database round trip, so a caller can check and
 * store one batch while the next is read. `skip`: rows a resumed analysis already stored.
 */
export async function* matchedCsvBatches(source: SurveyedCsv, records: UserRecords, skip = 0): AsyncGenerator<MatchedDraft[]> {
  let batch: SuggestionDraft[] = [];
  let skipped = 0;
  // a bank row's line is never shown: csv-parse is not asked for it (its per-record info costs)
  for await (const row of csvDataRows(source.file, source.layout, 0, false)) {
    if (row.kind !== 'bank' || !row.draft) continue;
    if (skipped < skip) {
      skipped++;
      continue;
    }
    batch.push(row.draft);
    if (batch.length < ANALYSIS_BATCH) continue;
    yield matchRecords(batch, records);
    batch = [];
  }
  if (batch.length > 0) yield matchRecords(batch, records);
}

/** The file's transaction rows as checked suggestions, ANALYSIS_BATCH at a time (`db` answers the duplicate look-ups). */
export async function* checkedCsvBatches(db: Kysely<Database>, userId: number, source: SurveyedCsv, records: UserRecords): AsyncGenerator<CheckedSuggestion[]> {
  const zone = await userTimeZoneOrUtc(db, userId);
  for await (const batch of matchedCsvBatches(source, records)) yield await withDuplicates(db, userId, batch, zone);
}

/** How the file was read, as the session keeps it: every record that is no suggestion counted. */
export function streamedDetails(source: SurveyedCsv, suggestions: number): JsonObject {
  const { reading, bodyStart, bodyRows } = source.plan;
  return { csv_reading: { ...reading, skipped_rows: bodyStart + bodyRows - suggestions } as unknown as JsonObject };
}

/**
 * A mapping change of a bank export: its suggestions replaced by the file read again, all in
 * the caller's transaction (the session locked), streamed like analysis. Returns how many.
 */
export async function rereadCsvSession(trx: Transaction<Database>, session: ImportSessionRow, source: SurveyedCsv, now: Date): Promise<number> {
  await clearSuggestions(trx, session.id);
  const records = await recordsOf(trx, session.user_id);
  let count = 0;
  for await (const batch of checkedCsvBatches(trx, session.user_id, source, records)) {
    await insertSuggestions(trx, session, batch, count, now);
    count += batch.length;
  }
  if (count > 0) await markSessionReady(trx, session.id, now, streamedDetails(source, count));
  return count;
}
