// The SQL aggregations behind GET /stats, over the caller's live, non-transfer transactions of
// a window of whole local days, returned as sums per wallet currency (exact decimal strings);
// no transaction is loaded into JS. Conversion into the user's currency happens afterwards.
//
// For a dense ledger the sums come from the per-day summary tables (migration 021: by day,
// wallet and type, and intent, first category or party), kept in the user's time zone; the raw
// rows are read only for the current local day, which the daily sums split at `now`. For a
// sparse ledger, or when the summary is not kept in the zone asked for (one PostgreSQL does not
// know), the `raw*` functions answer from the rows (index-only scans of the live-window index,
// migration 013); they are also the recomputation the tests compare the summary with.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { transactionParts } from './split-figures.js';
import type { EntryType } from '../domain/ledger.js';
import { KEEP_PLAN } from './kept-plans.js';
import { dayWithin, spanArms, type DayRange } from './statistics-span.js';
import type { Database, JsonValue, TransactionIntent } from './schema.js';

export interface StatsWindow {
  userId: number;
  /** Inclusive lower bound of `datetime`. */
  from: Date;
  /** Exclusive upper bound of `datetime`. */
  before: Date;
  /** Only these wallets, when given. */
  walletIds?: number[];
}

/** A sum of one kind of rows in one currency. */
export interface CurrencySum {
  type: EntryType;
  currency: string;
  total: string;
  count: number;
}

export interface NamedSum extends CurrencySum {
  /** Category or party id; null for rows without one. */
  id: number | null;
  name: string | null;
  slug: string | null;
}

export interface IntentSum extends CurrencySum {
  intent: TransactionIntent;
}

export interface LargestRow {
  id: number;
  type: EntryType;
  currency: string;
  amount: string;
  description: string | null;
  datetime: Date;
  category: string | null;
}

/**
 * One read of GET /stats: its query, and how its rows become the answer. Several reads run as
 * one statement (readTogether: each statement costs CPU in the service and the database), each
 * read's rows aggregated as JSON there. So a read selects numeric sums as text (exact decimal
 * strings) and instants as epoch milliseconds: its rows decode the same alone or inside JSON.
 */
export interface StatsRead<T> {
  /** Undefined: nothing to read, decode answers alone. */
  query?: RawBuilder<unknown>;
  decode: (rows: any[]) => T;
}

/** A read that reads nothing (a section not asked for). */
export const nothingRead = <T>(value: T): StatsRead<T> => ({ decode: () => value });

/**
 * The reads in one statement (a read alone as its own query); their answers in order. Its plan is
 * kept per connection (db/kept-plans.ts): planning it cost about as much as running it.
 */
export async function readTogether<T extends unknown[]>(db: Kysely<Database>, reads: { [K in keyof T]: StatsRead<T[K]> }): Promise<T> {
  const asked = reads.filter((read) => read.query !== undefined);
  let rowsOf = (_read: StatsRead<unknown>): any[] => [];
  if (asked.length === 1) {
    const { rows } = await sql<any>`${sql.raw(KEEP_PLAN)}${asked[0].query}`.execute(db);
    rowsOf = () => rows;
  } else if (asked.length > 1) {
    const columns = asked.map((read, i) => sql`(select coalesce(json_agg(r), '[]'::json) from (${read.query}) r) as ${sql.id(`r${i}`)}`);
    const { rows } = await sql<any>`${sql.raw(KEEP_PLAN)}select ${sql.join(columns)}`.execute(db);
    rowsOf = (read) => rows[0][`r${asked.indexOf(read)}`];
  }
  return reads.map((read) => read.decode(read.query === undefined ? [] : rowsOf(read))) as T;
}

/** The window's rows, filtered as every statistic is (transfer legs excluded). */
function windowRows(window: StatsWindow): RawBuilder<unknown> {
  const walletFilter = window.walletIds?.length ? sql`and t.wallet_id = any(${window.walletIds}::bigint[])` : sql``;
  return sql`t.user_id = ${window.userId}
    and t.deleted_at is null
    and t.transfer_id is null
    and t.datetime >= ${window.from}
    and t.datetime < ${window.before}
    ${walletFilter}`;
}

export const toSum = (row: any): CurrencySum => ({ type: row.type, currency: row.currency, total: String(row.total), count: Number(row.count) });

