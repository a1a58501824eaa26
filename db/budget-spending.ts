// Which transactions a budget counts, summed in SQL. The only place that knows the rule:
// - counted expenses: the user's live expenses (not transfer legs) dated in the window (local
//   days of the user's time zone, both ends inclusive), matching any live target (wallet,
//   group, or one of the transaction's categories; each transaction once however many match),
//   or all of them when the budget has no live target;
// - counted refunds: the user's live incomes marked as refunds, dated in the window, whose
//   original expense is a counted expense of the same window.
// - a split expense (046) counted only through its categories counts its lines in the targeted
//   categories, and a refund of it the lines' proportional shares (budget-window-sql.ts).
// Sums are per wallet currency; conversion and the progress numbers are domain/budget-progress.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { currentWindow, type BudgetWindow } from '../domain/budget-periods.js';
import { isTimeZone } from '../domain/configuration-keys.js';
import { budgetNumbers, progressJson, type BudgetNumbers, type BudgetProgress, type CurrencySpending } from '../domain/budget-progress.js';
import { dayIn } from '../domain/stats-periods.js';
import { startOfDay, startOfNextDay } from '../domain/time-zone.js';
import type { DatabaseServices, ReadManualRates } from './services.js';
import type { Budget, Database, JsonValue } from './schema.js';
import { settingsOf } from './settings.js';
import { userTimeZone } from './transactions.js';
import { boundScope, countedAmount, countedExpense, countedRefund, refundInWindow, type Scope } from './budget-window-sql.js';
import { readRollovers, rollingOf, summedFromRows, summedFromSummary, type WindowRow } from './budget-window-sums.js';

/** The columns of a budgets row this module reads. */
export type BudgetRef = Pick<
  Budget,
  'id' | 'user_id' | 'amount' | 'currency' | 'period_type' | 'start_date' | 'end_date' | 'rollover_enabled' | 'threshold_percent' | 'forecast_alerts_enabled'
>;

/** The budget's live targets by kind (deleted categories, groups and wallets are left out). */
export interface LiveTargets {
  categoryIds: number[];
  groupIds: number[];
  walletIds: number[];
}

/** The user's time zone (configuration `timezone`), UTC when unset or not one the runtime knows. */
export async function userTimeZoneOrUtc(db: Kysely<Database>, userId: number): Promise<string> {
  return zoneOrUtc(await userTimeZone(db, userId));
}

/** The time zone a configuration value names, UTC when it is none the runtime knows (userTimeZoneOrUtc's rule). */
function zoneOrUtc(value: JsonValue | undefined): string {
  return typeof value === 'string' && value !== '' && isTimeZone(value) ? value : 'UTC';
}

/** What budget progress reads from the user's configuration: their time zone and manual exchange rates. */
export interface BudgetSettings extends ReadManualRates {
  timeZone: string;
}

/** The user's time zone (as userTimeZoneOrUtc) and manual exchange rates, in one statement. */
export async function budgetSettings(db: Kysely<Database>, userId: number): Promise<BudgetSettings> {
  const settings = await settingsOf(db, userId, ['timezone', 'manual-exchange-rates']);
  return { timeZone: zoneOrUtc(settings.get('timezone')), manualRates: settings.get('manual-exchange-rates') };
}

/** Local "today" of the user (time zone from their settings, UTC if unset) for `now`. */
export async function userToday(db: Kysely<Database>, userId: number, now: Date, timeZone?: string): Promise<string> {
  return dayIn(now, timeZone ?? (await userTimeZoneOrUtc(db, userId)));
}

/** The live targets of each of the user's budgets, in one query. */
export async function liveTargetsOf(db: Kysely<Database>, userId: number, budgetIds: number[]): Promise<Map<number, LiveTargets>> {
  const targets = new Map<number, LiveTargets>(budgetIds.map((id) => [id, { categoryIds: [], groupIds: [], walletIds: [] }]));
  if (budgetIds.length === 0) return targets;
  const rows = await db
    .selectFrom('budget_targets as bt')
    .leftJoin('categories as c', (join) => join.onRef('c.id', '=', 'bt.category_id').on('c.deleted_at', 'is', null))
    .leftJoin('groups as g', (join) => join.onRef('g.id', '=', 'bt.group_id').on('g.deleted_at', 'is', null))
    .leftJoin('wallets as w', (join) => join.onRef('w.id', '=', 'bt.wallet_id').on('w.deleted_at', 'is', null))
    .select(['bt.budget_id', 'c.id as category_id', 'g.id as group_id', 'w.id as wallet_id'])
    .where('bt.budget_id', 'in', budgetIds)
    .where('bt.user_id', '=', userId)
    .execute();
  for (const row of rows) {
    const of = targets.get(Number(row.budget_id))!;
    if (row.category_id !== null) of.categoryIds.push(Number(row.category_id));
    if (row.group_id !== null) of.groupIds.push(Number(row.group_id));
    if (row.wallet_id !== null) of.walletIds.push(Number(row.wallet_id));
  }
  return targets;
}

