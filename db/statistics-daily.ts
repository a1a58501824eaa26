// The daily sums behind GET /stats (overview, activity, comparisons, cash flow), digested in SQL
// into the few buckets the views need (window totals, months, wallets, weekdays, and days only
// for a daily trend), per currency, so the views convert one sum per currency and bucket instead
// of one per day and wallet (all time at 1M rows: ~11,000 daily rows). From the summary, the
// totals, months and wallets read whole months from the monthly rollup (024) and the other days
// from the day table; weekdays (and a daily trend) read the day table; today comes from the raw
// rows, split at `now`. For a sparse ledger the same digest is made from the raw rows.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { addDays, addMonths } from '../domain/stats-periods.js';
import { summaryRows, toSum, wholeMonths, type CurrencySum, type DayRange, type StatsWindow } from './statistics.js';

/** A sum of the current window (`current`) or of the window of as many days before it. */
export interface WindowSum extends CurrencySum {
  current: boolean;
}

export interface DailyDigest {
  /** Per window, type and currency; `past`: dated at or before `now` (projections use only those). */
  totals: Array<WindowSum & { past: boolean }>;
  /** Per window, month (`YYYY-MM`), type and currency. */
  months: Array<WindowSum & { month: string }>;
  /** Expenses per window, day (`YYYY-MM-DD`) and currency; only when asked for. */
  days: Array<WindowSum & { day: string }>;
  /** Transactions of the current window per ISO weekday (1 = Monday). */
  weekdays: Array<{ weekday: number; count: number }>;
  /** Expenses of the current window per wallet. */
  wallets: Array<CurrencySum & { walletId: number; walletName: string }>;
}

export interface DigestOptions {
  /** The current window's first local day; earlier days of `days` are the previous window. */
  startDay: string;
  /** Whether to return the expenses per day (a daily trend). */
  byDay: boolean;
}

const walletFilterOf = (window: StatsWindow, alias = 't') =>
  window.walletIds?.length ? sql`and ${sql.ref(`${alias}.wallet_id`)} = any(${window.walletIds}::bigint[])` : sql``;

const before = (a: string, b: string) => (a < b ? a : b);
const after = (a: string, b: string) => (a > b ? a : b);

/** `s.day` in any of `ranges` (false when there is none). */
const dayWithin = (ranges: DayRange[]) =>
  ranges.length === 0 ? sql`false` : sql`(${sql.join(ranges.map((r) => sql`s.day between ${r.first}::date and ${r.last}::date`), sql` or `)})`;

/** Today's raw rows of the window (a few hundred at most) by type and wallet, split at `now`. */
const todayRows = (window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string) => sql`
      select ${today}::date as day, t.type, t.wallet_id, t.datetime <= ${now} as past, sum(t.amount) as total, count(*) as count
      from transactions t
      where ${today}::date between ${days.first}::date and ${days.last}::date
        and t.user_id = ${window.userId} and t.deleted_at is null and t.transfer_id is null
        and t.datetime >= (${today}::date::timestamp at time zone ${timeZone})
        and t.datetime < ((${today}::date + 1)::timestamp at time zone ${timeZone})
        ${walletFilterOf(window)}
      group by 2, 3, 4`;

/**
 * `days` without today, cut where the windows meet and around today, so that each piece lies in
 * one window and on one side of today; its whole months can then come from the monthly rollup.
 */
function pieces(days: DayRange, startDay: string, today: string): { months: DayRange[]; days: DayRange[] } {
  const [yesterday, tomorrow, previousLast] = [addDays(today, -1), addDays(today, 1), addDays(startDay, -1)];
  const split = [
    { first: days.first, last: before(previousLast, yesterday) },
    { first: after(days.first, tomorrow), last: previousLast },
    { first: startDay, last: before(days.last, yesterday) },
    { first: after(startDay, tomorrow), last: days.last },
  ]
    .filter((piece) => piece.first <= piece.last)
    .map((piece) => ({ piece, months: wholeMonths(piece) }));
  return {
    months: split.flatMap(({ months }) => (months ? [months] : [])),
    days: split.flatMap(({ piece, months }) =>
      months
        ? [{ first: piece.first, last: addDays(months.first, -1) }, { first: addMonths(months.last, 1), last: piece.last }].filter((r) => r.first <= r.last)
        : [piece],
    ),
  };
}

/**
 * Sums per type, wallet, day (or month) and `past` over `days`: the whole months of each piece
 * from the monthly rollup (024; `day` is then the month's first day), its other days from the
 * day table, today from the raw rows split at `now` (earlier days are past, later ones not).
 */
function summarySpan(window: StatsWindow, days: DayRange, startDay: string, timeZone: string, now: Date, today: string) {
  const cut = pieces(days, startDay, today);
  const from = (table: string, ranges: DayRange[]) => sql`
      select s.day, s.type, s.wallet_id, s.day < ${today}::date as past, sum(s.total) as total, sum(s.count) as count
      from ${sql.table(table)} s where s.user_id = ${window.userId} and ${dayWithin(ranges)} ${walletFilterOf(window, 's')}
      group by 1, 2, 3, 4`;
  return sql`${from('stats_month_sums', cut.months)} union all ${from('stats_day_sums', cut.days)} union all ${todayRows(window, days, timeZone, now, today)}`;
}

