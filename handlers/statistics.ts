// Statistics: GET /stats. The range and filters are checked here, the sums come from SQL
// (db/statistics.ts), and views/statistics.ts converts them into the user's currency and
// shapes each section. Only the queries the requested section needs are run.
import { currencyOf } from '../db/settings.js';
import type { ReadManualRates } from '../db/services.js';
import * as sums from '../db/statistics.js';
import { dailyDigestRead, rawDailyDigestRead, type DailyDigest } from '../db/statistics-daily.js';
import { NO_CATEGORY, NO_PARTY } from '../domain/bucket-names.js';
import { seedLanguage } from '../domain/default-categories.js';
import { Decimal } from '../domain/money.js';
import { dayIn, statsRange } from '../domain/stats-periods.js';
import { invalidField } from '../server/errors.js';
import { ok } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import * as view from './views/statistics.js';

type Section = 'overview' | 'activity' | 'comparisons' | 'categories' | 'parties' | 'cashflow' | 'position';

/** Rates from each currency into `target`; undefined for those with no known rate. `read`: the manual rates statsSetup read. */
async function conversionRates(ctx: HandlerContext<'getStatistics'>, target: string, currencies: Set<string>, read: ReadManualRates) {
  const { db, user, services } = ctx;
  const rates = new Map<string, Decimal | undefined>();
  for (const currency of currencies) {
    if (currency === target) rates.set(currency, new Decimal(1));
    else rates.set(currency, await services.rates.rate(db, user.id, currency, target, services.now(), read));
  }
  return rates;
}

async function getStatistics(ctx: HandlerContext<'getStatistics'>) {
  const { db, user, query, services } = ctx;
  const now = services.now();
  const wants = (...sections: Section[]) => !query.section || sections.includes(query.section);
  const walletIds = query.wallet_ids?.length ? [...new Set(query.wallet_ids)] : undefined;
  // the settings, whether the summary pays, the wallet check and the balances in one statement
  const setup = await sums.statsSetup(db, user.id, { walletIds, balances: wants('overview', 'position') });
  const timeZone = typeof setup.timeZone === 'string' && setup.timeZone !== '' ? setup.timeZone : 'UTC'; // as userTimeZone
  const currency = currencyOf(setup.currency);
  const range = statsRange({ preset: query.preset, startDate: query.start_date, endDate: query.end_date }, now, timeZone);
  if (!range) throw invalidField('end_date', 'The end date must be a date after or equal to the start date.');
  if (setup.missingWallets > 0) throw invalidField('wallet_ids', 'One or more wallet IDs are invalid or do not belong to the user.');
  const window = { userId: user.id, from: range.from, before: range.before, walletIds };

  const noDimensions: sums.DimensionSums = { categories: [], parties: [], intents: [] };
  // the per-day summary answers for a dense ledger kept in this zone, the rows otherwise
  const summary = setup.summaryPays(timeZone);
  const dailyDays = { first: range.previousStartDay, last: range.endDay };
  const period = query.period ?? 'month';
  const digestOptions = { startDay: range.startDay, byDay: period === 'day' && wants('cashflow') };
  const noDaily: DailyDigest = { totals: [], months: [], days: [], weekdays: [], wallets: [] };
  const today = dayIn(now, timeZone);
  const dimensionDays = { first: range.startDay, last: range.endDay };
  /** A read the sections want, from the per-day summary or from the rows; else `none`, unread. */
  const readIf = <T>(wanted: boolean, none: T, fromSummary: () => sums.StatsRead<T>, fromRows: () => sums.StatsRead<T>) =>
    !wanted ? sums.nothingRead(none) : summary ? fromSummary() : fromRows();
  // the sections' reads in one statement (sums.readTogether)
  const [daily, { categories, parties, intents }, found] = await sums.readTogether(db, [
    readIf(
      wants('overview', 'activity', 'comparisons', 'cashflow'),
      noDaily,
      () => dailyDigestRead(window, dailyDays, timeZone, now, today, digestOptions),
      () => rawDailyDigestRead(window, dailyDays, timeZone, now, digestOptions),
    ),
    readIf(
      wants('activity', 'categories', 'parties', 'position'),
      noDimensions,
      () => sums.dimensionSumsRead(window, dimensionDays, today),
      () => sums.rawDimensionSumsRead(window),
    ),
    readIf<sums.LargestRow[]>(
      wants('cashflow'),
      [],
      () => sums.largestPerWalletRead(window, dimensionDays, today),
      () => sums.rawLargestPerWalletRead(window),
    ),
  ]);
  const largest = summary && wants('cashflow') ? await sums.largestOrRaw(db, window, found) : found;
  const { balances } = setup;
  const currencies = new Set([...daily.totals, ...categories, ...parties, ...intents, ...largest, ...balances].map((row) => row.currency));
  const conv = new view.Converter(await conversionRates(ctx, currency, currencies, { manualRates: setup.manualRates }));
  const cash = balances.reduce((acc, b) => acc.plus(conv.convert(b.total, b.currency)), new Decimal(0));
  const categoryShares = { income: view.shares(categories, 'income', conv, NO_CATEGORY), expense: view.shares(categories, 'expense', conv, NO_CATEGORY) };
  // the language the request asks for, else the user's setting (the mobile app sends no Accept-Language)
  const noParty = NO_PARTY[seedLanguage(ctx.request.headers['accept-language'], setup.language)];

  const data = {
    currency,
    ...(wants('overview') && { overview: view.overview(daily, cash, conv), period_summary: view.periodSummary(daily, range, now, conv) }),
    ...(wants('activity') && { activity: view.activity(daily, parties, categories, range, conv) }),
    ...(wants('comparisons') && { comparisons: view.comparisons(daily, conv) }),
    ...(wants('categories') && {
      top_categories: { income: categoryShares.income.slice(0, 5).map(view.shareView), expenses: categoryShares.expense.slice(0, 5).map(view.shareView) },
      category_distribution: view.categoryDistribution(categoryShares.expense),
    }),
    ...(wants('cashflow') && {
      largest_transactions: { income: view.largest(largest, 'income', timeZone, conv), expense: view.largest(largest, 'expense', timeZone, conv) },
      spending_trends: { current_period: view.trend(daily, true, period, conv), previous_period: view.trend(daily, false, period, conv) },
    }),
    // Holdings are not stored by this server yet, so their value is 0.
    ...(wants('position') && { position: view.position(intents, cash, new Decimal(0), conv) }),
    ...(wants('categories', 'parties', 'cashflow') && {
      charts: {
        ...(wants('categories') && { category_spending: categoryShares.expense.map(view.shareView), income_sources: categoryShares.income.map(view.shareView) }),
        ...(wants('parties') && {
          party_spending: view.shares(parties, 'expense', conv, noParty).map(view.shareView),
          party_income: view.shares(parties, 'income', conv, noParty).map(view.shareView),
        }),
        ...(wants('cashflow') && { monthly_cash_flow: view.monthlyCashFlow(daily, conv), expense_by_wallet: view.expenseByWallet(daily, conv) }),
      },
    }),
    partial: conv.unconverted.size > 0,
    unconverted_currencies: [...conv.unconverted].sort(),
  };
  return ok(data);
}

export const statisticsHandlers = {
  getStatistics,
} satisfies Partial<Handlers>;