export async function liveTargets(db: Kysely<Database>, budget: Pick<BudgetRef, 'id' | 'user_id'>): Promise<LiveTargets> {
  return (await liveTargetsOf(db, budget.user_id, [budget.id])).get(budget.id)!;
}

async function scopeOf(db: Kysely<Database>, budget: BudgetRef, window: BudgetWindow, timeZone?: string): Promise<Scope> {
  const zone = timeZone ?? (await userTimeZoneOrUtc(db, budget.user_id));
  return boundScope(budget.user_id, startOfDay(window.start, zone), startOfNextDay(window.end, zone), await liveTargets(db, budget));
}

/** A budget and one of its windows, as the many-budget functions take them. */
export interface BudgetInWindow {
  budget: BudgetRef;
  window: BudgetWindow;
}

/** Where spending is summed: migration 023's summary when it is kept in the zone asked for (auto), else the raw rows. */
export type SpendingSource = 'auto' | 'raw';

/**
 * Each item's counted expenses and refunds of counted expenses dated in its window, summed
 * per wallet currency: one SQL aggregation for all of them (a row per item). Whole local days
 * come from the per-day summary (migration 023) when it is kept in `timeZone`, else (or with
 * source 'raw', the reference) each window is scanned over the (user_id, type, datetime)
 * index. The items are one user's; `targets` are their live targets when the caller has them.
 */
export async function spendingOfWindows(
  db: Kysely<Database>,
  items: BudgetInWindow[],
  timeZone: string,
  source: SpendingSource = 'auto',
  targets?: Map<number, LiveTargets>,
): Promise<CurrencySpending[][]> {
  return (await sumsOfWindows(db, items, timeZone, source, targets, false)).spending;
}

/** Each item's spending (as spendingOfWindows) and, asked for, its rollover_in (as rolloversIn). */
interface WindowSums {
  spending: CurrencySpending[][];
  rollovers: string[];
}

/**
 * spendingOfWindows, with the rollovers read by the same statement when `withRollovers` (one
 * statement fewer for GET /budgets and a budget's progress).
 */
async function sumsOfWindows(
  db: Kysely<Database>,
  items: BudgetInWindow[],
  timeZone: string,
  source: SpendingSource,
  targets: Map<number, LiveTargets> | undefined,
  withRollovers: boolean,
): Promise<WindowSums> {
  if (items.length === 0) return { spending: [], rollovers: [] };
  const userId = oneOwner(items);
  const live = targets ?? (await liveTargetsOf(db, userId, items.map((item) => item.budget.id)));
  const rows: WindowRow[] = items.map(({ budget, window }, index) => {
    const of = live.get(budget.id)!;
    return {
      item: index,
      first_day: window.start,
      last_day: window.end,
      from_at: startOfDay(window.start, timeZone).toISOString(),
      before_at: startOfNextDay(window.end, timeZone).toISOString(),
      wallet_ids: of.walletIds,
      group_ids: of.groupIds,
      category_ids: of.categoryIds,
    };
  });
  const rolling = withRollovers ? rollingOf(items) : [];
  const sums =
    (source === 'raw' ? undefined : await summedFromSummary(db, userId, rows, timeZone, rolling)) ?? (await summedFromRows(db, userId, rows, rolling));
  const spending: CurrencySpending[][] = items.map(() => []);
  const rollovers = items.map(() => '0');
  for (const row of sums) {
    if (row.currency === null) rollovers[row.item] = String(row.rollover);
    else spending[row.item].push({ currency: row.currency, gross: String(row.gross), refunds: String(row.refunds) });
  }
  return { spending, rollovers };
}

function oneOwner(items: BudgetInWindow[]): number {
  const userId = items[0].budget.user_id;
  if (items.some((item) => item.budget.user_id !== userId)) throw new Error('budgets of one user only');
  return userId;
}

