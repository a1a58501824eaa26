// Turns the per-currency sums of db/statistics.ts into the spec's Statistics sections. Every
// amount is converted with decimal.js (a currency without a rate counts as 0 and is reported);
// a JS number appears only in the returned JSON.
import type { components } from '../../generated/api.js';
import type { DailyDigest, WindowSum } from '../../db/statistics-daily.js';
import type { CurrencySum, IntentSum, LargestRow, NamedSum } from '../../db/statistics.js';
import { Decimal, moneyToJson } from '../../domain/money.js';
import { dayIn, type StatsRange } from '../../domain/stats-periods.js';

type Schemas = components['schemas'];
const DAY_MS = 86_400_000;
const ZERO = new Decimal(0);

/** Converts amounts of wallet currencies into the target; remembers currencies it could not. */
export class Converter {
  readonly unconverted = new Set<string>();
  constructor(private readonly rates: Map<string, Decimal | undefined>) {}

  convert(amount: string | Decimal, currency: string): Decimal {
    const rate = this.rates.get(currency);
    if (rate === undefined) {
      this.unconverted.add(currency);
      return ZERO;
    }
    return new Decimal(amount).times(rate);
  }

  /** The converted total of the sums of one type. */
  total(sums: CurrencySum[], type: 'income' | 'expense'): Decimal {
    return sums.filter((s) => s.type === type).reduce((acc, s) => acc.plus(this.convert(s.total, s.currency)), ZERO);
  }
}

const count = (sums: CurrencySum[], type?: string) => sums.filter((s) => !type || s.type === type).reduce((n, s) => n + s.count, 0);
const round2 = (value: Decimal) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toNumber();
const percentOf = (part: Decimal, whole: Decimal) => (whole.isZero() ? 0 : round2(part.times(100).dividedBy(whole)));

/** (current − previous) / |previous| × 100; 100 when previous is 0 and current is not. */
export function changePercent(current: Decimal, previous: Decimal): number {
  if (previous.isZero()) return current.isZero() ? 0 : 100;
  return round2(current.minus(previous).times(100).dividedBy(previous.abs()));
}

const savingsRate = (income: Decimal, expenses: Decimal) => (income.gt(0) ? income.minus(expenses).times(100).dividedBy(income) : ZERO);

/** The digest's sums of the current window (`true`) or of the one before it. */
const windowOf = <T extends WindowSum>(sums: T[], current: boolean) => sums.filter((s) => s.current === current);

/** The converted total of a type over the window's months that have any of it. */
function monthlyAverage(digest: DailyDigest, type: 'income' | 'expense', conv: Converter): Decimal {
  const months = new Set(windowOf(digest.months, true).filter((m) => m.type === type).map((m) => m.month));
  return months.size === 0 ? ZERO : conv.total(windowOf(digest.totals, true), type).dividedBy(months.size);
}

export function overview(digest: DailyDigest, balance: Decimal, conv: Converter): Schemas['StatsOverview'] {
  const current = windowOf(digest.totals, true);
  const income = conv.total(current, 'income');
  const expenses = conv.total(current, 'expense');
  return {
    total_balance: moneyToJson(balance),
    net_worth: moneyToJson(balance),
    total_income: moneyToJson(income),
    total_expenses: moneyToJson(expenses),
    net_cash_flow: moneyToJson(income.minus(expenses)),
    avg_monthly_income: moneyToJson(monthlyAverage(digest, 'income', conv)),
    avg_monthly_expenses: moneyToJson(monthlyAverage(digest, 'expense', conv)),
    savings_rate: round2(savingsRate(income, expenses)),
  };
}

export function periodSummary(digest: DailyDigest, range: StatsRange, now: Date, conv: Converter): Schemas['StatsPeriodSummary'] {
  const totalDays = (range.before.getTime() - range.from.getTime()) / DAY_MS;
  const elapsedDays = Math.min(totalDays, (now.getTime() - range.from.getTime()) / DAY_MS);
  const soFar = windowOf(digest.totals, true).filter((d) => d.past);
  const project = (type: 'income' | 'expense') =>
    elapsedDays <= 0 ? 0 : round2(conv.total(soFar, type).dividedBy(elapsedDays).times(totalDays));
  return {
    start_date: range.startDay,
    end_date: range.endDay,
    days_remaining: Math.max(0, Number(((range.before.getTime() - now.getTime()) / DAY_MS).toFixed(4))),
    projected_income: project('income'),
    projected_expenses: project('expense'),
  };
}

