// Insights summaries (reference 7.2): every user gets a summary of the last complete week
// (Monday to Sunday) or month in their time zone, as their `insights-frequency` setting says
// (weekly when unset; `daily` is not scheduled, as in the reference). The figures: income,
// expenses, net, savings rate, transaction count, the change of expenses against the period
// before, and the top expense categories. Transfer legs are moves between wallets, not income or
// spending, and are left out.
//
// Money is summed in SQL per wallet currency, then converted into the user's currency (the one
// GET /stats reports in) with the app's one rate lookup; never added across currencies raw (the
// reference does, which is meaningless for a EUR and a USD wallet). A currency with no known
// rate is left out of every figure and named in the text and in `unconverted_currencies`.
//
// The job runs daily at 08:00 UTC and sends the last complete period of each user once: the
// claim in engagement_sends (user, frequency, period) makes reruns, missed days and a second
// worker safe. Delivery follows the `insights` preference (notification type `system`).
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { ratesInto } from '../db/budget-spending.js';
import { claimEngagementSend, recordSentNotification } from '../db/engagement-sends.js';
import { notifyUser } from '../db/notification-delivery.js';
import type { Database } from '../db/schema.js';
import { isTimeZone } from '../domain/configuration-keys.js';
import { Decimal, moneyToJson } from '../domain/money.js';
import { toWallClock } from '../domain/reminder-schedule.js';
import { startOfDay } from '../domain/time-zone.js';
import { targetCurrency } from '../db/settings.js';
import { Converter } from '../handlers/views/statistics.js';
import type { JobDefinition } from '../server/jobs.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import type { AppServices } from '../server/services.js';

export type InsightsFrequency = 'weekly' | 'monthly';
const FREQUENCIES: InsightsFrequency[] = ['weekly', 'monthly'];
const USER_BATCH = 200;

export const insightsSummaryJob: JobDefinition = {
  name: 'insights-summary',
  cron: '0 8 * * *',
  async run({ db, services, log }) {
    const sent = await sendInsightsSummaries(db, services, services.now(), log);
    if (sent > 0) {
      log.info({ sent }, 'insights summaries sent');
      await services.jobs.send(DELIVER_EMAILS_JOB);
    }
  },
};

export interface InsightsPeriod {
  /** The first day, `YYYY-MM-DD`; names the period. */
  firstDay: string;
  start: Date;
  end: Date;
  label: string;
  /** The period before, for the comparison. */
  previous: { start: Date; end: Date };
}

const day = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (text: string, days: number) => day(new Date(Date.parse(`${text}T00:00:00Z`) + days * 86_400_000));
const addMonths = (text: string, months: number) => {
  const date = new Date(`${text}T00:00:00Z`);
  return day(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1)));
};