/** One budget's spending in one window (see spendingOfWindows). */
export async function budgetSpending(db: Kysely<Database>, budget: BudgetRef, window: BudgetWindow, timeZone?: string, source?: SpendingSource): Promise<CurrencySpending[]> {
  const zone = timeZone ?? (await userTimeZoneOrUtc(db, budget.user_id));
  return (await spendingOfWindows(db, [{ budget, window }], zone, source))[0];
}

/**
 * Rates into `currency` for these currencies: the user's manual rate first, then the stored
 * rate (services.rates, the one rate lookup of the app). null where no rate is known.
 */
export async function ratesInto(
  db: Kysely<Database>,
  services: DatabaseServices,
  userId: number,
  currency: string,
  from: string[],
  read?: ReadManualRates,
): Promise<Map<string, string | null>> {
  const rates = new Map<string, string | null>();
  for (const code of new Set(from)) {
    if (code === currency) rates.set(code, '1');
    else rates.set(code, (await services.rates.rate(db, userId, code, currency, services.now(), read))?.toFixed() ?? null);
  }
  return rates;
}

/**
 * Resolves, provider allowed, every rate the user's active budgets may convert with (each
 * budget currency from each live wallet currency). Write paths run it before their database
 * transaction opens; inside it, budget code converts with withoutProvider(services), which
 * finds these rates remembered or stored and never makes a network call.
 */
export async function warmBudgetRates(db: Kysely<Database>, services: DatabaseServices, userId: number): Promise<void> {
  const [budgets, wallets] = await Promise.all([
    db.selectFrom('budgets').select('currency').distinct().where('user_id', '=', userId).where('deleted_at', 'is', null).where('is_active', '=', true).execute(),
    db.selectFrom('wallets').select('currency').distinct().where('user_id', '=', userId).where('deleted_at', 'is', null).execute(),
  ]);
  if (budgets.length === 0) return;
  const targets = budgets.map((row) => row.currency);
  for (const { currency } of wallets) await services.rates.rates(db, userId, currency, targets, services.now());
}

/** The services with a rate lookup that never calls the provider: for code inside a database transaction. */
export function withoutProvider<Services extends DatabaseServices>(services: Services): Services {
  return { ...services, rates: services.rates.withoutProvider() };
}

/**
 * rollover_in of each item's window: with rollover enabled, the rollover_out of the latest
 * closed window that ended before this one starts (the previous window, once the close job
 * has run); else "0". One query for all of them.
 */
export async function rolloversIn(db: Kysely<Database>, items: BudgetInWindow[]): Promise<string[]> {
  const rolling = rollingOf(items);
  const rollovers = items.map(() => '0');
  if (rolling.length === 0) return rollovers;
  for (const row of await readRollovers(db, oneOwner(items), rolling)) rollovers[row.item] = String(row.rollover);
  return rollovers;
}

export async function rolloverInFor(db: Kysely<Database>, budget: BudgetRef, window: BudgetWindow): Promise<string> {
  return (await rolloversIn(db, [{ budget, window }]))[0];
}

/** What a caller of the many-budget functions may already have read, so it is not read again. */
export interface ReadInputs {
  /** The budgets' live targets. */
  targets?: Map<number, LiveTargets>;
  /** The user's manual exchange rates. */
  manual?: ReadManualRates;
}

/**
 * The exact numbers of each item's window; `today` decides the projection. A constant number
 * of queries however many items: targets (unless read), spending with rollovers, and a rate
 * lookup per budget currency (none for pairs the manual rates cover, once they are read).
 */
export async function numbersOfWindows(
  db: Kysely<Database>,
  services: DatabaseServices,
  items: BudgetInWindow[],
  today: string,
  timeZone: string,
  read: ReadInputs = {},
): Promise<BudgetNumbers[]> {
  if (items.length === 0) return [];
  const { spending, rollovers } = await sumsOfWindows(db, items, timeZone, 'auto', read.targets, true);
  const userId = oneOwner(items);
  const ratesByCurrency = new Map<string, Map<string, string | null>>();
  for (const currency of new Set(items.map((item) => item.budget.currency))) {
    const from = items.flatMap((item, index) => (item.budget.currency === currency ? spending[index].map((row) => row.currency) : []));
    ratesByCurrency.set(currency, await ratesInto(db, services, userId, currency, from, read.manual));
  }
  return items.map(({ budget, window }, index) =>
    budgetNumbers({
      budget: {
        amount: String(budget.amount),
        currency: budget.currency,
        threshold_percent: budget.threshold_percent,
        forecast_alerts_enabled: budget.forecast_alerts_enabled,
      },
      window,
      today,
      rolloverIn: rollovers[index],
      spending: spending[index],
      rates: ratesByCurrency.get(budget.currency)!,
    }),
  );
}

