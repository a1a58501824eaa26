// What analysis and a mapping change share: reading a CSV upload the way the user's remembered
// (or just corrected) mapping says, matching the drafts to the user's records, and flagging
// duplicates of existing transactions.
import type { Kysely } from 'kysely';
import { userTimeZoneOrUtc } from '../../db/budget-spending.js';
import { rememberedMapping } from '../../db/import-mappings.js';
import { recordsOf, transactionsOnDays, type CheckedSuggestion } from '../../db/import-sessions.js';
import type { Database, JsonObject } from '../../db/schema.js';
import { CsvReadError } from '../../domain/import-rows.js';
import { readBankCsv, type CsvReadingOverride } from '../../domain/statements/csv-statement.js';
import { duplicateWindow, findDuplicate, matchRecords, type MatchedDraft } from '../../domain/statements/matching.js';
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

export async function withDuplicates(db: Kysely<Database>, userId: number, drafts: MatchedDraft[]): Promise<CheckedSuggestion[]> {
  const window = duplicateWindow(drafts);
  const zone = await userTimeZoneOrUtc(db, userId);
  const existing = window ? await transactionsOnDays(db, userId, window.from, window.to, zone) : [];
  return drafts.map((draft) => {
    const found = findDuplicate(draft, existing);
    return {
      ...draft,
      duplicate: found && {
        transaction_id: found.transaction.id,
        match_type: found.kind,
        confidence: found.kind === 'exact' ? 1 : 0.8,
        transaction_amount: found.transaction.amount,
        transaction_description: found.transaction.description,
        transaction_date: found.transaction.date,
        transaction_type: found.transaction.type,
      },
    };
  });
}
