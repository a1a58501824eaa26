// Budget alerts: after a write of an expense or a refund, the user's live, active budgets that
// the transaction falls under are recomputed, and a budget that is now near its limit, forecast
// to breach it or over it gets one alert per kind and window: a budget_alerts row (unique
// budget_id, kind, period_start: `insert ... on conflict do nothing`, so concurrent writes
// cannot both alert; the budget rows are locked while it is judged, so two concurrent writes
// see each other's spending), a reminder of type budget_alert recording it, and a notification with
// the real numbers, delivered per the user's preferences (db/notification-delivery.ts).
// Each kind whose condition holds is recorded, so a write that takes a budget from 12% to 103%
// records both the threshold and the excess (and their webhook events, budget.threshold_crossed
// and budget.exceeded); only the most severe kind holding is notified, the others are recorded
// without a reminder or notification (one message about one write, never "near limit" next to
// or after "exceeded").
//
// The writes that can raise a budget's net spending call it: creating or updating an expense
// or a refund, deleting a refund, unmarking a refund, and the recurring-transactions job. It
// runs inside the write's database transaction, so a rolled back write alerts nothing, but
// under a savepoint: a failure of its own is logged and undone, never failing the write. An
// alert may queue an e-mail; withBudgetAlerts nudges its delivery once the write committed.
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { BudgetProgress } from '../domain/budget-progress.js';
import { Decimal } from '../domain/money.js';
import type { WebhookEventKind } from '../domain/webhook-events.js';
import { DELIVER_EMAILS_JOB } from './job-names.js';
import { recordWebhookEvent } from './webhook-outbox.js';
import type { DatabaseServices } from './services.js';
import { progressOfBudgets, userTimeZoneOrUtc, warmBudgetRates, withoutProvider } from './budget-spending.js';
import { selectBudgets, type BudgetRow } from './budgets.js';
import { notifyUser } from './notification-delivery.js';
import type { BudgetAlertKind, Database } from './schema.js';

/**
 * The alert kinds whose condition the progress meets, most severe first: over its limit; forecast
 * to breach it (when not over already, as the status says); at or past threshold_percent (also
 * when over the limit: percent_used is then at least 100, and threshold_percent at most 100).
 */
export function alertKindsOf(progress: Pick<BudgetProgress, 'status' | 'is_threshold_crossed'>): BudgetAlertKind[] {
  const kinds: BudgetAlertKind[] = [];
  if (progress.status === 'over_budget') kinds.push('over_budget');
  if (progress.status === 'forecast_breach') kinds.push('forecast');
  if (progress.is_threshold_crossed) kinds.push('threshold');
  return kinds;
}

/** The webhook event each alert kind records (the forecast has none). */
const EVENT_OF_KIND: Partial<Record<BudgetAlertKind, WebhookEventKind>> = {
  threshold: 'budget.threshold_crossed',
  over_budget: 'budget.exceeded',
};

/** The records a transaction is matched to budget targets by. */
interface Matched {
  walletId: number;
  groupId: number | null;
  categoryIds: number[];
}

/**
 * Alerts the budgets a transaction's write may have moved, inside that write's database
 * transaction. Given several transactions (a batch written together), each budget any of them
 * moved is judged once, on its totals after all of them.
 */
export type AlertBudgets = (trx: Transaction<Database>, userId: number, transactionId: number | number[]) => Promise<void>;

/**
 * Runs `write` (which commits its own database transaction), handing it `alert` to call after
 * each transaction it writes; once `write` has returned, nudges e-mail delivery if any alert
 * was raised. A write that throws nudges nothing: its alerts were rolled back with it.
 * With `writer` (the one user whose records `write` changes), the rates the user's budgets
 * convert with are resolved first, before any transaction opens (alerts never call the provider).
 */
export async function withBudgetAlerts<T>(
  services: DatabaseServices,
  log: FastifyBaseLogger | undefined,
  write: (alert: AlertBudgets) => Promise<T>,
  writer?: { db: Kysely<Database>; userId: number },
): Promise<T> {
  if (writer) await warmBudgetRates(writer.db, services, writer.userId);
  let raised = false;
  const result = await write(async (trx, userId, transactionId) => {
    if (await alertBudgetsAfterWrite(trx, services, userId, transactionId, log)) raised = true;
  });
  if (raised) await services.jobs.send(DELIVER_EMAILS_JOB);
  return result;
}

/**
 * Alerts the budgets that the transaction's write may have moved; true when an alert was
 * raised. Never throws: alerting is a side effect of the write, not a condition of it.
 */