/** Whether the summary tables hold the user's sums by local day of `timeZone`. */
export async function summaryKeptIn(db: Kysely<Database>, userId: number, timeZone: string): Promise<boolean> {
  const { rows } = await sql<{ zone: string }>`select stats_time_zone(${userId}) as zone`.execute(db);
  return rows[0]?.zone === timeZone;
}

/**
 * Transactions per day of history from which the summary is read instead of the rows. Each
 * summary row stands for the transactions of one day, wallet, type and key, so it saves work
 * only when a day holds many: at 1,000,000 rows over 3 years (~900 a day) a 30-day window reads
 * ~5,400 summary rows instead of ~27,000 rows and as many category probes; at 18 a day
 * (embedded bench, 20,000 rows) the summary has about as many rows as the ledger, and measured
 * no faster.
 */
const SUMMARY_FROM_PER_DAY = 100;

/** What GET /stats reads before its sums: the settings it depends on and whether the summary pays. */
export interface StatsSetup {
  /** The configuration values `timezone`, `default-currency` and `manual-exchange-rates` (undefined when unset). */
  timeZone: JsonValue | undefined;
  currency: JsonValue | undefined;
  manualRates: JsonValue | undefined;
  /** The configuration value `default-lang`, when it is text. */
  language: string | undefined;
  /**
   * Whether GET /stats reads the summary: kept in `timeZone`, and the user's ledger dense enough
   * (live transactions of the wallet totals, migration 012, over the days the summary spans).
   */
  summaryPays: (timeZone: string) => boolean;
  /** How many of the asked wallet ids are not live wallets of the user. */
  missingWallets: number;
  /** Current balances per currency of the live wallets (only the asked ones); empty unless asked for. */
  balances: Array<{ currency: string; total: string }>;
}

export interface StatsSetupOptions {
  /** The wallets the request is filtered to (distinct ids), when it is. */
  walletIds?: number[];
  /** Whether to read the balances per currency too (as balancesPerCurrency). */
  balances?: boolean;
}

/**
 * StatsSetup in one statement (each statement of a request costs CPU in the service and the
 * database, ~1 ms of the service's alone): the settings, the wallet check and the balances.
 * Balances come as JSON with the sums as text, so they stay exact decimal strings.
 */
export async function statsSetup(db: Kysely<Database>, userId: number, options: StatsSetupOptions = {}): Promise<StatsSetup> {
  const setting = (key: string) => sql`(select c.value from configurations c where c.user_id = ${userId} and c.key = ${key} and c.deleted_at is null)`;
  const walletIds = options.walletIds?.length ? options.walletIds : undefined;
  const liveWallets = sql`wallets w where w.user_id = ${userId} and w.deleted_at is null ${walletIds ? sql`and w.id = any(${walletIds}::bigint[])` : sql``}`;
  const { rows } = await sql<{
    zone: string; transactions: string | null; days: number | null; time_zone: JsonValue | null; currency: JsonValue | null; manual_rates: JsonValue | null; language: JsonValue | null;
    live_wallets?: string; balances?: Array<{ currency: string; total: string }>;
  }>`
    select stats_time_zone(${userId}) as zone,
           (select sum(w.income_count + w.expense_count) from wallets w where w.user_id = ${userId}) as transactions,
           (select max(s.day) - min(s.day) + 1 from stats_day_sums s where s.user_id = ${userId}) as days,
           ${setting('timezone')} as time_zone, ${setting('default-currency')} as currency, ${setting('manual-exchange-rates')} as manual_rates,
           ${setting('default-lang')} as language
           ${walletIds ? sql`, (select count(*) from ${liveWallets}) as live_wallets` : sql``}
           ${options.balances ? sql`, (select coalesce(json_agg(json_build_object('currency', b.currency, 'total', b.total::text)), '[]'::json)
                from (select w.currency, sum(w.balance) as total from ${liveWallets} group by w.currency) b) as balances` : sql``}`.execute(db);
  const row = rows[0];
  return {
    timeZone: row?.time_zone ?? undefined,
    currency: row?.currency ?? undefined,
    manualRates: row?.manual_rates ?? undefined,
    language: typeof row?.language === 'string' ? row.language : undefined,
    summaryPays: (timeZone) => !!row && row.zone === timeZone && !!row.days && Number(row.transactions ?? 0) / row.days >= SUMMARY_FROM_PER_DAY,
    missingWallets: walletIds ? walletIds.length - Number(row?.live_wallets ?? 0) : 0,
    balances: row?.balances ?? [],
  };
}

