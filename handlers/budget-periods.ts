// Closed budget windows: close-period (a rollover budget's current window, as of now) and the
// read-only feed of period states. The scheduled closing of ended windows is
// jobs/close-budget-periods.ts; both write through db/budget-period-states.ts.
import { closeWindow, selectPeriodStates } from '../db/budget-period-states.js';
import { userToday, warmBudgetRates, withoutProvider } from '../db/budget-spending.js';
import { lockLiveBudget } from '../db/budgets.js';
import { feedPage, type ListOrder } from '../db/feed.js';
import { currentWindow } from '../domain/budget-periods.js';
import { closeEndedWindowsOf } from '../db/budget-period-states.js';
import { ok } from '../server/envelope.js';
import { invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { feedOptions, ownedOr404 } from './shared/records.js';
import { toBudgetPeriodState } from './views/budget.js';

const rolloverDisabled = () => invalidField('rollover_enabled', 'Rollover is not enabled for this budget.');

export const budgetPeriodHandlers = {
  closeBudgetPeriod: async (ctx: HandlerContext<'closeBudgetPeriod'>) => {
    const { db, user, services } = ctx;
    const found = await ownedOr404(db, 'budgets', user.id, ctx.params.id, 'Budget');
    if (!found.rollover_enabled) throw rolloverDisabled();
    const now = services.now();
    await warmBudgetRates(db, services, user.id);
    const offline = withoutProvider(services); // no rate is fetched once the transaction is open
    const stateId = await db.transaction().execute(async (trx) => {
      // the close job takes the same lock, so a window is never closed twice at once
      const budget = await lockLiveBudget(trx, user.id, found.id);
      if (!budget) throw notFound('Budget');
      if (!budget.rollover_enabled) throw rolloverDisabled();
      // windows that ended unclosed first, so this one receives their rollover
      await closeEndedWindowsOf(trx, offline, budget, now);
      const today = await userToday(trx, user.id, now);
      return closeWindow(trx, offline, budget, currentWindow(budget, today), today, now);
    });
    const state = await selectPeriodStates(db, user.id).where('budget_period_states.id', '=', stateId).executeTakeFirstOrThrow();
    return ok(toBudgetPeriodState(state), 'Budget period closed');
  },

  // Ordered by (updated_at, id) without synced_since; a sync feed like every other with it.
  listBudgetPeriodStates: async (ctx: HandlerContext<'listBudgetPeriodStates'>) => {
    const { db, user, query, services, request } = ctx;
    const budgetId = query.budget_id;
    const states = selectPeriodStates(db, user.id).$if(budgetId !== undefined, (q) => q.where('budget_period_states.budget_id', '=', budgetId!));
    const order: ListOrder = [
      ['budget_period_states.updated_at', 'asc'],
      ['budget_period_states.id', 'asc'],
    ];
    const page = await feedPage(db, states, 'budget_period_states', feedOptions(query, services.now(), order, { user, request }));
    return ok({ ...page.meta, data: page.rows.map(toBudgetPeriodState) });
  },
} satisfies Partial<Handlers>;