export async function alertBudgetsAfterWrite(
  trx: Transaction<Database>,
  services: DatabaseServices,
  userId: number,
  transactionId: number | number[],
  log?: FastifyBaseLogger,
): Promise<boolean> {
  await sql`savepoint budget_alerts`.execute(trx);
  try {
    const raised = await alertBudgets(trx, withoutProvider(services), userId, transactionId);
    await sql`release savepoint budget_alerts`.execute(trx);
    return raised;
  } catch (error) {
    await sql`rollback to savepoint budget_alerts`.execute(trx);
    log?.error({ err: error, transactionId }, 'budget alerts failed; the write goes on without them');
    return false;
  }
}

async function alertBudgets(trx: Transaction<Database>, services: DatabaseServices, userId: number, transactionId: number | number[]): Promise<boolean> {
  const matches: Matched[] = [];
  for (const id of Array.isArray(transactionId) ? transactionId : [transactionId]) {
    const matched = await spendingMatchedBy(trx, userId, id);
    if (matched) matches.push(matched);
  }
  if (matches.length === 0) return false;
  const candidates = await budgetsMatchingAny(trx, userId, matches);
  if (candidates.length === 0) return false;
  // Two writes at once (on two wallets, so nothing else orders them) must not each judge a
  // budget without the other's spending: that loses the alert they cross together. The budget
  // rows stay locked (in id order) until this write commits; a second write's check waits,
  // then its statements see the first write's committed spending (READ COMMITTED).
  await trx.selectFrom('budgets').select('id').where('id', 'in', candidates.map((budget) => budget.id)).orderBy('id').forUpdate().execute();
  const budgets = await budgetsMatchingAny(trx, userId, matches);
  const now = services.now();
  const zone = await userTimeZoneOrUtc(trx, userId);
  let raised = false;
  const progress = await progressOfBudgets(trx, services, budgets, now, zone);
  for (const [index, budget] of budgets.entries()) {
    const kinds = alertKindsOf(progress[index]);
    // recorded least severe first, so the webhook events read in order (threshold, then exceeded)
    for (const kind of [...kinds].reverse()) {
      if (await raiseAlert(trx, budget, kind, progress[index], now, { notify: kind === kinds[0] })) raised = true;
    }
  }
  return raised;
}

/**
 * What the written transaction is matched to targets by, or undefined when the write cannot
 * raise any budget's spending: a transfer leg, a plain income, a deleted expense. A refund is
 * counted through its original expense, so it is matched by that expense, also once the refund
 * is deleted (the income keeps its flags) or unmarked (its refund record, now a tombstone,
 * keeps the original): both raise that expense's budgets' net spending.
 */
async function spendingMatchedBy(db: Kysely<Database>, userId: number, transactionId: number): Promise<Matched | undefined> {
  const written = await db
    .selectFrom('transactions')
    .select(['id', 'type', 'refund_of_transaction_id', 'transfer_id', 'deleted_at'])
    .where('id', '=', transactionId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!written || written.transfer_id !== null) return undefined;
  let expenseId: number;
  if (written.type === 'expense') {
    if (written.deleted_at) return undefined;
    expenseId = written.id;
  } else {
    const original = written.refund_of_transaction_id ?? (await refundRecordOriginal(db, userId, written.id));
    if (original === null) return undefined;
    expenseId = original;
  }
  const expense = await db
    .selectFrom('transactions')
    .select(['wallet_id', 'group_id'])
    .where('id', '=', expenseId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!expense) return undefined;
  const links = await db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', expenseId).execute();
  return { walletId: expense.wallet_id, groupId: expense.group_id, categoryIds: links.map((link) => link.category_id) };
}

/** The expense an income's refund record names, live or a tombstone (null when there is none). */
async function refundRecordOriginal(db: Kysely<Database>, userId: number, incomeId: number): Promise<number | null> {
  const record = await db
    .selectFrom('refunds')
    .select('original_transaction_id')
    .where('user_id', '=', userId)
    .where('refund_transaction_id', '=', incomeId)
    .executeTakeFirst();
  return record?.original_transaction_id ?? null;
}