/** StatsSetup.summaryPays on its own. */
export async function summaryPays(db: Kysely<Database>, userId: number, timeZone: string): Promise<boolean> {
  return (await statsSetup(db, userId)).summaryPays(timeZone);
}

export const summaryRows = (table: string, window: StatsWindow, days: DayRange) =>
  sql`${sql.table(table)} s where s.user_id = ${window.userId} and s.day between ${days.first}::date and ${days.last}::date ${walletsOf('s', window)}`;

export interface DimensionSums {
  /** By first category of each transaction (id null: uncategorised). */
  categories: NamedSum[];
  /** By party (id null: no party). */
  parties: NamedSum[];
  intents: IntentSum[];
}

const walletsOf = (alias: string, window: StatsWindow) =>
  window.walletIds?.length ? sql`and ${sql.ref(`${alias}.wallet_id`)} = any(${window.walletIds}::bigint[])` : sql``;

/** The key column of each per-day summary table (its monthly and yearly rollups have the same columns). */
const SUMMARY_KEYS: Record<string, string> = { stats_day_sums: 'intent', stats_category_day_sums: 'category_id', stats_party_day_sums: 'party_id' };

/**
 * The rows (day, wallet_id, type, key, total, count) of a per-day summary table over `days`
 * (aliased s) as spanArms reads them (whole years and months from the rollups); the days
 * subtracted from a month or year row come negated. Keep the groups whose count is above 0:
 * every stored row counts at least one transaction, so a group of subtracted days alone nets to
 * 0 and did not exist.
 */
export function spanRows(dayTable: string, window: StatsWindow, days: DayRange, today?: string) {
  const key = SUMMARY_KEYS[dayTable];
  const arms = spanArms(dayTable, days, today, true).map(({ table, ranges, negated }) => {
    const column = (name: string) => sql.ref(`s.${name}`);
    const [total, count] = negated ? [sql`-${column('total')}`, sql`-${column('count')}`] : [column('total'), column('count')];
    return sql`
    select ${column('day')} as day, ${column('wallet_id')} as wallet_id, ${column('type')} as type, ${column(key)} as ${sql.id(key)}, ${total} as total, ${count} as count
      from ${sql.table(table)} s
     where ${column('user_id')} = ${window.userId} and ${dayWithin('s', ranges)} ${walletsOf('s', window)}`;
  });
  return sql`(${sql.join(arms, sql` union all `)}) s`;
}

/**
 * Sums per type, wallet (so currency) and first category (the lowest linked id), party or
 * intent over the whole local days `days` (the window's), from the three summary tables in one
 * query, joined to the names after aggregating; each list repeats a key once per wallet,
 * and the views add them up. (Since the monthly rollups PostgreSQL plans it without parallel
 * workers at 1M rows, for every preset; it no longer runs in a transaction that forbids them.)
 */
export function dimensionSumsRead(window: StatsWindow, days: DayRange, today?: string): StatsRead<DimensionSums> {
  const query = sql`
    select d.kind, d.type, d.key_id, d.intent, d.total::text as total, d.count, w.currency, c.name as category_name, c.slug as category_slug, p.name as party_name
    from (
      select 'category' as kind, s.type, s.wallet_id, s.category_id as key_id, null::text as intent, sum(s.total) as total, sum(s.count) as count
        from ${spanRows('stats_category_day_sums', window, days, today)} group by s.type, s.wallet_id, s.category_id having sum(s.count) > 0
      union all
      select 'party', s.type, s.wallet_id, s.party_id, null, sum(s.total), sum(s.count)
        from ${spanRows('stats_party_day_sums', window, days, today)} group by s.type, s.wallet_id, s.party_id having sum(s.count) > 0
      union all
      select 'intent', s.type, s.wallet_id, null, s.intent, sum(s.total), sum(s.count)
        from ${spanRows('stats_day_sums', window, days, today)} group by s.type, s.wallet_id, s.intent having sum(s.count) > 0
    ) d
    join wallets w on w.id = d.wallet_id
    left join categories c on d.kind = 'category' and c.id = d.key_id
    left join parties p on d.kind = 'party' and p.id = d.key_id`;
  const decode = (rows: any[]): DimensionSums => {
    // 0 is the summary's key for "none"
    const id = (value: unknown) => (value === null || Number(value) === 0 ? null : Number(value));
    const sums: DimensionSums = { categories: [], parties: [], intents: [] };
    // literals, not spreads of toSum: a spread per row cost more than the rest of the decoding
    for (const row of rows) {
      const [type, currency, total, count] = [row.type, row.currency, String(row.total), Number(row.count)];
      if (row.kind === 'category') sums.categories.push({ type, currency, total, count, id: id(row.key_id), name: row.category_name, slug: row.category_slug });
      else if (row.kind === 'party') sums.parties.push({ type, currency, total, count, id: id(row.key_id), name: row.party_name, slug: null });
      else sums.intents.push({ type, currency, total, count, intent: row.intent });
    }
    return sums;
  };
  return { query, decode };
}

