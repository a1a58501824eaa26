// Closing a budget window: the snapshot of its progress (net_spent, rollover_in, rollover_out)
// stored in budget_period_states, one row per budget and window, so closing again updates that
// row. The next window reads its rollover_in from it (db/budget-spending.ts, rolloverInFor).
// closeEndedWindowsOf closes every ended window of one budget, oldest first: close-period and
// the hourly job (jobs/close-budget-periods) both run it.
import type { Kysely } from 'kysely';
import { endedWindows, type BudgetWindow } from '../domain/budget-periods.js';
import { rolloverOut } from '../domain/budget-progress.js';
import { MONEY_DECIMALS } from '../domain/money.js';
import { dayIn } from '../domain/stats-periods.js';
import type { BudgetRow } from './budgets.js';
import { recordWebhookEvent } from './webhook-outbox.js';
import type { DatabaseServices } from './services.js';
import { numbersInWindow, userTimeZoneOrUtc, type BudgetRef } from './budget-spending.js';
import type { Database } from './schema.js';
import { selectSynced, type SyncedRow } from './sync.js';

/** At most this many windows of one budget are closed per run (a budget started long ago catches up over runs). */
const CATCH_UP_LIMIT = 120;

export type PeriodStateRow = SyncedRow<'budget_period_states'>;

/**
 * Writes the snapshot of `window` as of the user's local day `today` (the caller holds the
 * budget row locked); returns the state's id.
 */
export async function closeWindow(
  db: Kysely<Database>,
  services: DatabaseServices,
  budget: BudgetRef,
  window: BudgetWindow,
  today: string,
  now: Date,
  timeZone?: string,
): Promise<number> {
  const numbers = await numbersInWindow(db, services, budget, window, today, timeZone);
  const snapshot = {
    period_end: window.end,
    net_spent: numbers.net.toFixed(MONEY_DECIMALS),
    rollover_in: numbers.rolloverIn.toFixed(MONEY_DECIMALS),
    rollover_out: rolloverOut({ effective_limit: numbers.effectiveLimit, net_spent: numbers.net }, String(budget.amount)),
    closed_at: now,
    updated_at: now,
    last_synced_at: now,
  };
  const row = await db
    .insertInto('budget_period_states')
    .values({ user_id: budget.user_id, budget_id: budget.id, period_start: window.start, created_at: now, ...snapshot })
    .onConflict((oc) => oc.columns(['budget_id', 'period_start']).doUpdateSet(snapshot))
    .returning('id')
    .executeTakeFirstOrThrow();
  await recordWebhookEvent(db, budget.user_id, 'budget.period_closed', row.id, now);
  return row.id;
}

/** The user's period states of live budgets, with device columns; callers add filters. */
export function selectPeriodStates(db: Kysely<Database>, userId: number) {
  return selectSynced(db, 'budget_period_states', userId)
    .innerJoin('budgets as state_budget', 'state_budget.id', 'budget_period_states.budget_id')
    .where('state_budget.deleted_at', 'is', null);
}

/**
 * The budget's latest closed window (by start) that ended before `today`, if any. A window
 * still running may be closed already (close-period), so it must not hide the ended ones.
 */
export function latestState(db: Kysely<Database>, budgetId: number, today: string) {
  return db
    .selectFrom('budget_period_states')
    .select(['period_start', 'period_end', 'closed_at'])
    .where('budget_id', '=', budgetId)
    .where('closed_at', 'is not', null)
    .where('period_end', '<', today)
    .orderBy('period_start', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Closes the budget's ended windows that are not finally closed, oldest first (the caller holds
 * the budget row locked); returns how many were written. close-period runs it too, so the
 * window it closes receives the rollover of the one that just ended.
 */
export async function closeEndedWindowsOf(trx: Kysely<Database>, services: DatabaseServices, budget: BudgetRow, now: Date): Promise<number> {
  const zone = await userTimeZoneOrUtc(trx, budget.user_id);
  const today = dayIn(now, zone);
  const latest = await latestState(trx, budget.id, today);
  const windows: BudgetWindow[] = [];
  let after: BudgetWindow | null = null;
  if (latest) {
    after = { start: latest.period_start, end: latest.period_end };
    // closed before it ended (close-period mid-window): close it again with its final numbers
    const closedEarly = latest.closed_at !== null && dayIn(latest.closed_at, zone) <= latest.period_end;
    if (closedEarly) windows.push(after);
  }
  windows.push(...endedWindows(budget, today, after, CATCH_UP_LIMIT));
  for (const window of windows) await closeWindow(trx, services, budget, window, today, now, zone);
  return windows.length;
}
