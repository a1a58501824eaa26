// The daily sums behind GET /stats (overview, activity, comparisons, cash flow), digested in SQL
// into the few buckets the views need (window totals, months, wallets, weekdays, and days only
// for a daily trend), per currency, so the views convert one sum per currency and bucket instead
// of one per day and wallet (all time at 1M rows: ~11,000 daily rows). From the summary, the
// totals, months and wallets read whole months, and a partial month whose other days are fewer
// (the current month: the days to come), from the monthly rollup (024), the other days from the
// day table (spanPlan); weekday counts (and a daily trend) read the day table; today comes from
// the raw rows, split at `now`. For a sparse ledger the same digest is made from the raw rows.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { addDays } from '../domain/stats-periods.js';
import { readTogether, type CurrencySum, type StatsRead, type StatsWindow } from './statistics.js';
import { dayWithin, spanPlan, yearPlan, type DayRange } from './statistics-span.js';

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

/** A run of days that lies in one window and on one side of today. */
interface Piece extends DayRange {
  current: boolean;
  past: boolean;
}

/** `days` without today, cut where the windows meet and around today. */
function pieces(days: DayRange, startDay: string, today: string): Piece[] {
  const [yesterday, tomorrow, previousLast] = [addDays(today, -1), addDays(today, 1), addDays(startDay, -1)];
  return [
    { first: days.first, last: before(previousLast, yesterday), current: false, past: true },
    { first: after(days.first, tomorrow), last: previousLast, current: false, past: false },
    { first: startDay, last: before(days.last, yesterday), current: true, past: true },
    { first: after(startDay, tomorrow), last: days.last, current: true, past: false },
  ].filter((piece) => piece.first <= piece.last);
}

/**
 * Sums per type, wallet, day (or month), window (`current`) and `past` over `days`: each piece
 * read as spanPlan says (its whole months, and the current month less the days to come, from
 * the monthly rollup; other days from the day table, with the days a month row holds beyond
 * the piece subtracted), or for a daily trend (`byDay`) from the day table alone, so the days
 * are read once; today from the raw rows split at `now`. The flags are the piece's, so a
 * subtracted day nets against its month row whatever window it lies in; a month row's `day`
 * is the month's first day, a subtracted day's is in that month: both give the same month.
 */
function summarySpan(window: StatsWindow, days: DayRange, startDay: string, timeZone: string, now: Date, today: string, byDay: boolean) {
  const arms: RawBuilder<unknown>[] = [];
  const arm = (table: string, sign: number, piece: Piece, ranges: DayRange[]) => sql`
      select s.day, s.type, s.wallet_id, ${sql.lit(piece.current)} as current, ${sql.lit(piece.past)} as past, sum(s.total) * ${sql.lit(sign)} as total, sum(s.count) * ${sql.lit(sign)} as count
      from ${sql.table(table)} s where s.user_id = ${window.userId} and ${dayWithin('s', ranges)} ${walletFilterOf(window, 's')}
      group by 1, 2, 3`;
  for (const piece of pieces(days, startDay, today)) {
    if (byDay) {
      arms.push(arm('stats_day_sums', 1, piece, [piece]));
      continue;
    }
    const plan = spanPlan(piece, today);
    if (plan.months) arms.push(arm('stats_month_sums', 1, piece, [plan.months]));
    if (plan.plus.length) arms.push(arm('stats_day_sums', 1, piece, plan.plus));
    if (plan.minus.length) arms.push(arm('stats_day_sums', -1, piece, plan.minus));
  }
  const todayArm = sql`select day, type, wallet_id, ${today}::date >= ${startDay}::date as current, past, total, count from (${todayRows(window, days, timeZone, now, today)}) x`;
  return sql.join([...arms, todayArm], sql` union all `);
}

/**
 * (weekday, count) of `days` from the summary: whole years from the weekday counts of 028 (the
 * last year less its days after `days` when those are all to come), the other days from the day
 * table, subtracted days negated. Counts need no split at `now`, so today is the summary's too.
 */
function summaryWeekdays(window: StatsWindow, days: DayRange, today: string) {
  const plan = yearPlan(days, today);
  const read = (table: string, weekday: RawBuilder<unknown>, count: RawBuilder<unknown>, ranges: DayRange[]) => sql`
      select ${weekday} as weekday, ${count} as count
      from ${sql.table(table)} s where s.user_id = ${window.userId} and ${dayWithin('s', ranges)} ${walletFilterOf(window, 's')}`;
  const dayWeekday = sql`extract(isodow from s.day)::smallint`;
  return sql.join(
    [
      ...(plan.years ? [read('stats_weekday_year_sums', sql`s.weekday`, sql`s.count`, [plan.years])] : []),
      ...(plan.minus.length ? [read('stats_day_sums', dayWeekday, sql`-s.count`, plan.minus)] : []),
      ...(plan.rest.length ? [read('stats_day_sums', dayWeekday, sql`s.count`, plan.rest)] : []),
    ],
    sql` union all `,
  );
}

