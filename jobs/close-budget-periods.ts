// Closes every ended window of live, active rollover budgets, oldest first, so each window's
// rollover_in is the rollover_out of the one before it, and rollover works without any client
// call. "Ended" is judged in the user's time zone. A window closed early (close-period before
// its end) is closed again once it has ended, with its final numbers.
//
// Each budget is handled in its own database transaction with its row locked (SKIP LOCKED, so
// two workers share the work, and close-period waits for it); the unique (budget_id,
// period_start) key makes a second close of one window an update of the same row. Running the
// job twice changes nothing.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { closeEndedWindowsOf } from '../db/budget-period-states.js';
import { warmBudgetRates, withoutProvider } from '../db/budget-spending.js';
import { lockLiveBudget } from '../db/budgets.js';
import type { Database } from '../db/schema.js';
import type { JobDefinition } from '../server/jobs.js';
import type { AppServices } from '../server/services.js';

const BATCH = 100;

export const closeBudgetPeriodsJob: JobDefinition = {
  name: 'close-budget-periods',
  // hourly: a window ends at local midnight, which is some hour of UTC
  cron: '5 * * * *',
  async run({ db, services, log }) {
    const closed = await closeEndedWindows(db, services, log);
    if (closed > 0) log.info({ closed }, 'budget windows closed');
  },
};

/** Closes every ended, not finally closed window at services.now(); returns how many were written. */
export async function closeEndedWindows(db: Kysely<Database>, services: AppServices, log?: FastifyBaseLogger): Promise<number> {
  let closed = 0;
  let afterId = 0;
  for (;;) {
    const due = await db
      .selectFrom('budgets')
      .select(['id', 'user_id'])
      .where('deleted_at', 'is', null)
      .where('is_active', '=', true)
      .where('rollover_enabled', '=', true)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const budget of due) {
      try {
        closed += await closeBudget(db, services, budget.user_id, budget.id);
      } catch (error) {
        // One broken budget must not stop the others; it is retried on the next run.
        log?.error({ err: error, budgetId: budget.id }, 'closing budget windows failed');
      }
    }
    if (due.length < BATCH) return closed;
    afterId = due[due.length - 1].id;
  }
}

async function closeBudget(db: Kysely<Database>, services: AppServices, userId: number, budgetId: number): Promise<number> {
  await warmBudgetRates(db, services, userId); // no rate is fetched once the transaction is open
  return db.transaction().execute(async (trx) => {
    const budget = await lockLiveBudget(trx, userId, budgetId, true);
    if (!budget || !budget.is_active || !budget.rollover_enabled) return 0; // another worker holds it, or it changed
    return closeEndedWindowsOf(trx, withoutProvider(services), budget, services.now());
  });
}
