// One sync of a bank connection (docs/bank-sync.md): the bridge is asked outside any database
// transaction (bounded by BANK_SYNC_TIMEOUT_MS), then everything it answered is written in ONE
// database transaction with the connection locked: its accounts and balances, the pending
// lines held apart, and the new posted lines of linked accounts taken through the statement
// import pipeline (an import session whose suggestions are checked for duplicates as analysis
// checks them, then confirmed by the whole-session confirm's batch writer: sync stamps,
// webhooks, budget alerts, and whatever that pipeline applies to imported rows). A sync killed
// midway writes nothing; a second sync racing the first waits for the lock and then finds every
// line already taken (bank_lines), so each line is imported once.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { withBudgetAlerts, type AlertBudgets } from '../../db/budget-alerts.js';
import { userTimeZoneOrUtc } from '../../db/budget-spending.js';
import {
  keepAccounts,
  lockConnection,
  recordSyncFailure,
  recordSyncSuccess,
  recordTakenLines,
  replacePendingLines,
  setLastPosted,
  takenLineIds,
  takeRequest,
  type BankAccountRow,
  type BankConnectionRow,
  type TakenLine,
} from '../../db/bank-connections.js';
import { newConfirmRun, newestTransactionId, runAfterBatch, saveConfirmRun } from '../../db/import-confirm-runs.js';
import { recordsOf } from '../../db/import-matching.js';
import { insertSuggestionsReturning, markSessionReady, type ImportSessionRow } from '../../db/import-sessions.js';
import { notifyUser } from '../../db/notification-delivery.js';
import type { Database } from '../../db/schema.js';
import type { DatabaseServices } from '../../db/services.js';
import { Decimal } from '../../domain/money.js';
import { matchRecords } from '../../domain/statements/matching.js';
import { blankDraft, keptAmount, type SuggestionDraft } from '../../domain/statements/suggestions.js';
import { BankBridgeError, type BankAccount, type BankAdapter, type BankLine } from '../../server/bank-adapters.js';
import { openSecret } from '../../server/bank-secrets.js';
import type { Config } from '../../server/config.js';
import { SimpleFinAdapter } from '../../server/simplefin.js';
import { withDuplicates } from './import-analysis.js';
import { CONFIRM_BATCH, confirmSuggestionBatch } from './import-confirm-batch.js';
import { sessionConfirmed } from './import-confirm.js';

/** Failures in a row after which the user is told. */
export const FAILURES_TO_NOTIFY = 3;
const DAY_MS = 86_400_000;

export interface SyncContext {
  db: Kysely<Database>;
  services: DatabaseServices & { config: Config; appKey: () => Promise<string> };
  log: FastifyBaseLogger;
}

export type SyncOutcome =
  | { status: 'synced'; created: number; duplicates: number; pending: number; session_id: number | null; bridge_errors: string[] }
  | { status: 'failed'; reason: string; bridge_errors: string[] }
  | { status: 'limited' }
  | { status: 'gone' };

export interface SyncOptions {
  /** Tests: called inside the write transaction after the lines are written, before it commits (a worker killed there). */
  beforeCommit?: () => Promise<void>;
  /** Tests: the adapter to ask instead of the connection's own. */
  adapter?: BankAdapter;
}

/** The adapter of a connection: its provider's, opened with the deployment's key. */
export async function adapterOf(ctx: SyncContext, connection: BankConnectionRow): Promise<BankAdapter> {
  const access = openSecret(await ctx.services.appKey(), connection.secret);
  if (access === undefined) throw new BankBridgeError('The connection cannot be opened with this deployment\'s app key (was APP_KEY changed?): connect again with a new setup token.');
  return new SimpleFinAdapter(access, ctx.services.config.bankSync.timeoutMs);
}

/** The window of a sync: the first reads BANK_SYNC_FIRST_DAYS back, later ones from the oldest newest-posted day of a linked account less the overlap. */
export function syncWindow(accounts: BankAccountRow[], config: Config['bankSync'], now: Date): { from: Date; to: Date } {
  const firstFrom = new Date(Date.parse(now.toISOString().slice(0, 10)) - config.firstDays * DAY_MS);
  const linked = accounts.filter((a) => a.wallet_id !== null);
  if (linked.length === 0 || linked.some((a) => a.last_posted_date === null)) return { from: firstFrom, to: now };
  const oldest = linked.map((a) => a.last_posted_date!).sort()[0];
  const from = new Date(Date.parse(`${oldest}T00:00:00Z`) - config.overlapDays * DAY_MS);
  return { from: from < firstFrom ? firstFrom : from, to: now };
}