/** The id with the most transactions (lowest id on a tie), summed over types and currencies. */
function mostFrequent(sums: NamedSum[]): Schemas['StatsNamedCount'] | null {
  const byId = new Map<number, { name: string; count: number }>();
  for (const sum of sums) {
    if (sum.id === null) continue;
    const entry = byId.get(sum.id) ?? { name: sum.name ?? '', count: 0 };
    entry.count += sum.count;
    byId.set(sum.id, entry);
  }
  let best: Schemas['StatsNamedCount'] | null = null;
  for (const [id, { name, count }] of [...byId].sort((a, b) => a[0] - b[0])) {
    if (!best || count > best.transaction_count) best = { id, name, transaction_count: count };
  }
  return best;
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export function activity(digest: DailyDigest, parties: NamedSum[], categories: NamedSum[], range: StatsRange, conv: Converter): Schemas['StatsActivity'] {
  const current = windowOf(digest.totals, true);
  const transactions = count(current);
  const average = (type: 'income' | 'expense') => {
    const n = count(current, type);
    return n === 0 ? 0 : round2(conv.total(current, type).dividedBy(n));
  };
  const days = Math.max(1, (range.before.getTime() - range.from.getTime()) / DAY_MS);
  const perWeekday = new Map(digest.weekdays.map((w) => [WEEKDAYS[w.weekday - 1], w.count]));
  const busiest = WEEKDAYS.reduce<string | null>(
    (best, day) => ((perWeekday.get(day) ?? 0) > (best ? perWeekday.get(best)! : 0) ? day : best),
    null,
  );
  const perDays = (span: number) => round2(new Decimal(transactions).dividedBy(Math.max(1, days / span)));
  return {
    transaction_count: transactions,
    unique_parties: new Set(parties.filter((p) => p.id !== null).map((p) => p.id)).size,
    average_income_transaction: average('income'),
    average_expense_transaction: average('expense'),
    frequency: { per_day: perDays(1), per_week: perDays(7), per_month: perDays(30) },
    busiest_day: busiest as Schemas['StatsActivity']['busiest_day'],
    most_frequent_party: mostFrequent(parties),
    most_used_category: mostFrequent(categories),
  };
}

export function comparisons(digest: DailyDigest, conv: Converter): Schemas['StatsComparisons'] {
  const [current, previous] = [windowOf(digest.totals, true), windowOf(digest.totals, false)];
  const [income, expenses] = [conv.total(current, 'income'), conv.total(current, 'expense')];
  const [previousIncome, previousExpenses] = [conv.total(previous, 'income'), conv.total(previous, 'expense')];
  return {
    previous_period: {
      income_change_percent: changePercent(income, previousIncome),
      expense_change_percent: changePercent(expenses, previousExpenses),
      savings_rate_change: changePercent(savingsRate(income, expenses), savingsRate(previousIncome, previousExpenses)),
    },
  };
}

type ShareItem = Schemas['StatsShareItem'] & { slug: string | null; exact: Decimal };

/**
 * Converted amounts per category or party of one type, by amount descending; `noneName` names
 * the bucket of transactions without one.
 */
export function shares(sums: NamedSum[], type: 'income' | 'expense', conv: Converter, noneName: string): ShareItem[] {
  const byId = new Map<number | null, ShareItem>();
  for (const sum of sums.filter((s) => s.type === type)) {
    const item = byId.get(sum.id) ?? { id: sum.id, name: sum.id === null ? noneName : (sum.name ?? noneName), slug: sum.slug, amount: 0, exact: ZERO, transaction_count: 0, percentage: 0 };
    item.exact = item.exact.plus(conv.convert(sum.total, sum.currency));
    item.transaction_count += sum.count;
    byId.set(sum.id, item);
  }
  const items = [...byId.values()];
  const total = items.reduce((acc, item) => acc.plus(item.exact), ZERO);
  for (const item of items) {
    item.amount = moneyToJson(item.exact);
    item.percentage = percentOf(item.exact, total);
  }
  return items.sort((a, b) => b.exact.comparedTo(a.exact) || (a.id ?? 0) - (b.id ?? 0));
}

export const shareView = ({ id, name, amount, transaction_count, percentage }: ShareItem): Schemas['StatsShareItem'] => ({ id, name, amount, transaction_count, percentage });

const KINDS = {
  essential: /\b(rent|mortgage|hous|utilit|electric|water|gas|grocer|food|meal|health|medic|pharma|doctor|hospital|insur|transport|fuel|petrol|diesel|commut|bus|train|taxi)\b/,
  savings: /\b(saving|emergency|reserve|rainy.?day)\b/,
  investments: /\b(invest|stock|bond|mutual|etf|crypto|retire|401k|ira|pension|dividend)\b/,
};

/** Expense percentages by kind of category, judged by whole words of its name and slug. */
export function categoryDistribution(expenses: ShareItem[]): Schemas['StatsCategoryDistribution'] {
  const totals = { essential: ZERO, non_essential: ZERO, savings: ZERO, investments: ZERO };
  for (const item of expenses) {
    const text = item.id === null ? '' : `${item.name} ${item.slug ?? ''}`.toLowerCase();
    const kind = (Object.keys(KINDS) as Array<keyof typeof KINDS>).find((k) => KINDS[k].test(text)) ?? 'non_essential';
    totals[kind] = totals[kind].plus(item.exact);
  }
  const all = Object.values(totals).reduce((a, b) => a.plus(b), ZERO);
  return {
    essential: percentOf(totals.essential, all),
    non_essential: percentOf(totals.non_essential, all),
    savings: percentOf(totals.savings, all),
    investments: percentOf(totals.investments, all),
  };
}

export function largest(rows: LargestRow[], type: 'income' | 'expense', timeZone: string, conv: Converter): Schemas['StatsLargestTransaction'] | null {
  let best: { row: LargestRow; amount: Decimal } | undefined;
  for (const row of rows.filter((r) => r.type === type)) {
    const amount = conv.convert(row.amount, row.currency);
    if (amount.gt(best?.amount ?? ZERO)) best = { row, amount };
  }
  if (!best) return null;
  const { row, amount } = best;
  return { id: row.id, amount: moneyToJson(amount), description: row.description, date: dayIn(new Date(row.datetime), timeZone), category: row.category };
}

/** Converted expenses of a window per bucket (`YYYY-MM-01` by month, else the day), ascending. */
export function trend(digest: DailyDigest, current: boolean, period: 'month' | 'day', conv: Converter): Schemas['StatsTrendPoint'][] {
  const buckets = new Map<string, Decimal>();
  const sums = period === 'month'
    ? windowOf(digest.months, current).filter((m) => m.type === 'expense').map((m) => ({ ...m, key: `${m.month}-01` }))
    : windowOf(digest.days, current).map((d) => ({ ...d, key: d.day }));
  for (const sum of sums) buckets.set(sum.key, (buckets.get(sum.key) ?? ZERO).plus(conv.convert(sum.total, sum.currency)));
  return [...buckets].sort(([a], [b]) => a.localeCompare(b)).map(([date, amount]) => ({ date, amount: moneyToJson(amount) }));
}

export function monthlyCashFlow(digest: DailyDigest, conv: Converter): Schemas['StatsCashFlowPoint'][] {
  const months = new Map<string, { income: Decimal; expense: Decimal }>();
  for (const m of windowOf(digest.months, true)) {
    const month = months.get(m.month) ?? { income: ZERO, expense: ZERO };
    month[m.type] = month[m.type].plus(conv.convert(m.total, m.currency));
    months.set(m.month, month);
  }
  return [...months]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([period, { income, expense }]) => ({ period, income: moneyToJson(income), expense: moneyToJson(expense), net: moneyToJson(income.minus(expense)) }));
}

