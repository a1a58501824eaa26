// Budgets: spending limits per window over some categories, groups and wallets. The flow is the
// shared synced-resource one (handlers/shared/crud.ts); a budget adds its targets (replaced as
// a set) and its progress, computed for every response by db/budget-spending.ts. Closing
// windows and the period-state feed are in budget-periods.ts.
import type { Kysely } from 'kysely';
import { budgetSettings, countedTransactionsQuery, progressOfBudget, progressOfBudgets, ratesInto, userTimeZoneOrUtc } from '../db/budget-spending.js';
import { invalidTargets, replaceTargets, selectBudgets, targetIdsOf, targetsOf, uniqueTargets, type BudgetRow, type TargetInput } from '../db/budgets.js';
import { pageMeta, pageOffset } from '../db/feed.js';
import type { BudgetPeriodType, Database } from '../db/schema.js';
import { uniqueSlug } from '../db/slugs.js';
import { selectTransactions } from '../db/transactions.js';
import { currentWindow } from '../domain/budget-periods.js';
import { amountInBudgetCurrency } from '../domain/budget-progress.js';
import { Decimal, exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../domain/money.js';
import { dayIn } from '../domain/stats-periods.js';
import type { components } from '../generated/api.js';
import { ok, type Result } from '../server/envelope.js';
import { validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { budgetPeriodHandlers } from './budget-periods.js';
import { syncedResource } from './shared/crud.js';
import { pageRequest } from './shared/records.js';
import { present as presentTransactions } from './transactions.js';
import { toBudget, type BudgetView } from './views/budget.js';

type BudgetInput = components['schemas']['BudgetInput'];

// The crud flow works on rows; `present` adds targets and progress to a whole page at once.
export const budgets = syncedResource<BudgetRow, BudgetRow>({
  table: 'budgets',
  label: 'Budget',
  select: selectBudgets,
  view: (row) => row,
  order: [['budgets.id', 'asc']],
});

interface PresentCtx {
  db: Kysely<Database>;
  user: { id: number };
  services: AppServices;
}

/** Budgets as views: their live targets and their current progress, in a constant number of queries for the page. */
export async function present(ctx: PresentCtx, rows: BudgetRow[]): Promise<BudgetView[]> {
  const { db, services, user } = ctx;
  const now = services.now();
  const [targets, settings] = await Promise.all([targetsOf(db, user.id, rows.map((row) => row.id)), budgetSettings(db, user.id)]);
  // the targets just read are the live ones spending counts by, and the manual rates are read
  // with the time zone: neither is read a second time (the rates not once per currency pair)
  const progress = await progressOfBudgets(db, services, rows, now, settings.timeZone, { targets: targetIdsOf(targets), manual: settings });
  return rows.map((row, index) => toBudget(row, targets.get(row.id) ?? [], progress[index]));
}

/** The same result (status by status, as create answers 200 or 201) showing a budget. */
type ShowingBudget<R> = R extends Result<infer S, BudgetRow> ? Result<S, BudgetView> : never;

/** A result of the crud flow with the budget presented; status and message stay as chosen. */
async function presented<R extends Result<number, BudgetRow>>(ctx: PresentCtx, result: R): Promise<ShowingBudget<R>> {
  return { ...result, data: (await present(ctx, [result.data]))[0] } as unknown as ShowingBudget<R>;
}


/** Budget dates stay in years the window arithmetic (and every database) handles. */
const FIRST_DAY = '1900-01-01';
const LAST_DAY = '2999-12-31';

interface Terms {
  amount: string | number;
  period_type: BudgetPeriodType;
  start_date: string;
  end_date: string | null;
  /** The reference's `owner`: a budget belongs to the caller, so it may only name the caller. */
  owner?: { type: string; id: number };
}

/** DECISIONS.md: an alert threshold above 100 percent is capped at 100 rather than refused. */
const cappedThreshold = (percent: number | undefined) => (percent === undefined ? undefined : Math.min(percent, 100));

/** The rules on the budget as it would be after the write; 422 keyed by field. */
async function checkBudget(ctx: PresentCtx, terms: Terms, targets: TargetInput[] | undefined): Promise<void> {
  const errors: FieldErrors = {};
  const amount = new Decimal(String(terms.amount));
  if (hasTooManyDecimals(terms.amount)) errors.amount = ['The amount may have at most 4 decimal places.'];
  else if (amount.isNegative()) errors.amount = ['The amount must be at least 0.'];
  else if (exceedsMoneyLimit(amount)) errors.amount = ['The amount must be less than 1000000000000000.'];
  for (const field of ['start_date', 'end_date'] as const) {
    const day = terms[field];
    if (day && (day < FIRST_DAY || day > LAST_DAY)) errors[field] = [`The ${field.replace('_', ' ')} must be between ${FIRST_DAY} and ${LAST_DAY}.`];
  }
  if (errors.end_date) {
    // out of range: nothing more to say about it
  } else if (terms.period_type === 'custom' && !terms.end_date) {
    errors.end_date = ['The end date is required for custom period budgets.'];
  } else if (terms.end_date && terms.end_date < terms.start_date) {
    errors.end_date = ['The end date must be a date after or equal to the start date.'];
  }
  if (terms.owner && terms.owner.id !== ctx.user.id) errors['owner.id'] = ['A budget can only belong to you.'];
  if (targets) Object.assign(errors, await invalidTargets(ctx.db, ctx.user.id, targets));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

export const budgetHandlers = {
  listBudgets: async (ctx: HandlerContext<'listBudgets'>) => {
    const { active } = ctx.query;
    const page = (await budgets.list(ctx, (q) => (active === undefined ? q : q.where('budgets.is_active', '=', active)))).data;
    return ok({ ...page, data: await present(ctx, page.data) });
  },

  getBudget: async (ctx: HandlerContext<'getBudget'>) => presented(ctx, await budgets.show(ctx)),

  createBudget: async (ctx: HandlerContext<'createBudget'>) => {
    const { user } = ctx;
    // the spec marks these required, so the validator has already refused a body without them
    const body = ctx.body as BudgetInput & Required<Pick<BudgetInput, 'name' | 'amount' | 'currency' | 'period_type' | 'start_date'>>;
    const targets = body.targets ? uniqueTargets(body.targets) : undefined;
    await checkBudget(ctx, { ...body, end_date: body.end_date ?? null }, body.targets);
    const result = await budgets.create(ctx, async (trx, columns) => {
      const row = await trx
        .insertInto('budgets')
        .values({
          ...columns,
          name: body.name,
          slug: await uniqueSlug(trx, 'budgets', user.id, body.name),
          description: body.description ?? null,
          amount: moneyFromInput(body.amount),
          currency: body.currency,
          period_type: body.period_type,
          start_date: body.start_date,
          end_date: body.end_date ?? null,
          rollover_enabled: body.rollover_enabled ?? false,
          threshold_percent: cappedThreshold(body.threshold_percent) ?? 80,
          forecast_alerts_enabled: body.forecast_alerts_enabled ?? true,
          is_active: body.is_active ?? true,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (targets) await replaceTargets(trx, user.id, row.id, targets);
      return row.id;
    });
    return presented(ctx, result);
  },

  updateBudget: async (ctx: HandlerContext<'updateBudget'>) => {
    const { body, user } = ctx;
    const current = await budgets.liveOr404(ctx.db, user.id, ctx.params.id);
    await checkBudget(
      ctx,
      {
        amount: body.amount ?? current.amount,
        period_type: body.period_type ?? current.period_type,
        start_date: body.start_date ?? current.start_date,
        end_date: body.end_date !== undefined ? body.end_date : current.end_date,
        owner: body.owner,
      },
      body.targets,
    );
    const result = await budgets.update(ctx, async (trx, budget, columns) => {
      await trx
        .updateTable('budgets')
        .set({
          // Kysely leaves out undefined values: a field the body omits keeps its value.
          ...columns,
          name: body.name,
          description: body.description,
          amount: body.amount === undefined ? undefined : moneyFromInput(body.amount),
          currency: body.currency,
          period_type: body.period_type,
          start_date: body.start_date,
          end_date: body.end_date,
          rollover_enabled: body.rollover_enabled,
          threshold_percent: cappedThreshold(body.threshold_percent),
          forecast_alerts_enabled: body.forecast_alerts_enabled,
          is_active: body.is_active,
        })
        .where('id', '=', budget.id)
        .execute();
      if (body.targets !== undefined) await replaceTargets(trx, user.id, budget.id, body.targets);
    });
    return presented(ctx, result);
  },

  // Soft delete: targets and period states stay with the tombstone; the slug is free again.
  deleteBudget: (ctx: HandlerContext<'deleteBudget'>) => budgets.remove(ctx),

  getBudgetProgress: async (ctx: HandlerContext<'getBudgetProgress'>) => {
    const budget = await budgets.liveOr404(ctx.db, ctx.user.id, ctx.params.id);
    return ok(await progressOfBudget(ctx.db, ctx.services, budget, ctx.services.now()));
  },

  listBudgetTransactions: async (ctx: HandlerContext<'listBudgetTransactions'>) => {
    const { db, user, services, query } = ctx;
    const budget = await budgets.liveOr404(db, user.id, ctx.params.id);
    const zone = await userTimeZoneOrUtc(db, user.id);
    const now = services.now();
    const window = currentWindow(budget, dayIn(now, zone));
    const counted = await countedTransactionsQuery(db, budget, window, zone);
    const { page, limit } = pageRequest(query);
    const [rows, total] = await Promise.all([
      counted.limit(limit).offset(pageOffset({ page, limit })).execute(),
      counted
        .clearSelect()
        .clearOrderBy()
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow()
        .then((row) => Number((row as { total: number }).total)),
    ]);
    const [full, rates] = await Promise.all([
      rows.length ? selectTransactions(db, user.id).where('transactions.id', 'in', rows.map((row) => row.id)).execute() : [],
      ratesInto(db, services, user.id, budget.currency, rows.map((row) => row.currency)),
    ]);
    const byId = new Map(full.map((row) => [row.id, row]));
    const ordered = rows.map((row) => byId.get(row.id)!);
    const views = await presentTransactions(ctx, ordered);
    const data = views.map((view, index) => ({
      ...view,
      amount_in_budget_currency: amountInBudgetCurrency(rows[index].amount, rows[index].currency, budget.currency, rates),
    }));
    const meta = pageMeta(ordered, total, { page, limit, now });
    return ok({ ...meta, period_start: window.start, period_end: window.end, data });
  },

  ...budgetPeriodHandlers,
} satisfies Partial<Handlers>;