/** Syncs one connection; failures of the bridge are recorded on it (and returned), database errors thrown. */
export async function syncConnection(ctx: SyncContext, connectionId: number, options: SyncOptions = {}): Promise<SyncOutcome> {
  const { db, services } = ctx;
  const config = services.config.bankSync;
  const connection = (await db.selectFrom('bank_connections').selectAll().where('id', '=', connectionId).executeTakeFirst()) as BankConnectionRow | undefined;
  if (!connection) return { status: 'gone' };
  const started = services.now();
  if (!(await takeRequest(db, connectionId, config.dailyRequests, started))) return { status: 'limited' };
  const known = (await db.selectFrom('bank_accounts').selectAll().where('connection_id', '=', connectionId).execute()) as BankAccountRow[];
  let fetched: { accounts: BankAccount[]; errors: string[] };
  try {
    const adapter = options.adapter ?? (await adapterOf(ctx, connection));
    fetched = await adapter.fetchTransactions(syncWindow(known, config, started));
  } catch (error) {
    if (!(error instanceof BankBridgeError)) throw error;
    await failed(ctx, connection, error.message);
    return { status: 'failed', reason: error.message, bridge_errors: [] };
  }
  const userId = connection.user_id;
  const timeZone = await userTimeZoneOrUtc(db, userId);
  return withBudgetAlerts(
    services,
    ctx.log,
    (alert) =>
      db.transaction().execute(async (trx) => {
        const locked = await lockConnection(trx, connectionId);
        if (!locked) return { status: 'gone' } as const;
        const now = services.now();
        const accounts = await keepAccounts(trx, locked, fetched.accounts, now);
        let pending = 0;
        const fresh: Array<{ account: BankAccountRow; line: BankLine }> = [];
        for (const answered of fetched.accounts) {
          const account = accounts.get(answered.id)!;
          const waiting = answered.lines.filter((line) => line.pending);
          await replacePendingLines(trx, account, waiting, now);
          pending += waiting.length;
          if (account.wallet_id === null) continue;
          const posted = answered.lines.filter((line) => !line.pending);
          const taken = await takenLineIds(trx, account.id, posted.map((line) => line.id));
          const seen = new Set<string>();
          for (const line of posted) {
            if (taken.has(line.id) || seen.has(line.id)) continue;
            seen.add(line.id);
            fresh.push({ account, line });
          }
        }
        const imported = fresh.length === 0 ? { created: 0, duplicates: 0, sessionId: null } : await importLines(trx, { db, userId, timeZone, now, alert, log: ctx.log, connection: locked }, fresh);
        const next = new Date(now.getTime() + config.intervalHours * 3_600_000);
        await recordSyncSuccess(trx, connectionId, fetched.errors, next, now);
        await options.beforeCommit?.();
        return { status: 'synced', created: imported.created, duplicates: imported.duplicates, pending, session_id: imported.sessionId, bridge_errors: fetched.errors } as const;
      }),
    { db, userId },
  );
}

async function failed(ctx: SyncContext, connection: BankConnectionRow, reason: string): Promise<void> {
  const now = ctx.services.now();
  // a failing bridge is asked again at the usual interval, not sooner (its daily budget)
  const next = new Date(now.getTime() + ctx.services.config.bankSync.intervalHours * 3_600_000);
  const failures = await recordSyncFailure(ctx.db, connection.id, reason, next, now);
  if (failures === FAILURES_TO_NOTIFY) {
    await notifyUser(ctx.db, connection.user_id, 'alerts', {
      type: 'alert',
      title: `Bank sync of ${connection.name} is failing`,
      body: `The last ${FAILURES_TO_NOTIFY} syncs failed: ${reason}`,
      data: { bank_connection_id: connection.id },
      at: now,
    });
  }
}

interface ImportContext {
  db: Kysely<Database>;
  userId: number;
  timeZone: string;
  now: Date;
  alert: AlertBudgets;
  log: FastifyBaseLogger;
  connection: BankConnectionRow;
}

