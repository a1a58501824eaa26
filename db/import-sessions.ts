// Queries of the analyse → review → confirm pipeline: sessions and their suggestions, the
// job's claim and stage changes, and the per-suggestion lock confirm relies on (what analysis
// matches rows against is in import-matching.ts).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { MatchedDraft } from '../domain/statements/matching.js';
import { listPage, type PageMeta } from './feed.js';
import { CONFIRM_REQUESTED, requestedConfirmOf, type ConfirmRun } from './import-confirm-runs.js';
import type { Database, DuplicateMatch, ImportDocumentType, ImportSession, ImportSessionStatus, ImportSuggestion, JsonObject } from './schema.js';

export type ImportSessionRow = ImportSession;
export type ImportSuggestionRow = ImportSuggestion;

/** The extractor of a session (the spec's `processor`). */
export type ImportProcessor = 'csv' | 'camt' | 'ofx' | 'document_processor';

/** The stages of a running analysis; a session in one of them for this long was abandoned by a crashed worker. */
const RUNNING: ImportSessionStatus[] = ['extracting', 'enriching', 'checking'];
export const ABANDONED_AFTER_MS = 10 * 60_000;

/** `confirmRequested`: the run of the upload's `accept_all` (see CONFIRM_REQUESTED). */
export async function insertSession(
  trx: Transaction<Database>,
  values: {
    userId: number;
    fileName: string;
    fileType: string;
    documentType: ImportDocumentType | null;
    processor: ImportProcessor;
    fileId: number;
    confirmRequested?: ConfirmRun;
    now: Date;
  },
): Promise<ImportSessionRow> {
  return trx
    .insertInto('import_sessions')
    .values({
      user_id: values.userId,
      file_name: values.fileName,
      file_type: values.fileType,
      document_type: values.documentType,
      processor: values.processor,
      file_id: values.fileId,
      metadata: values.confirmRequested ? JSON.stringify({ [CONFIRM_REQUESTED]: values.confirmRequested }) : null,
      created_at: values.now,
      updated_at: values.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findSession(db: Kysely<Database>, userId: number, id: number): Promise<ImportSessionRow | undefined> {
  return db.selectFrom('import_sessions').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** The suggestions of the sessions, by session id, in index order. */
export async function suggestionsOf(
  db: Kysely<Database>,
  sessionIds: number[],
  range: { from?: number; limit?: number; belowIndex?: number } = {},
): Promise<Map<number, ImportSuggestionRow[]>> {
  const bySession = new Map<number, ImportSuggestionRow[]>(sessionIds.map((id) => [id, []]));
  if (sessionIds.length === 0 || range.limit === 0) return bySession;
  let query = db
    .selectFrom('import_suggestions')
    .selectAll()
    .where('import_session_id', 'in', sessionIds)
    .where('suggestion_index', '>=', range.from ?? 0)
    .orderBy('import_session_id')
    .orderBy('suggestion_index');
  // a range is asked of one session at a time; `belowIndex` bounds each of several sessions
  if (range.limit !== undefined) query = query.limit(range.limit);
  if (range.belowIndex !== undefined) query = query.where('suggestion_index', '<', range.belowIndex);
  const rows = await query.execute();
  for (const row of rows) bySession.get(row.import_session_id)?.push(row);
  return bySession;
}

/** The session's suggestions at these indexes (a confirm's items), by index. */
export async function suggestionsAt(db: Kysely<Database>, sessionId: number, indexes: number[]): Promise<Map<number, ImportSuggestionRow>> {
  // indexes are int4: a larger one names no suggestion (and must not reach a query)
  const valid = [...new Set(indexes)].filter((index) => index <= 2_147_483_647);
  if (valid.length === 0) return new Map();
  const rows = await db.selectFrom('import_suggestions').selectAll().where('import_session_id', '=', sessionId).where('suggestion_index', 'in', valid).execute();
  return new Map(rows.map((row) => [row.suggestion_index, row]));
}

/** A page of the user's sessions, newest first. */
export function sessionPage(
  db: Kysely<Database>,
  userId: number,
  options: { page: number; limit: number; now: Date },
): Promise<{ rows: ImportSessionRow[]; meta: PageMeta }> {
  return listPage(db.selectFrom('import_sessions').selectAll().where('user_id', '=', userId).orderBy('id', 'desc'), options);
}

/** Deletes the session (its suggestions go with it) and its upload's row; returns the upload's storage key. */
export async function deleteSession(trx: Transaction<Database>, session: ImportSessionRow): Promise<string | undefined> {
  await trx.deleteFrom('import_sessions').where('id', '=', session.id).where('user_id', '=', session.user_id).execute();
  return session.file_id === null ? undefined : releaseUploadRow(trx, session.user_id, session.file_id);
}

/** Removes the upload's files row; returns its storage key (the bytes go after commit). */
export async function releaseUploadRow(db: Kysely<Database>, userId: number, fileId: number): Promise<string | undefined> {
  const removed = await db.deleteFrom('files').where('id', '=', fileId).where('user_id', '=', userId).returning('path').executeTakeFirst();
  return removed?.path;
}

// ---- the analysis job -----------------------------------------------------------------------

/** Sessions the job should (re)start: queued ones, and running ones abandoned by a crashed worker. */
export async function sessionsToAnalyse(db: Kysely<Database>, now: Date, limit = 50): Promise<number[]> {
  const rows = await db
    .selectFrom('import_sessions')
    .select('id')
    .where((eb) =>
      eb.or([eb('status', '=', 'analyzing'), eb.and([eb('status', 'in', RUNNING), eb('updated_at', '<', new Date(now.getTime() - ABANDONED_AFTER_MS))])]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Claims a session for analysis (status → extracting) unless another worker holds it or it
 * is not waiting; returns it with its upload, or undefined.
 */
export async function claimSession(
  db: Kysely<Database>,
  id: number,
  now: Date,
): Promise<{ session: ImportSessionRow; upload: { path: string; mime_type: string; original_name: string | null } | undefined } | undefined> {
  return db.transaction().execute(async (trx) => {
    const session = await trx
      .selectFrom('import_sessions')
      .selectAll()
      .where('id', '=', id)
      .where((eb) =>
        eb.or([eb('status', '=', 'analyzing'), eb.and([eb('status', 'in', RUNNING), eb('updated_at', '<', new Date(now.getTime() - ABANDONED_AFTER_MS))])]),
      )
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!session) return undefined;
    await trx.updateTable('import_sessions').set({ status: 'extracting', updated_at: now }).where('id', '=', id).execute();
    const upload =
      session.file_id === null
        ? undefined
        : await trx.selectFrom('files').select(['path', 'mime_type', 'original_name']).where('id', '=', session.file_id).executeTakeFirst();
    return { session: { ...session, status: 'extracting' }, upload };
  });
}

/** Moves a running analysis to its next stage; false when the session is gone or no longer at `from`. */
export async function advanceSession(db: Kysely<Database>, id: number, from: ImportSessionStatus, to: ImportSessionStatus, now: Date): Promise<boolean> {
  const result = await db.updateTable('import_sessions').set({ status: to, updated_at: now }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends a running analysis as failed, with the reason. */
export async function failSession(db: Kysely<Database>, id: number, error: string, now: Date): Promise<void> {
  await db
    .updateTable('import_sessions')
    .set({ status: 'failed', error, metadata: JSON.stringify({ error }), updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['analyzing', ...RUNNING])
    .execute();
}

export type CheckedSuggestion = MatchedDraft & { duplicate: DuplicateMatch | null };

/** Stores the suggestions and makes the session ready, if it is still being checked; `details` join its metadata (how the file was read). */
export async function finishSession(db: Kysely<Database>, session: ImportSessionRow, suggestions: CheckedSuggestion[], now: Date, details: JsonObject = {}): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('import_sessions').select('status').where('id', '=', session.id).forUpdate().executeTakeFirst();
    if (current?.status !== 'checking') return false; // deleted, or finished by another worker
    await replaceSuggestions(trx, session, suggestions, now, details);
    return true;
  });
}

/** The session's suggestions replaced by these, the session ready with its metadata (inside the caller's transaction). */
export async function replaceSuggestions(trx: Transaction<Database>, session: ImportSessionRow, suggestions: CheckedSuggestion[], now: Date, details: JsonObject): Promise<void> {
  await trx.deleteFrom('import_suggestions').where('import_session_id', '=', session.id).execute();
  await insertSuggestions(trx, session, suggestions, 0, now);
  await markSessionReady(trx, session.id, now, details);
}

/**
 * Suggestions stored from `firstIndex` on (a streamed analysis writes them a batch at a time),
 * in one statement: one array per column through unnest, where a VALUES list bound 24
 * parameters a row (slower to compile here and to parse and bind in PostgreSQL).
 */
export async function insertSuggestions(trx: Transaction<Database>, session: ImportSessionRow, suggestions: CheckedSuggestion[], firstIndex: number, now: Date): Promise<void> {
  if (suggestions.length === 0) return;
  await insertSuggestionRows(session, suggestions, firstIndex, now).execute(trx);
}

/** insertSuggestions, answering the stored rows in index order (a batch confirmed as it is stored). */
export async function insertSuggestionsReturning(trx: Transaction<Database>, session: ImportSessionRow, suggestions: CheckedSuggestion[], firstIndex: number, now: Date): Promise<ImportSuggestionRow[]> {
  if (suggestions.length === 0) return [];
  const { rows } = await sql<ImportSuggestionRow>`${insertSuggestionRows(session, suggestions, firstIndex, now)} returning *`.execute(trx);
  return rows.sort((a, b) => a.suggestion_index - b.suggestion_index);
}

/**
 * A streamed analysis's batch stored if the session is still being checked, in ONE statement
 * (atomic by itself): the session locked and stamped (a session checking for long is taken up
 * again), the suggestions inserted. Returns false when the session was deleted or another
 * worker finished it. One round trip where a transaction took five (begin, lock, insert, stamp,
 * commit), each of which waited behind the parse of the next batch on the service's thread.
 */
export async function storeSuggestionBatch(db: Kysely<Database>, session: ImportSessionRow, suggestions: CheckedSuggestion[], firstIndex: number, now: Date): Promise<boolean> {
  const { rows } = await sql<{ stored: boolean }>`
    with locked as (select id from import_sessions where id = ${session.id} and status = 'checking' for update),
         stamped as (update import_sessions set updated_at = ${now} where id in (select id from locked) returning id),
         inserted as (${insertSuggestionRows(session, suggestions, firstIndex, now)} where exists (select 1 from locked) returning 1)
    select exists (select 1 from stamped) as stored, (select count(*) from inserted) as inserted`.execute(db);
  return rows[0]?.stored === true;
}

function insertSuggestionRows(session: ImportSessionRow, suggestions: CheckedSuggestion[], firstIndex: number, now: Date) {
  const column = <T>(value: (s: CheckedSuggestion) => T) => suggestions.map(value);
  return sql`
    insert into import_suggestions (user_id, import_session_id, suggestion_index, amount, currency, type, party, wallet, category, description, date,
                                    confidence, document_type, fee, tax, account, reference, duplicate, wallet_id, party_id, category_id, warnings, created_at, updated_at)
    select ${session.user_id}, ${session.id}, ${firstIndex} + r.at - 1, r.amount, r.currency, r.type, r.party, r.wallet, r.category, r.description, r.date,
           r.confidence, r.document_type, r.fee, r.tax, r.account, r.reference, r.duplicate::jsonb, r.wallet_id, r.party_id, r.category_id, r.warnings::jsonb, ${now}, ${now}
      from unnest(${column((s) => s.amount)}::numeric[], ${column((s) => s.currency)}::text[], ${column((s) => s.type)}::text[], ${column((s) => s.party)}::text[],
                  ${column((s) => s.wallet)}::text[], ${column((s) => s.category)}::text[], ${column((s) => s.description)}::text[], ${column((s) => s.date)}::text[],
                  ${column((s) => String(s.confidence))}::numeric[], ${column((s) => s.source)}::text[], ${column((s) => s.fee)}::numeric[], ${column((s) => s.tax)}::numeric[],
                  ${column((s) => s.account)}::text[], ${column((s) => s.reference)}::text[], ${column((s) => (s.duplicate === null ? null : JSON.stringify(s.duplicate)))}::text[],
                  ${column((s) => s.walletId)}::bigint[], ${column((s) => s.partyId)}::bigint[], ${column((s) => s.categoryId)}::bigint[], ${column((s) => JSON.stringify(s.warnings))}::text[])
           with ordinality as r(amount, currency, type, party, wallet, category, description, date, confidence, document_type, fee, tax, account, reference,
                                duplicate, wallet_id, party_id, category_id, warnings, at)`;
}

/** Drops what an interrupted analysis stored (a rerun starts again). */
export async function clearSuggestions(trx: Transaction<Database>, sessionId: number): Promise<void> {
  await trx.deleteFrom('import_suggestions').where('import_session_id', '=', sessionId).execute();
}

/**
 * The session ready, its metadata the reading's details and the counts of its stored
 * suggestions; the run an upload's `accept_all` asked for becomes its `confirm` here, in the
 * same commit, so no crash between the two leaves a ready session that forgot it (the confirm
 * job is nudged after, and its schedule finds the run if the nudge is lost).
 */
export async function markSessionReady(trx: Transaction<Database>, sessionId: number, now: Date, details: JsonObject): Promise<void> {
  const counts = (await suggestionCounts(trx, [sessionId])).get(sessionId)!;
  const current = await trx.selectFrom('import_sessions').select('metadata').where('id', '=', sessionId).executeTakeFirst();
  const requested = requestedConfirmOf(current?.metadata);
  // a run that analysis began counts from its first batch; one it did not, from now
  const run = requested && { ...requested, total: counts.total, started_at: requested.processed > 0 ? requested.started_at : now.toISOString() };
  const metadata = { ...details, total_suggestions: counts.total, duplicates_found: counts.duplicates, not_importable_count: await zeroAmountCount(trx, sessionId), ...(run && { confirm: run }) };
  await trx.updateTable('import_sessions').set({ status: 'ready', error: null, metadata: JSON.stringify(metadata), updated_at: now }).where('id', '=', sessionId).execute();
}

/**
 * The session's lines of amount 0: no transaction (domain notImportableReason), counted once
 * as analysis ends rather than kept by the counts' triggers.
 */
async function zeroAmountCount(trx: Transaction<Database>, sessionId: number): Promise<number> {
  const row = await trx
    .selectFrom('import_suggestions')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('import_session_id', '=', sessionId)
    .where('amount', '=', '0')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The session locked while it is being checked; false when it was deleted or another worker finished it. */
export async function lockCheckingSession(trx: Transaction<Database>, sessionId: number): Promise<boolean> {
  const current = await trx.selectFrom('import_sessions').select('status').where('id', '=', sessionId).forUpdate().executeTakeFirst();
  return current?.status === 'checking';
}

export interface SuggestionCounts {
  total: number;
  duplicates: number;
  /** Turned into transactions by a confirm. */
  imported: number;
}

/**
 * Per session: its suggestions, those flagged as duplicates and those imported, summed from
 * the deltas migration 025's triggers keep (a few hundred rows a session, where counting its
 * suggestions read up to 100,000 on every poll).
 */
export async function suggestionCounts(db: Kysely<Database>, sessionIds: number[]): Promise<Map<number, SuggestionCounts>> {
  const counts = new Map<number, SuggestionCounts>(sessionIds.map((id) => [id, { total: 0, duplicates: 0, imported: 0 }]));
  if (sessionIds.length === 0) return counts;
  const rows = await db
    .selectFrom('import_suggestion_counts')
    .select((eb) => [
      'import_session_id',
      eb.fn.sum<string>('total').as('total'),
      eb.fn.sum<string>('duplicates').as('duplicates'),
      eb.fn.sum<string>('imported').as('imported'),
    ])
    .where('import_session_id', 'in', sessionIds)
    .groupBy('import_session_id')
    .execute();
  for (const row of rows) counts.set(Number(row.import_session_id), { total: Number(row.total), duplicates: Number(row.duplicates), imported: Number(row.imported) });
  return counts;
}

/** The session locked for a re-read; false when it is no longer ready or some suggestion is imported. */
export async function lockUnconfirmedSession(trx: Transaction<Database>, sessionId: number): Promise<boolean> {
  const session = await trx.selectFrom('import_sessions').select(['status', 'metadata']).where('id', '=', sessionId).forUpdate().executeTakeFirst();
  if (session?.status !== 'ready') return false;
  // a whole-session confirm reads the suggestions in index order: they must not change under it
  if ((session.metadata as { confirm?: { state?: string } } | null)?.confirm?.state === 'running') return false;
  const imported = await trx.selectFrom('import_suggestions').select('id').where('import_session_id', '=', sessionId).where('status', '=', 'confirmed').limit(1).executeTakeFirst();
  return imported === undefined;
}

/** The storage key of the session's kept upload. */
export async function uploadPath(db: Kysely<Database>, userId: number, fileId: number): Promise<string | undefined> {
  const row = await db.selectFrom('files').select('path').where('id', '=', fileId).where('user_id', '=', userId).executeTakeFirst();
  return row?.path;
}

/** Merges keys into the session's metadata (a confirm's reconciliation). */
export async function mergeSessionMetadata(db: Kysely<Database>, sessionId: number, details: JsonObject, now: Date): Promise<void> {
  await db
    .updateTable('import_sessions')
    .set({ metadata: sql`coalesce(metadata, '{}'::jsonb) || ${JSON.stringify(details)}::jsonb`, updated_at: now })
    .where('id', '=', sessionId)
    .execute();
}

// ---- confirm --------------------------------------------------------------------------------

/** The suggestion, locked for this confirm: a second confirm of it waits, then sees it imported. */
export function lockSuggestion(trx: Transaction<Database>, sessionId: number, index: number): Promise<ImportSuggestionRow | undefined> {
  return trx
    .selectFrom('import_suggestions')
    .selectAll()
    .where('import_session_id', '=', sessionId)
    .where('suggestion_index', '=', index)
    .forUpdate()
    .executeTakeFirst();
}

export async function markSuggestionImported(
  trx: Transaction<Database>,
  id: number,
  created: { transactionId: number; feeTransactionId: number | null },
  now: Date,
): Promise<void> {
  await trx
    .updateTable('import_suggestions')
    .set({ status: 'confirmed', transaction_id: created.transactionId, fee_transaction_id: created.feeTransactionId, error: null, confirmed_at: now, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Records why the last confirm of a suggestion failed (never over an imported one). */
export async function markSuggestionFailed(db: Kysely<Database>, sessionId: number, index: number, error: string, now: Date): Promise<void> {
  await db
    .updateTable('import_suggestions')
    .set({ status: 'failed', error, updated_at: now })
    .where('import_session_id', '=', sessionId)
    .where('suggestion_index', '=', index)
    .where('status', '!=', 'confirmed')
    .execute();
}

/** A confirm created transactions: the session is confirmed (the first time keeps its time). */
export async function markSessionConfirmed(db: Kysely<Database>, sessionId: number, now: Date): Promise<void> {
  await db
    .updateTable('import_sessions')
    .set({ status: 'confirmed', confirmed_at: sql<Date>`coalesce(confirmed_at, ${now})`, updated_at: now })
    .where('id', '=', sessionId)
    .execute();
}