export async function dimensionSums(db: Kysely<Database>, window: StatsWindow, days: DayRange, today?: string): Promise<DimensionSums> {
  return (await readTogether(db, [dimensionSumsRead(window, days, today)]))[0];
}

/**
 * dimensionSums from the raw rows: sums per type, wallet, category, party and intent in one
 * pass over the window's index-only scan (a split transaction's lines each under their own
 * category and party), joined to the names after aggregating.
 */
export function rawDimensionSumsRead(window: StatsWindow): StatsRead<DimensionSums> {
  const query = sql`
    select d.type, d.wallet_id, d.category_id, d.party_id, d.intent, d.total::text as total, d.count, d.category_count, d.party_count,
           w.currency, c.name as category_name, c.slug as category_slug, p.name as party_name
    from (
      select t.type, t.wallet_id, part.category_id, part.party_id, t.intent, sum(part.amount) as total,
             sum(part.transactions) as count, sum(part.categories) as category_count, sum(part.parties) as party_count
      from transactions t
      cross join lateral (${transactionParts('t')}) part
      where ${windowRows(window)}
      group by 1, 2, 3, 4, 5
    ) d
    join wallets w on w.id = d.wallet_id
    left join categories c on c.id = d.category_id
    left join parties p on p.id = d.party_id`;
  const decode = (rows: any[]): DimensionSums => {
    const id = (value: unknown) => (value === null ? null : Number(value));
    return {
      categories: rows.map((row) => ({ ...toSum(row), count: Number(row.category_count), id: id(row.category_id), name: row.category_name, slug: row.category_slug })),
      parties: rows.map((row) => ({ ...toSum(row), count: Number(row.party_count), id: id(row.party_id), name: row.party_name, slug: null })),
      intents: rows.map((row) => ({ ...toSum(row), intent: row.intent })),
    };
  };
  return { query, decode };
}

export async function rawDimensionSums(db: Kysely<Database>, window: StatsWindow): Promise<DimensionSums> {
  return (await readTogether(db, [rawDimensionSumsRead(window)]))[0];
}

/** The winners' currency, description and first category; `prelude`: CTEs `winner` may name. */
const LARGEST_TAIL = (winner: RawBuilder<unknown>, prelude?: RawBuilder<unknown>) => sql`
    with ${prelude ? sql`${prelude}, ` : sql``} winner as (${winner})
    select winner.id, winner.type, winner.wallet_id, w.currency, winner.amount::text as amount, x.description,
           floor(extract(epoch from x.datetime) * 1000)::float8 as datetime_ms,
           (select c.name from categories c
            where c.id = (select min(tc.category_id) from transaction_categories tc where tc.transaction_id = winner.id)) as category
    from winner
    join wallets w on w.id = winner.wallet_id
    join transactions x on x.id = winner.id`;

const largestRow = (row: any): LargestRow => ({
  id: Number(row.id),
  type: row.type,
  currency: row.currency,
  amount: row.amount,
  description: row.description,
  datetime: new Date(Number(row.datetime_ms)),
  category: row.category,
});