/** The budgets any of the matches moves, each once, in id order. */
async function budgetsMatchingAny(db: Kysely<Database>, userId: number, matches: Matched[]): Promise<BudgetRow[]> {
  const byId = new Map<number, BudgetRow>();
  for (const matched of matches) for (const budget of await budgetsMatching(db, userId, matched)) byId.set(budget.id, budget);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** The user's live, active budgets with a target the transaction matches, or with no live target (they cover everything). */
function budgetsMatching(db: Kysely<Database>, userId: number, matched: Matched): Promise<BudgetRow[]> {
  const categoryIds = matched.categoryIds.length ? matched.categoryIds : [0];
  return selectBudgets(db, userId)
    .where('budgets.deleted_at', 'is', null)
    .where('budgets.is_active', '=', true)
    .where(
      sql<boolean>`(
        exists (select 1 from budget_targets bt where bt.budget_id = budgets.id
          and (bt.wallet_id = ${matched.walletId} or bt.group_id = ${matched.groupId}
               or bt.category_id = any(${categoryIds}::bigint[])))
        or not exists (select 1 from budget_targets bt
          left join categories c on c.id = bt.category_id and c.deleted_at is null
          left join groups g on g.id = bt.group_id and g.deleted_at is null
          left join wallets w on w.id = bt.wallet_id and w.deleted_at is null
          where bt.budget_id = budgets.id and coalesce(c.id, g.id, w.id) is not null))`,
    )
    .orderBy('budgets.id')
    .execute();
}

/**
 * Records the alert once per budget, kind and window, with its webhook event; the first recorder
 * notifies when asked (and gets true), else it records the alert alone.
 */
async function raiseAlert(trx: Transaction<Database>, budget: BudgetRow, kind: BudgetAlertKind, progress: BudgetProgress, now: Date, { notify }: { notify: boolean }): Promise<boolean> {
  const alert = await trx
    .insertInto('budget_alerts')
    .values({ user_id: budget.user_id, budget_id: budget.id, kind, period_start: progress.period_start, period_end: progress.period_end, created_at: now })
    .onConflict((oc) => oc.columns(['budget_id', 'kind', 'period_start']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!alert) return false; // already alerted in this window
  const event = EVENT_OF_KIND[kind];
  if (event) await recordWebhookEvent(trx, budget.user_id, event, budget.id, now);
  if (!notify) return false;
  const { title, body } = alertText(budget, kind, progress);
  const window = { period_start: progress.period_start, period_end: progress.period_end };
  // The reminder records the alert (reference: budget alerts are reminders); it is created
  // fired, so the reminder job never sends it a second time.
  const reminder = await trx
    .insertInto('reminders')
    .values({
      user_id: budget.user_id,
      title,
      description: body,
      type: 'budget_alert',
      status: 'completed',
      trigger_at: now,
      last_triggered_at: now,
      next_trigger_at: null,
      priority: kind === 'threshold' ? 2 : 1,
      source: kind,
      budget_id: budget.id,
      metadata: JSON.stringify({ kind, ...window }),
      created_at: now,
      updated_at: now,
      last_synced_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const notificationId = await notifyUser(trx, budget.user_id, 'alerts', {
    type: 'alert',
    title,
    body,
    data: { budget_id: budget.id, kind, ...window },
    reminderId: reminder.id,
    at: now,
  });
  await trx.updateTable('budget_alerts').set({ notification_id: notificationId, reminder_id: reminder.id }).where('id', '=', alert.id).execute();
  return true;
}

/** Title and body with the real numbers, e.g. "Groceries: 85% used — 425.00 of 500.00 EUR". */
export function alertText(budget: Pick<BudgetRow, 'name' | 'currency'>, kind: BudgetAlertKind, progress: BudgetProgress): { title: string; body: string } {
  const money = (value: number) => `${new Decimal(String(value)).toFixed(2)}`;
  const spent = `${money(progress.net_spent)} of ${money(progress.effective_limit)} ${budget.currency}`;
  const window = `${progress.period_start} to ${progress.period_end}`;
  switch (kind) {
    case 'threshold':
      return {
        title: `Budget near limit: ${budget.name}`,
        body: `${budget.name}: ${progress.percent_used}% used — ${spent} (${window}); ${money(progress.remaining)} ${budget.currency} left.`,
      };
    case 'forecast':
      return {
        title: `Budget forecast to breach: ${budget.name}`,
        body: `${budget.name}: at this pace ${money(progress.projected_spend)} ${budget.currency} will be spent by ${progress.period_end}, over the limit of ${money(progress.effective_limit)} ${budget.currency}; ${progress.percent_used}% used so far — ${spent}.`,
      };
    case 'over_budget':
      return {
        title: `Budget exceeded: ${budget.name}`,
        body: `${budget.name}: ${progress.percent_used}% used — ${spent} (${window}); ${money(-progress.remaining)} ${budget.currency} over.`,
      };
  }
}