/** The current window's expenses per wallet (one currency each), by amount descending, then id. */
export function expenseByWallet(digest: DailyDigest, conv: Converter): Schemas['StatsWalletShare'][] {
  const wallets = digest.wallets.map((w) => ({ ...w, amount: conv.convert(w.total, w.currency) }));
  const total = wallets.reduce((acc, w) => acc.plus(w.amount), ZERO);
  return wallets
    .sort((a, b) => b.amount.comparedTo(a.amount) || a.walletId - b.walletId)
    .map((w) => ({ wallet_id: w.walletId, wallet_name: w.walletName, amount: moneyToJson(w.amount), transaction_count: w.count, percentage: percentOf(w.amount, total) }));
}

export function position(sums: IntentSum[], cash: Decimal, holdings: Decimal, conv: Converter): Schemas['StatsPosition'] {
  const bucket = (match: (s: IntentSum) => boolean) => sums.filter(match).reduce((acc, s) => acc.plus(conv.convert(s.total, s.currency)), ZERO);
  const ordinary = (s: IntentSum) => s.intent === 'regular' || s.intent === 'fee';
  const earned = bucket((s) => ordinary(s) && s.type === 'income');
  const spent = bucket((s) => ordinary(s) && s.type === 'expense');
  const of = (intent: IntentSum['intent']) => bucket((s) => s.intent === intent);
  const [loanReceived, loanRepayment, debtOwed, debtSettled] = [of('loan_received'), of('loan_repayment'), of('debt_owed'), of('debt_settled')];
  const [returns, gifts] = [of('investment_return'), of('gift')];
  return {
    earned_income: moneyToJson(earned),
    cash_balance: moneyToJson(cash),
    holdings_value: moneyToJson(holdings),
    total_net_worth: moneyToJson(cash.plus(holdings)),
    discretionary_spend: moneyToJson(spent),
    loan_received: moneyToJson(loanReceived),
    loan_repayment: moneyToJson(loanRepayment),
    debt_owed: moneyToJson(debtOwed),
    debt_settled: moneyToJson(debtSettled),
    loans_debt_net: moneyToJson(loanReceived.plus(debtOwed).minus(loanRepayment.plus(debtSettled))),
    investment_principal: moneyToJson(of('investment_buy')),
    investment_returns: moneyToJson(returns),
    gifts_received: moneyToJson(gifts),
    net_worth_delta: moneyToJson(earned.minus(spent).plus(returns).plus(gifts)),
  };
}
