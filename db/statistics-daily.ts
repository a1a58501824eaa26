// The daily sums behind GET /stats (overview, activity, comparisons, cash flow), digested in SQL:
// the window's per-day rows (from the per-day summary, or from the raw rows) are summed per
// currency into the few buckets the views need (window totals, months, weekdays, wallets, and
// days only for a daily trend), so the views convert one sum per currency and bucket instead of
// one per day and wallet (all time at 1M rows: ~11,000 daily rows).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { summaryRows, toSum, type CurrencySum, type DayRange, type StatsWindow } from './statistics.js';

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

const walletFilterOf = (window: StatsWindow) => (window.walletIds?.length ? sql`and t.wallet_id = any(${window.walletIds}::bigint[])` : sql``);

/**
 * Sums per type, wallet and local day from `days.first` to `days.last`, split at `now`: the
 * summary's rows of every day but `today` (earlier days are past, later ones not), and today's
 * raw rows (a few hundred at most) split at `now`.
 */
const summaryDays = (window: StatsWindow, days: DayRange, timeZone: string, now: Date, today: string) => sql`
      select s.day, s.type, s.wallet_id, s.day < ${today}::date as past, sum(s.total) as total, sum(s.count) as count
      from ${summaryRows('stats_day_sums', window, days)} and s.day <> ${today}::date
      group by 1, 2, 3, 4
      union all
      select (t.datetime at time zone ${timeZone})::date as day, t.type, t.wallet_id, t.datetime <= ${now} as past, sum(t.amount) as total, count(*) as count
      from transactions t
      where ${today}::date between ${days.first}::date and ${days.last}::date
        and t.user_id = ${window.userId} and t.deleted_at is null and t.transfer_id is null
        and t.datetime >= (${today}::date::timestamp at time zone ${timeZone})
        and t.datetime < ((${today}::date + 1)::timestamp at time zone ${timeZone})
        ${walletFilterOf(window)}
      group by 1, 2, 3, 4`;

/** The same from the raw rows: one index-only scan of the live-window index (013). */
const rawDays = (window: StatsWindow, days: DayRange, timeZone: string, now: Date) => sql`
      select (t.datetime at time zone ${timeZone})::date as day, t.type, t.wallet_id, t.datetime <= ${now} as past, sum(t.amount) as total, count(*) as count
      from transactions t
      where t.user_id = ${window.userId} and t.deleted_at is null and t.transfer_id is null
        and t.datetime >= (${days.first}::date::timestamp at time zone ${timeZone})
        and t.datetime < ((${days.last}::date + 1)::timestamp at time zone ${timeZone})
        ${walletFilterOf(window)}
      group by 1, 2, 3, 4`;

/** The digest of a relation of daily rows (day, type, wallet_id, past, total, count), one statement. */
async function digest(db: Kysely<Database>, daily: RawBuilder<unknown>, options: DigestOptions): Promise<DailyDigest> {
  const { rows } = await sql<any>`
    with d as materialized (
      select x.day, x.type, x.wallet_id, x.past, x.total, x.count, w.currency, w.name as wallet_name, x.day >= ${options.startDay}::date as current
      from (${daily}) x join wallets w on w.id = x.wallet_id
    )
    select 'total' as kind, current, past, type, currency, null as bucket, null::bigint as wallet_id, null as wallet_name, sum(total) as total, sum(count) as count
      from d group by current, past, type, currency
    union all
    select 'month', current, null, type, currency, to_char(day, 'YYYY-MM'), null, null, sum(total), sum(count)
      from d group by current, 6, type, currency
    union all
    select 'day', current, null, type, currency, day::text, null, null, sum(total), sum(count)
      from d where ${options.byDay} and type = 'expense' group by current, day, type, currency
    union all
    select 'weekday', true, null, null, null, extract(isodow from day)::text, null, null, null, sum(count)
      from d where current group by 6
    union all
    select 'wallet', true, null, type, currency, null, wallet_id, wallet_name, sum(total), sum(count)
      from d where current and type = 'expense' group by wallet_id, wallet_name, type, currency`.execute(db);
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
  return digest(db, summaryDays(window, days, timeZone, now, today), options);
}

/** dailyDigest from the raw rows. */
export function rawDailyDigest(db: Kysely<Database>, window: StatsWindow, days: DayRange, timeZone: string, now: Date, options: DigestOptions): Promise<DailyDigest> {
  return digest(db, rawDays(window, days, timeZone, now), options);
}