/** A bank line as the draft a statement row would be: positive amount, direction in `type`. */
function draftOf(account: BankAccountRow, walletName: string, line: BankLine): SuggestionDraft {
  const draft = blankDraft('csv');
  const amount = new Decimal(line.amount);
  draft.amount = amount.isZero() ? '0' : keptAmount(draft, amount);
  draft.type = amount.isNegative() ? 'expense' : 'income';
  draft.currency = account.currency;
  draft.date = line.date;
  draft.description = line.description || line.memo || line.payee;
  draft.party = line.payee;
  draft.wallet = walletName;
  draft.account = account.external_id;
  draft.reference = line.id;
  return draft;
}

/**
 * The new lines as an import session, checked and confirmed in the caller's transaction; each
 * line recorded as taken with the transaction made for it (or the one it repeats).
 */
async function importLines(trx: Transaction<Database>, ctx: ImportContext, fresh: Array<{ account: BankAccountRow; line: BankLine }>): Promise<{ created: number; duplicates: number; sessionId: number }> {
  const walletIds = [...new Set(fresh.map((f) => f.account.wallet_id!))];
  const wallets = new Map((await trx.selectFrom('wallets').select(['id', 'name']).where('id', 'in', walletIds).where('deleted_at', 'is', null).execute()).map((w) => [w.id, w.name]));
  const usable = fresh.filter((f) => wallets.has(f.account.wallet_id!));
  const drafts = matchRecords(
    usable.map((f) => draftOf(f.account, wallets.get(f.account.wallet_id!)!, f.line)),
    await recordsOf(trx, ctx.userId),
  ).map((draft, at) => Object.assign(draft, { walletId: usable[at].account.wallet_id }));
  const checked = await withDuplicates(trx, ctx.userId, drafts, ctx.timeZone, await newestTransactionId(trx));
  const session = (await trx
    .insertInto('import_sessions')
    .values({
      user_id: ctx.userId,
      file_name: `${ctx.connection.name} (bank sync ${ctx.now.toISOString().slice(0, 10)})`,
      file_type: 'application/json',
      document_type: 'bank_statement',
      processor: 'csv',
      file_id: null,
      status: 'checking',
      metadata: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()) as ImportSessionRow;
  const suggestions = await insertSuggestionsReturning(trx, session, checked, 0, ctx.now);
  await markSessionReady(trx, session.id, ctx.now, { bank_connection_id: ctx.connection.id });
  let run = newConfirmRun({ auto_create_wallets: false, auto_create_parties: false, auto_create_categories: false, items: [] }, suggestions.length, ctx.now);
  const request = { session_id: session.id, auto_create_wallets: false, auto_create_parties: false, auto_create_categories: false };
  for (let at = 0; at < suggestions.length; at += CONFIRM_BATCH) {
    const batch = suggestions.slice(at, at + CONFIRM_BATCH);
    const counts = await confirmSuggestionBatch(trx, { db: ctx.db, userId: ctx.userId, session, balances: [], request, timeZone: ctx.timeZone, now: ctx.now, alert: ctx.alert, log: ctx.log }, batch, new Map());
    run = runAfterBatch(run, batch, counts, at + CONFIRM_BATCH >= suggestions.length, ctx.now);
  }
  await saveConfirmRun(trx, session.id, run, ctx.now);
  if (run.created_count > 0) await sessionConfirmed(trx, { ...session, status: 'ready' }, ctx.now);

  const outcome = await trx.selectFrom('import_suggestions').select(['suggestion_index', 'transaction_id', 'duplicate']).where('import_session_id', '=', session.id).execute();
  const byIndex = new Map(outcome.map((row) => [row.suggestion_index, row]));
  const taken: TakenLine[] = usable.map((f, at) => {
    const row = byIndex.get(at);
    const repeated = (row?.duplicate as { transaction_id?: number } | null)?.transaction_id ?? null;
    return { userId: ctx.userId, accountId: f.account.id, line: f.line, transactionId: row?.transaction_id ?? repeated };
  });
  await recordTakenLines(trx, taken, ctx.now);
  const newest = new Map<number, string>();
  for (const f of usable) if ((newest.get(f.account.id) ?? '') < f.line.date) newest.set(f.account.id, f.line.date);
  for (const [accountId, day] of newest) await setLastPosted(trx, accountId, day, ctx.now);
  return { created: run.created_count, duplicates: run.skipped_count, sessionId: session.id };
}