/** The exact numbers of an explicit window (close-period and the close job). */
export async function numbersInWindow(
  db: Kysely<Database>,
  services: DatabaseServices,
  budget: BudgetRef,
  window: BudgetWindow,
  today: string,
  timeZone?: string,
): Promise<BudgetNumbers> {
  const zone = timeZone ?? (await userTimeZoneOrUtc(db, budget.user_id));
  return (await numbersOfWindows(db, services, [{ budget, window }], today, zone))[0];
}

/** The progress of an explicit window, as the API shows it. */
export async function progressInWindow(
  db: Kysely<Database>,
  services: DatabaseServices,
  budget: BudgetRef,
  window: BudgetWindow,
  today: string,
  timeZone?: string,
): Promise<BudgetProgress> {
  return progressJson(await numbersInWindow(db, services, budget, window, today, timeZone));
}

/**
 * The progress of each budget's window containing the user's local today at `now` (for
 * responses); budgets of one user. `read`: what the caller has already read of them.
 */
export async function progressOfBudgets(
  db: Kysely<Database>,
  services: DatabaseServices,
  budgets: BudgetRef[],
  now: Date,
  timeZone?: string,
  read?: ReadInputs,
): Promise<BudgetProgress[]> {
  if (budgets.length === 0) return [];
  const zone = timeZone ?? (await userTimeZoneOrUtc(db, budgets[0].user_id));
  const today = dayIn(now, zone);
  const items = budgets.map((budget) => ({ budget, window: currentWindow(budget, today) }));
  return (await numbersOfWindows(db, services, items, today, zone, read)).map(progressJson);
}

export async function progressOfBudget(db: Kysely<Database>, services: DatabaseServices, budget: BudgetRef, now: Date, timeZone?: string): Promise<BudgetProgress> {
  return (await progressOfBudgets(db, services, [budget], now, timeZone))[0];
}

/** A row of countedTransactionsQuery. */
export interface CountedTransaction {
  id: number;
  type: 'income' | 'expense';
  /** What the budget counts: the amount, or a split expense's (or its refund's) share in the targeted categories. */
  amount: string;
  currency: string;
  datetime: Date;
  wallet_id: number;
}

/**
 * The counted expenses and counted refunds of a window, newest first by (datetime, id), as a
 * Kysely query (not executed) to page and render. Columns: id, type, amount, currency (the
 * wallet's), datetime, wallet_id; the query's tables are `transactions as t`, `wallets as w`.
 */
export async function countedTransactionsQuery(
  db: Kysely<Database>,
  budget: BudgetRef,
  window: BudgetWindow,
  timeZone?: string,
): Promise<SelectQueryBuilder<any, any, CountedTransaction>> {
  const scope = await scopeOf(db, budget, window, timeZone);
  return db
    .selectFrom('transactions as t')
    .innerJoin('wallets as w', 'w.id', 't.wallet_id')
    .select(['t.id', 't.type', 'w.currency', 't.datetime', 't.wallet_id'])
    // what the budget counts of it: all, or a split expense's lines in the targeted categories (046)
    .select(
      sql<string>`case when t.type = 'expense' then ${countedAmount('t', scope)}
        else (select ${countedRefund('t', 'o', scope)} from transactions o where o.id = t.refund_of_transaction_id) end`.as('amount'),
    )
    // the bounds both kinds share, so the planner scans one index range
    .where('t.user_id', '=', scope.userId)
    .where('t.datetime', '>=', scope.from)
    .where('t.datetime', '<', scope.before)
    .where(({ or }) =>
      or([
        countedExpense('t', scope),
        sql<boolean>`(${refundInWindow('t', scope)} and exists (
          select 1 from transactions o where o.id = t.refund_of_transaction_id and ${countedExpense('o', scope)}))`,
      ]),
    )
    .orderBy('t.datetime', 'desc')
    .orderBy('t.id', 'desc');
}