/**
 * The largest transaction of each type in each wallet over the whole local days `days` (the
 * window's); ties go to the lowest id. Each wallet and type the summary shows in the window is
 * looked up top-down in the (user, wallet, type, amount desc, id) index of live non-transfer
 * rows until a row falls in the window: about (rows of the pair) / (its rows in the window)
 * index entries, which beats scanning the window unless the window is a sliver of the history
 * (one day of three years), when rawLargestPerWallet's window scan is the cheaper one. The
 * pairs, that choice and the look-ups are one query; it gives no row when the window is
 * such a sliver (or empty), and then rawLargestPerWallet answers (largestOrRaw).
 */
export function largestPerWalletRead(window: StatsWindow, days: DayRange, today?: string): StatsRead<LargestRow[]> {
  const pairs = sql`pairs as materialized (
      select p.wallet_id, p.type, p.n, case when p.type = 'income' then w.income_count else w.expense_count end as total
      from (select s.wallet_id, s.type, sum(s.count) as n from ${spanRows('stats_day_sums', window, days, today)} group by 1, 2 having sum(s.count) > 0) p
      join wallets w on w.id = p.wallet_id)`;
  const query = sql`${LARGEST_TAIL(
    sql`
      select x.id, p.type, p.wallet_id, x.amount
      from pairs p
      cross join lateral (
        select t.id, t.amount from transactions t
        where t.user_id = ${window.userId} and t.wallet_id = p.wallet_id and t.type = p.type
          and t.deleted_at is null and t.transfer_id is null
          and t.datetime >= ${window.from} and t.datetime < ${window.before}
        order by t.amount desc, t.id
        limit 1
      ) x
      where not exists (select from pairs q where q.total > q.n * (select sum(r.n) from pairs r))`,
    pairs,
  )}
    order by winner.wallet_id, winner.type`;
  // by wallet, then type, as ordered (a tie between wallets goes to the first: views/statistics.ts largest)
  const decode = (rows: any[]) => [...rows].sort((a, b) => Number(a.wallet_id) - Number(b.wallet_id) || (a.type < b.type ? -1 : 1)).map(largestRow);
  return { query, decode };
}

/** largestPerWalletRead's rows, or rawLargestPerWallet's when it gave none (a sliver of the history, or an empty window). */
export async function largestOrRaw(db: Kysely<Database>, window: StatsWindow, rows: LargestRow[]): Promise<LargestRow[]> {
  return rows.length > 0 ? rows : rawLargestPerWallet(db, window);
}

export async function largestPerWallet(db: Kysely<Database>, window: StatsWindow, days: DayRange, today?: string): Promise<LargestRow[]> {
  return largestOrRaw(db, window, (await readTogether(db, [largestPerWalletRead(window, days, today)]))[0]);
}

/**
 * largestPerWallet from a scan of the window: the maxima by hash aggregation over the window's index-only scan, the
 * rows holding them by a second such scan hash-joined to the maxima (no sort of the window),
 * then the few winners' description and first category by primary key.
 */
export function rawLargestPerWalletRead(window: StatsWindow): StatsRead<LargestRow[]> {
  const query = LARGEST_TAIL(sql`
      with top as (
        select t.type, t.wallet_id, max(t.amount) as amount
        from transactions t
        where ${windowRows(window)}
        group by 1, 2
      )
      select min(t.id) as id, t.type, t.wallet_id, t.amount
      from transactions t
      join top on top.type = t.type and top.wallet_id = t.wallet_id and top.amount = t.amount
      where ${windowRows(window)}
      group by 2, 3, 4`);
  return { query, decode: (rows) => rows.map(largestRow) };
}

export async function rawLargestPerWallet(db: Kysely<Database>, window: StatsWindow): Promise<LargestRow[]> {
  return (await readTogether(db, [rawLargestPerWalletRead(window)]))[0];
}

/** Current balances of the caller's live wallets (only `walletIds` when given), per currency. */
export async function balancesPerCurrency(db: Kysely<Database>, userId: number, walletIds?: number[]): Promise<Array<{ currency: string; total: string }>> {
  let query = db
    .selectFrom('wallets')
    .select((eb) => ['currency', eb.fn.sum<string>('balance').as('total')])
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .groupBy('currency');
  if (walletIds?.length) query = query.where('id', 'in', walletIds);
  const rows = await query.execute();
  return rows.map((row) => ({ currency: row.currency, total: String(row.total) }));
}