/** Per-day rows (day, type, wallet_id, total, count) of `days`: the day table, today from the raw rows. */
function summaryDays(window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string) {
  return sql`
      select s.day, s.type, s.wallet_id, s.total, s.count
      from ${summaryRows('stats_day_sums', window, days)} and s.day <> ${today}::date
      union all
      select day, type, wallet_id, total, count from (${todayRows(window, days, timeZone, now, today)}) x`;
}

/** The window's rows by local day, type, wallet and `past`: one index-only scan of the live-window index (013). */
const rawDays = (window: StatsWindow, days: DayRange, timeZone: string, now: Date) => sql`
      select (t.datetime at time zone ${timeZone})::date as day, t.type, t.wallet_id, t.datetime <= ${now} as past, sum(t.amount) as total, count(*) as count
      from transactions t
      where t.user_id = ${window.userId} and t.deleted_at is null and t.transfer_id is null
        and t.datetime >= (${days.first}::date::timestamp at time zone ${timeZone})
        and t.datetime < ((${days.last}::date + 1)::timestamp at time zone ${timeZone})
        ${walletFilterOf(window)}
      group by 1, 2, 3, 4`;

interface DigestSources {
  /** CTEs the relations below may name. */
  prelude?: RawBuilder<unknown>;
  /** (day or month's first day, type, wallet_id, past, total, count) over both windows. */
  span: RawBuilder<unknown>;
  /** (day, type, wallet_id, total, count) by day over the current window, or both when by day. */
  perDay: RawBuilder<unknown>;
}

/** The digest in one statement. */
async function digest(db: Kysely<Database>, sources: DigestSources, options: DigestOptions): Promise<DailyDigest> {
  const { rows } = await sql<any>`
    with ${sources.prelude ? sql`${sources.prelude}, ` : sql``} d as materialized (
      select x.day, x.type, x.wallet_id, x.past, x.total, x.count, w.currency, w.name as wallet_name, x.day >= ${options.startDay}::date as current
      from (${sources.span}) x join wallets w on w.id = x.wallet_id
    ), per_day as materialized (
      select x.day, x.type, x.total, x.count, w.currency, x.day >= ${options.startDay}::date as current
      from (${sources.perDay}) x join wallets w on w.id = x.wallet_id
    )
    select 'total' as kind, current, past, type, currency, null as bucket, null::bigint as wallet_id, null as wallet_name, sum(total) as total, sum(count) as count
      from d group by current, past, type, currency
    union all
    select 'month', current, null, type, currency, to_char(day, 'YYYY-MM'), null, null, sum(total), sum(count)
      from d group by current, 6, type, currency
    union all
    select 'wallet', true, null, type, currency, null, wallet_id, wallet_name, sum(total), sum(count)
      from d where current and type = 'expense' group by wallet_id, wallet_name, type, currency
    union all
    select 'weekday', true, null, null, null, extract(isodow from day)::text, null, null, null, sum(count)
      from per_day where current group by 6
    union all
    select 'day', current, null, type, currency, day::text, null, null, sum(total), sum(count)
      from per_day where ${options.byDay} and type = 'expense' group by current, day, type, currency`.execute(db);
  const of = (kind: string) => rows.filter((row) => row.kind === kind);
  const windowSum = (row: any): WindowSum => ({ ...toSum(row), current: row.current });
  return {
    totals: of('total').map((row) => ({ ...windowSum(row), past: row.past })),
    months: of('month').map((row) => ({ ...windowSum(row), month: row.bucket })),
    days: of('day').map((row) => ({ ...windowSum(row), day: row.bucket })),
    weekdays: of('weekday').map((row) => ({ weekday: Number(row.bucket), count: Number(row.count) })),
    wallets: of('wallet').map((row) => ({ ...toSum(row), walletId: Number(row.wallet_id), walletName: row.wallet_name })),
  };
}

/** The digest of the days `days` (the previous window's first to the current one's last) from the summary. */
export function dailyDigest(db: Kysely<Database>, window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string, options: DigestOptions): Promise<DailyDigest> {
  const perDays = options.byDay ? days : { first: options.startDay, last: days.last };
  return digest(db, { span: summarySpan(window, days, options.startDay, timeZone, now, today), perDay: summaryDays(window, perDays, timeZone, now, today) }, options);
}

/** dailyDigest from the raw rows (scanned once). */
export function rawDailyDigest(db: Kysely<Database>, window: StatsWindow, days: DayRange, timeZone: string, now: Date, options: DigestOptions): Promise<DailyDigest> {
  const prelude = sql`raw as materialized (${rawDays(window, days, timeZone, now)})`;
  return digest(db, { prelude, span: sql`select * from raw`, perDay: sql`select day, type, wallet_id, total, count from raw` }, options);
}