/** The last complete week (Monday to Sunday) or month before `now` in `zone`. */
export function insightsPeriod(frequency: InsightsFrequency, now: Date, zone: string): InsightsPeriod {
  const today = day(toWallClock(now, zone));
  let first: string;
  let next: string;
  let before: string;
  if (frequency === 'weekly') {
    const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
    next = addDays(today, -weekday);
    first = addDays(next, -7);
    before = addDays(first, -7);
  } else {
    next = `${today.slice(0, 7)}-01`;
    first = addMonths(next, -1);
    before = addMonths(first, -1);
  }
  const format = (text: string, options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', ...options }).format(new Date(`${text}T00:00:00Z`));
  const label =
    frequency === 'weekly'
      ? `${format(first, { month: 'short', day: 'numeric' })} - ${format(addDays(next, -1), { month: 'short', day: 'numeric', year: 'numeric' })}`
      : format(first, { month: 'long', year: 'numeric' });
  return {
    firstDay: first,
    start: startOfDay(first, zone),
    end: startOfDay(next, zone),
    label,
    previous: { start: startOfDay(before, zone), end: startOfDay(first, zone) },
  };
}

/** Sends every summary due at `now`; returns how many were sent. */
export async function sendInsightsSummaries(db: Kysely<Database>, services: AppServices, now: Date, log?: FastifyBaseLogger): Promise<number> {
  let sent = 0;
  for (const frequency of FREQUENCIES) {
    let afterId = 0;
    for (;;) {
      const recipients = await recipientsOf(db, frequency, afterId);
      for (const recipient of recipients) {
        try {
          if (await sendSummary(db, services, recipient.id, recipient.zone, frequency, now)) sent++;
        } catch (error) {
          log?.error({ err: error, userId: recipient.id, frequency }, 'sending an insights summary failed');
        }
      }
      if (recipients.length < USER_BATCH) break;
      afterId = recipients[recipients.length - 1].id;
    }
  }
  return sent;
}

/** Users whose `insights-frequency` is `frequency` (weekly also when unset), with their time zone. */
async function recipientsOf(db: Kysely<Database>, frequency: InsightsFrequency, afterId: number) {
  const rows = await db
    .selectFrom('users')
    .select((eb) => {
      const setting = (key: string) =>
        eb
          .selectFrom('configurations')
          .select(sql<string>`value #>> '{}'`.as('value'))
          .whereRef('configurations.user_id', '=', 'users.id')
          .where('configurations.key', '=', key)
          .where('configurations.deleted_at', 'is', null);
      return ['users.id', setting('insights-frequency').as('frequency'), setting('timezone').as('zone')];
    })
    .where('users.id', '>', afterId)
    .orderBy('users.id')
    .limit(USER_BATCH)
    .execute();
  return rows
    .filter((row) => (row.frequency ?? 'weekly') === frequency)
    .map((row) => ({ id: row.id, zone: row.zone && isTimeZone(row.zone) ? row.zone : 'UTC' }));
}

async function sendSummary(
  db: Kysely<Database>,
  services: AppServices,
  userId: number,
  zone: string,
  frequency: InsightsFrequency,
  now: Date,
): Promise<boolean> {
  const period = insightsPeriod(frequency, now, zone);
  return db.transaction().execute(async (trx) => {
    const claim = await claimEngagementSend(trx, userId, frequency === 'weekly' ? 'insights_weekly' : 'insights_monthly', period.firstDay, now);
    if (claim === undefined) return false;
    const insights = await insightsOf(trx, services, userId, period);
    const name = frequency === 'weekly' ? 'Weekly' : 'Monthly';
    const money = (value: Decimal) => `${formatAmount(value)} ${insights.currency}`;
    const left = insights.unconverted.length > 0 ? ` Amounts in ${insights.unconverted.join(', ')} are not included: no exchange rate.` : '';
    const notificationId = await notifyUser(trx, userId, 'insights', {
      type: 'system',
      title: `${name} Financial Insights`,
      body:
        `Your ${frequency} insights for ${period.label} are ready. Income: ${money(insights.income)}, ` +
        `Expenses: ${money(insights.expenses)}, Savings rate: ${insights.savingsRate.toFixed(1)}%.${left}`,
      data: {
        type: 'insights',
        frequency,
        period_label: period.label,
        period_start: period.start.toISOString(),
        period_end: period.end.toISOString(),
        currency: insights.currency,
        income: moneyToJson(insights.income),
        expenses: moneyToJson(insights.expenses),
        net: moneyToJson(insights.income.minus(insights.expenses)),
        savings_rate: insights.savingsRate.toNumber(),
        transaction_count: insights.count,
        expense_change_percent: insights.expenseChange.toNumber(),
        expenses_by_category: insights.topCategories,
        unconverted_currencies: insights.unconverted,
      },
      at: now,
    });
    await recordSentNotification(trx, claim, notificationId);
    return true;
  });
}

/** 1234.5 as "1,234.50". */
function formatAmount(value: Decimal): string {
  const [whole, cents] = value.toFixed(2, Decimal.ROUND_HALF_EVEN).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${cents}`;
}

const TOP_CATEGORIES = 5;

/** The period's sums per wallet currency, converted into the user's currency. */
async function insightsOf(db: Kysely<Database>, services: AppServices, userId: number, period: InsightsPeriod) {
  const entries = (start: Date, end: Date) =>
    db
      .selectFrom('transactions')
      .innerJoin('wallets', 'wallets.id', 'transactions.wallet_id')
      .where('transactions.user_id', '=', userId)
      .where('transactions.deleted_at', 'is', null)
      .where('transactions.transfer_id', 'is', null)
      .where('transactions.datetime', '>=', start)
      .where('transactions.datetime', '<', end)
      .groupBy('wallets.currency');
  const [totals, before, byCategory, currency] = await Promise.all([
    entries(period.start, period.end)
      .select([
        'wallets.currency',
        sql<string>`coalesce(sum(transactions.amount) filter (where transactions.type = 'income'), 0)`.as('income'),
        sql<string>`coalesce(sum(transactions.amount) filter (where transactions.type = 'expense'), 0)`.as('expenses'),
        sql<number>`count(*)`.as('count'),
      ])
      .execute(),
    entries(period.previous.start, period.previous.end)
      .where('transactions.type', '=', 'expense')
      .select(['wallets.currency', sql<string>`sum(transactions.amount)`.as('expenses')])
      .execute(),
    // Each expense counts under its first category (the lowest id), "Uncategorized" without one;
    // a split expense (046) each line under the line's category
    entries(period.start, period.end)
      .where('transactions.type', '=', 'expense')
      .leftJoin('transaction_splits as split', 'split.transaction_id', 'transactions.id')
      .select([
        'wallets.currency',
        sql<string>`coalesce(case when split.id is null
          then (select c.name from transaction_categories tc join categories c on c.id = tc.category_id where tc.transaction_id = transactions.id order by tc.category_id limit 1)
          else (select c.name from categories c where c.id = split.category_id) end, 'Uncategorized')`.as('category'),
        sql<string>`sum(coalesce(split.amount, transactions.amount))`.as('total'),
      ])
      .groupBy('category')
      .execute(),
    targetCurrency(db, userId),
  ]);

  const currencies = [...new Set([...totals, ...before, ...byCategory].map((row) => row.currency))];
  const rates = await ratesInto(db, services, userId, currency, currencies);
  const conv = new Converter(new Map([...rates].map(([code, rate]) => [code, rate === null ? undefined : new Decimal(rate)])));
  const sum = <Row>(rows: Row[], amount: (row: Row) => string, currencyOf: (row: Row) => string) =>
    rows.reduce((acc, row) => acc.plus(conv.convert(amount(row), currencyOf(row))), new Decimal(0));

  const income = sum(totals, (row) => row.income, (row) => row.currency);
  const expenses = sum(totals, (row) => row.expenses, (row) => row.currency);
  const previous = sum(before, (row) => row.expenses, (row) => row.currency);
  const categories = new Map<string, Decimal>();
  for (const row of byCategory) {
    categories.set(row.category, (categories.get(row.category) ?? new Decimal(0)).plus(conv.convert(row.total, row.currency)));
  }
  const topCategories = [...categories]
    .filter(([, total]) => total.greaterThan(0))
    .sort(([a, x], [b, y]) => y.comparedTo(x) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, TOP_CATEGORIES)
    .map(([category, total]) => ({ category, amount: moneyToJson(total) }));
  return {
    currency,
    income,
    expenses,
    count: totals.reduce((n, row) => n + Number(row.count), 0),
    savingsRate: income.isZero() ? new Decimal(0) : income.minus(expenses).div(income).times(100).toDecimalPlaces(1, Decimal.ROUND_HALF_UP),
    expenseChange: previous.isZero() ? new Decimal(0) : expenses.minus(previous).div(previous).times(100).toDecimalPlaces(1, Decimal.ROUND_HALF_UP),
    topCategories,
    /** Currencies with no rate into `currency`, left out of every figure. */
    unconverted: [...conv.unconverted].sort(),
  };
}