/** The window's rows by local day, type, wallet, window and `past`: one index-only scan of the live-window index (013). */
const rawDays = (window: StatsWindow, days: DayRange, startDay: string, timeZone: string, now: Date) => sql`
      select x.*, x.day >= ${startDay}::date as current from (
        select (t.datetime at time zone ${timeZone})::date as day, t.type, t.wallet_id, t.datetime <= ${now} as past, sum(t.amount) as total, count(*) as count
        from transactions t
        where t.user_id = ${window.userId} and t.deleted_at is null and t.transfer_id is null
          and t.datetime >= (${days.first}::date::timestamp at time zone ${timeZone})
          and t.datetime < ((${days.last}::date + 1)::timestamp at time zone ${timeZone})
          ${walletFilterOf(window)}
        group by 1, 2, 3, 4
      ) x`;

interface DigestSources {
  /** CTEs the relations below may name. */
  prelude?: RawBuilder<unknown>;
  /**
   * (day or month's first day, type, wallet_id, current, past, total, count) over both windows;
   * counts may be negative (subtracted days). Per day for a daily trend.
   */
  span: RawBuilder<unknown>;
  /** (weekday, count) over the current window; when absent the span is per day and gives them. */
  weekdays?: RawBuilder<unknown>;
}

/** The digest in one query (sums as text: StatsRead). Each bucket keeps only a positive count: one made of subtracted days alone nets to 0 and did not exist. */
function digestRead(sources: DigestSources, options: DigestOptions): StatsRead<DailyDigest> {
  const query = sql`
    with ${sources.prelude ? sql`${sources.prelude}, ` : sql``} d as materialized (
      select x.day, x.type, x.wallet_id, x.past, x.total, x.count, w.currency, w.name as wallet_name, x.current
      from (${sources.span}) x join wallets w on w.id = x.wallet_id
    )
    select 'total' as kind, current, past, type, currency, null as bucket, null::bigint as wallet_id, null as wallet_name, sum(total)::text as total, sum(count) as count
      from d group by current, past, type, currency having sum(count) > 0
    union all
    select 'month', current, null, type, currency, to_char(day, 'YYYY-MM'), null, null, sum(total)::text, sum(count)
      from d group by current, 6, type, currency having sum(count) > 0
    union all
    select 'wallet', true, null, type, currency, null, wallet_id, wallet_name, sum(total)::text, sum(count)
      from d where current and type = 'expense' group by wallet_id, wallet_name, type, currency having sum(count) > 0
    union all
    ${
      sources.weekdays
        ? sql`select 'weekday', true, null, null, null, weekday::text, null, null, null, sum(count)
      from (${sources.weekdays}) c group by 6 having sum(count) > 0`
        : sql`select 'weekday', true, null, null, null, extract(isodow from day)::text, null, null, null, sum(count)
      from d where current group by 6`
    }
    ${options.byDay ? sql`union all
    select 'day', current, null, type, currency, day::text, null, null, sum(total)::text, sum(count)
      from d where type = 'expense' group by current, day, type, currency` : sql``}`;
  const decode = (rows: any[]): DailyDigest => {
    const digest: DailyDigest = { totals: [], months: [], days: [], weekdays: [], wallets: [] };
    // one pass, object literals (as dimensionSumsRead's decoding)
    for (const row of rows) {
      const [type, currency, total, count, current] = [row.type, row.currency, String(row.total), Number(row.count), row.current];
      if (row.kind === 'total') digest.totals.push({ type, currency, total, count, current, past: row.past });
      else if (row.kind === 'month') digest.months.push({ type, currency, total, count, current, month: row.bucket });
      else if (row.kind === 'day') digest.days.push({ type, currency, total, count, current, day: row.bucket });
      else if (row.kind === 'weekday') digest.weekdays.push({ weekday: Number(row.bucket), count });
      else digest.wallets.push({ type, currency, total, count, walletId: Number(row.wallet_id), walletName: row.wallet_name });
    }
    return digest;
  };
  return { query, decode };
}

/** The digest of the days `days` (the previous window's first to the current one's last) from the summary. */
export function dailyDigestRead(window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string, options: DigestOptions): StatsRead<DailyDigest> {
  const span = summarySpan(window, days, options.startDay, timeZone, now, today, options.byDay);
  // a daily trend's span is per day and gives the weekday counts itself
  const weekdays = options.byDay ? undefined : summaryWeekdays(window, { first: options.startDay, last: days.last }, today);
  return digestRead({ span, weekdays }, options);
}

/** dailyDigestRead from the raw rows (scanned once, per day). */
export function rawDailyDigestRead(window: StatsWindow, days: DayRange, timeZone: string, now: Date, options: DigestOptions): StatsRead<DailyDigest> {
  const prelude = sql`raw as materialized (${rawDays(window, days, options.startDay, timeZone, now)})`;
  return digestRead({ prelude, span: sql`select day, type, wallet_id, current, past, total, count from raw` }, options);
}

export async function dailyDigest(db: Kysely<Database>, window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string, options: DigestOptions): Promise<DailyDigest> {
  return (await readTogether(db, [dailyDigestRead(window, days, timeZone, now, today, options)]))[0];
}

export async function rawDailyDigest(db: Kysely<Database>, window: StatsWindow, days: DayRange, timeZone: string, now: Date, options: DigestOptions): Promise<DailyDigest> {
  return (await readTogether(db, [rawDailyDigestRead(window, days, timeZone, now, options)]))[0];
}
