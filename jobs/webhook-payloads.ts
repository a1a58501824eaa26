// The body of a webhook event: its id, kind and time, and the record it is about as the API
// shows it (the same views as GET of that record), read when the event is first sent.
import type { Kysely } from 'kysely';
import { selectBudgets } from '../db/budgets.js';
import { findFileImport } from '../db/imports.js';
import { selectPeriodStates } from '../db/budget-period-states.js';
import type { Database } from '../db/schema.js';
import { selectSynced } from '../db/sync.js';
import { selectTransfers } from '../db/transfers.js';
import { selectTransactions } from '../db/transactions.js';
import type { WebhookEventsTable } from '../db/webhook-schema.js';
import type { WebhookEventKind } from '../domain/webhook-events.js';
import { present as presentBudgets } from '../handlers/budgets.js';
import { sessionView } from '../handlers/import-sessions.js';
import { present as presentTransactions } from '../handlers/transactions.js';
import { attachWallets } from '../handlers/transfers.js';
import { toBudgetPeriodState } from '../handlers/views/budget.js';
import { toFileImport } from '../handlers/views/import.js';
import { toReminder } from '../handlers/views/reminder.js';
import { toTransfer } from '../handlers/views/transfer.js';
import type { Selectable } from 'kysely';
import type { AppServices } from '../server/services.js';

type Reader = (ctx: { db: Kysely<Database>; user: { id: number }; services: AppServices }, id: number) => Promise<unknown>;

const transaction: Reader = async (ctx, id) => {
  const rows = await selectTransactions(ctx.db, ctx.user.id).where('transactions.id', '=', id).execute();
  return rows.length ? (await presentTransactions(ctx, rows))[0] : null;
};

const transfer: Reader = async (ctx, id) => {
  const rows = await selectTransfers(ctx.db, ctx.user.id).where('transfers.id', '=', id).execute();
  return rows.length ? (await attachWallets(ctx.db, ctx.user.id, rows.map(toTransfer)))[0] : null;
};

/** The budget with its progress, as GET /v1/budgets/{id} shows it. */
const budget: Reader = async (ctx, id) => {
  const rows = await selectBudgets(ctx.db, ctx.user.id).where('budgets.id', '=', id).execute();
  return rows.length ? (await presentBudgets(ctx, rows))[0] : null;
};

/** Per kind, how the record is read (deleted records included: a tombstone shows `deleted_at`). */
const readers: Record<WebhookEventKind, Reader> = {
  'transaction.created': transaction,
  'transaction.updated': transaction,
  'transaction.deleted': transaction,
  'transfer.created': transfer,
  'transfer.updated': transfer,
  'transfer.deleted': transfer,
  'budget.threshold_crossed': budget,
  'budget.exceeded': budget,
  'budget.period_closed': async (ctx, id) => {
    const row = await selectPeriodStates(ctx.db, ctx.user.id).where('budget_period_states.id', '=', id).executeTakeFirst();
    return row ? toBudgetPeriodState(row) : null;
  },
  'reminder.fired': async (ctx, id) => {
    const row = await selectSynced(ctx.db, 'reminders', ctx.user.id).where('reminders.id', '=', id).executeTakeFirst();
    return row ? toReminder(row) : null;
  },
  // the session with its counts, not its suggestions: a statement's can be 100,000 (GET with suggestions_limit=0)
  'import.confirmed': async (ctx, id) => (await sessionView(ctx.db, ctx.user.id, id, { limit: 0 })) ?? null,
  'import.completed': async (ctx, id) => {
    const row = await findFileImport(ctx.db, ctx.user.id, id);
    return row ? toFileImport(row) : null;
  },
};

/** The JSON body of the event; `data` is null when the record is gone altogether (its user deleted it for good). */
export async function eventBody(db: Kysely<Database>, services: AppServices, event: Selectable<WebhookEventsTable>): Promise<string> {
  const data = await readers[event.kind]({ db, user: { id: event.user_id }, services }, event.subject_id);
  return JSON.stringify({ id: event.id, kind: event.kind, created_at: event.created_at.toISOString(), data });
}
