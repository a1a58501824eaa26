// A confirm of a whole import session (`accept_all`) run by a job, a batch of suggestions per
// database transaction. Its state lives in the session's metadata (`confirm`): the request's
// flags and item overrides, the index the next batch starts at and the counts so far. Each
// batch locks the session row (SKIP LOCKED: a second worker passes it by), locks its
// suggestions, writes, marks them and moves `next_index` in one commit, so a crash loses only
// the batch in flight and a rerun resumes where the last commit left off.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, JsonObject } from './schema.js';
import type { ImportSessionRow, ImportSuggestionRow } from './import-sessions.js';

export interface ConfirmRun {
  state: 'running' | 'done';
  auto_create_wallets: boolean;
  auto_create_parties: boolean;
  auto_create_categories: boolean;
  /** The request's items (at most 1,000): overrides and `accept_duplicate` by index. */
  items: JsonObject[];
  /** The first suggestion index the next batch reads. */
  next_index: number;
  /** Suggestions of the session when the run started. */
  total: number;
  processed: number;
  created_count: number;
  already_imported_count: number;
  skipped_count: number;
  /** Lines of amount 0 left out (absent from runs stored before they were). */
  not_importable_count?: number;
  failed_count: number;
  started_at: string;
  finished_at: string | null;
  /** A run that imports while analysis stores (accept_all at upload): duplicates are looked for up to this transaction id. */
  ledger_through_id?: number;
}

export function confirmRunOf(session: ImportSessionRow): ConfirmRun | null {
  return ((session.metadata as { confirm?: ConfirmRun } | null)?.confirm as ConfirmRun | undefined) ?? null;
}

/** What a whole-session confirm is asked to do: its flags and the items' overrides. */
export type ConfirmRunRequest = Pick<ConfirmRun, 'auto_create_wallets' | 'auto_create_parties' | 'auto_create_categories' | 'items'>;

/** A run about to import the session's `total` suggestions from the first on. */
export function newConfirmRun(request: ConfirmRunRequest, total: number, now: Date): ConfirmRun {
  return {
    state: 'running',
    ...request,
    next_index: 0,
    total,
    processed: 0,
    created_count: 0,
    already_imported_count: 0,
    skipped_count: 0,
    not_importable_count: 0,
    failed_count: 0,
    started_at: now.toISOString(),
    finished_at: null,
  };
}

/** The run after one more batch: its counts, the index the next batch starts at, `done` once a batch came back short. */
export function runAfterBatch(
  run: ConfirmRun,
  batch: Array<{ suggestion_index: number }>,
  counts: { created: number; already_imported: number; skipped: number; not_importable: number; failed: number },
  done: boolean,
  now: Date,
): ConfirmRun {
  return {
    ...run,
    state: done ? 'done' : 'running',
    next_index: batch.length > 0 ? batch.at(-1)!.suggestion_index + 1 : run.next_index,
    processed: run.processed + batch.length,
    created_count: run.created_count + counts.created,
    already_imported_count: run.already_imported_count + counts.already_imported,
    skipped_count: run.skipped_count + counts.skipped,
    not_importable_count: (run.not_importable_count ?? 0) + counts.not_importable,
    failed_count: run.failed_count + counts.failed,
    finished_at: done ? now.toISOString() : null,
  };
}

/**
 * The metadata key of the run an upload's `accept_all` asked for, until analysis ends: a
 * streamed analysis imports each batch as it stores it and counts it here; markSessionReady
 * then makes it the session's `confirm` in the same commit as `ready`, and the confirm job
 * imports what is left (all of it for the other kinds of document) and ends it.
 */
export const CONFIRM_REQUESTED = 'confirm_requested';

/** The run the upload asked for while analysis has not handed it on, or null. */
export function requestedConfirmOf(metadata: unknown): ConfirmRun | null {
  return ((metadata as Record<string, unknown> | null)?.[CONFIRM_REQUESTED] as ConfirmRun | undefined) ?? null;
}

/** The requested run's progress, saved with the batch it counts (inside the batch's transaction). */
export async function savePendingRun(trx: Transaction<Database>, sessionId: number, run: ConfirmRun, now: Date): Promise<void> {
  await trx
    .updateTable('import_sessions')
    .set({ metadata: sql`coalesce(metadata, '{}'::jsonb) || jsonb_build_object(${CONFIRM_REQUESTED}::text, ${JSON.stringify(run)}::jsonb)`, updated_at: now })
    .where('id', '=', sessionId)
    .execute();
}

/**
 * The newest transaction id of the whole ledger: a run that imports while it analyses checks each
 * batch for duplicates among the transactions up to it, the ledger as it was when the run began
 * (as the analysis of a separate confirm sees it), never among the rows it imported itself.
 */
export async function newestTransactionId(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('transactions').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/**
 * Starts a run unless one is running; returns the session as it is now, or undefined when a
 * run was already going (or the session is no longer ready or confirmed).
 */
export async function startConfirmRun(db: Kysely<Database>, sessionId: number, run: ConfirmRun, now: Date): Promise<ImportSessionRow | undefined> {
  return db
    .updateTable('import_sessions')
    .set({ metadata: sql`coalesce(metadata, '{}'::jsonb) || jsonb_build_object('confirm', ${JSON.stringify(run)}::jsonb)`, updated_at: now })
    .where('id', '=', sessionId)
    .where('status', 'in', ['ready', 'confirmed'])
    .where(sql<boolean>`coalesce(metadata->'confirm'->>'state', '') <> 'running'`)
    .returningAll()
    .executeTakeFirst();
}

/** Sessions with a run still going (a lost nudge or a crashed worker leaves them so). */
export async function runningConfirmIds(db: Kysely<Database>, limit = 20): Promise<number[]> {
  const rows = await db
    .selectFrom('import_sessions')
    .select('id')
    .where(sql<boolean>`metadata->'confirm'->>'state' = 'running'`)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The session with a running confirm, locked for one batch; undefined when another worker holds it or nothing runs. */
export async function lockConfirmRun(trx: Transaction<Database>, sessionId: number): Promise<{ session: ImportSessionRow; run: ConfirmRun } | undefined> {
  const session = await trx
    .selectFrom('import_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where(sql<boolean>`metadata->'confirm'->>'state' = 'running'`)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  const run = session && confirmRunOf(session);
  return session && run ? { session, run } : undefined;
}

/**
 * The next suggestions in index order, locked: a confirm of single items waits for them and then
 * sees them imported. A session's indexes run 0, 1, 2, … so the batch is first asked for by its
 * index range, which the (session, index) key answers reading just those rows; only a range that
 * comes back short (the session's last batch, or indexes with gaps) is asked again by `limit`.
 * Asked by `limit` alone, PostgreSQL read and sorted every suggestion after `fromIndex` (its
 * estimate of a session's rows was far too low for the ordered index scan), per batch: the
 * confirm of 100,000 suggestions read 2.5 million rows to lock 100,000.
 */
export async function lockSuggestionBatch(trx: Transaction<Database>, sessionId: number, fromIndex: number, limit: number): Promise<ImportSuggestionRow[]> {
  const next = trx.selectFrom('import_suggestions').selectAll().where('import_session_id', '=', sessionId).where('suggestion_index', '>=', fromIndex).orderBy('suggestion_index');
  const ranged = await next.where('suggestion_index', '<', fromIndex + limit).forUpdate().execute();
  if (ranged.length === limit) return ranged;
  return next.limit(limit).forUpdate().execute();
}

/** Suggestions turned into transactions, in one statement. */
export async function markBatchImported(trx: Transaction<Database>, created: Array<{ id: number; transactionId: number }>, now: Date): Promise<void> {
  if (created.length === 0) return;
  await sql`
    update import_suggestions as s
       set status = 'confirmed', transaction_id = v.transaction_id, fee_transaction_id = null, error = null, confirmed_at = ${now}, updated_at = ${now}
      from unnest(${created.map((c) => c.id)}::bigint[], ${created.map((c) => c.transactionId)}::bigint[]) as v(id, transaction_id)
     where s.id = v.id`.execute(trx);
}

/** Suggestions that could not be imported, with their reasons, in one statement. */
export async function markBatchFailed(trx: Transaction<Database>, failed: Array<{ id: number; reason: string }>, now: Date): Promise<void> {
  if (failed.length === 0) return;
  await sql`
    update import_suggestions as s
       set status = 'failed', error = v.reason, updated_at = ${now}
      from unnest(${failed.map((f) => f.id)}::bigint[], ${failed.map((f) => f.reason)}::text[]) as v(id, reason)
     where s.id = v.id and s.status <> 'confirmed'`.execute(trx);
}

/** The run's new state, and the session `confirmed` from the first batch that created a transaction. */
export async function saveConfirmRun(trx: Transaction<Database>, sessionId: number, run: ConfirmRun, now: Date): Promise<void> {
  await trx
    .updateTable('import_sessions')
    .set({
      metadata: sql`coalesce(metadata, '{}'::jsonb) || jsonb_build_object('confirm', ${JSON.stringify(run)}::jsonb)`,
      ...(run.created_count > 0 ? { status: 'confirmed' as const, confirmed_at: sql<Date>`coalesce(confirmed_at, ${now})` } : {}),
      updated_at: now,
    })
    .where('id', '=', sessionId)
    .execute();
}
