// The trigger and rebuild functions of the statistics summary (migrations 021, 024, 028); this
// file is not a migration itself. As with helpers.ts, what a migration emits through it must
// never change: new behaviour is a new option whose default emits what it did.
//
// Each summary table is keyed by user, day, wallet, type and one dimension, with sum(amount) and
// count. A table with `rollupOf` holds the same sums per month (its `day` is the month's first
// day): the triggers add each change to it as to the day table, and a rebuild sums the day
// table's rows by month. A rollup `by: 'year'` sums by year (`day` is January 1st), and a key
// `weekday` (028) is the ISO weekday of the local day (1 = Monday) instead of a transaction column.
import { sql, type Kysely } from 'kysely';

export interface SummaryTable {
  table: string;
  key: 'intent' | 'category_id' | 'party_id' | 'weekday';
  keyType: 'text' | 'bigint' | 'smallint';
  /** The day table this one sums by month (or by `by`). */
  rollupOf?: string;
  /** The rollup's period; month unless given. */
  by?: 'month' | 'year';
}

/** The per-day tables of 021. */
export const DAY_TABLES: readonly SummaryTable[] = [
  { table: 'stats_day_sums', key: 'intent', keyType: 'text' },
  { table: 'stats_category_day_sums', key: 'category_id', keyType: 'bigint' },
  { table: 'stats_party_day_sums', key: 'party_id', keyType: 'bigint' },
];

/** The per-month rollups of 024. */
export const MONTH_TABLES: readonly SummaryTable[] = DAY_TABLES.map((day) => ({
  ...day,
  table: day.table.replace('_day_sums', '_month_sums'),
  rollupOf: day.table,
}));

const NEW_USERS = `(select distinct user_id from new_rows)`;
const OLD_USERS = `(select distinct user_id from old_rows)`;
const BOTH_USERS = `(select user_id from new_rows union select user_id from old_rows)`;
const NO_ROWS = `(select null::bigint as transaction_id, null::bigint as category_id, null::bigint as user_id where false)`;

/** The per-year rollups of 028. */
export const YEAR_TABLES: readonly SummaryTable[] = DAY_TABLES.map((day) => ({
  ...day,
  table: day.table.replace('_day_sums', '_year_sums'),
  rollupOf: day.table,
  by: 'year' as const,
}));

/** Counts per year and ISO weekday of the local day (028): the weekday counts of long windows. */
export const WEEKDAY_YEAR_TABLE: SummaryTable = { table: 'stats_weekday_year_sums', key: 'weekday', keyType: 'smallint', rollupOf: 'stats_day_sums', by: 'year' };

/** The key's day in `table`: the day, or for a rollup the first day of its month (or year). */
const dayOf = ({ rollupOf, by }: SummaryTable) => (rollupOf ? `date_trunc('${by ?? 'month'}', day)::date` : 'day');

/** The key's value from rows that have a local `day` and the key columns. */
const keyOf = ({ key }: SummaryTable) => (key === 'weekday' ? `extract(isodow from day)::smallint` : key);

/** The users' zones `relation`, with `once` computed once per statement (see zoneOnce). */
const userZones = (relation: string, once: boolean) => (once ? `(with user_zones as materialized ${relation} select * from user_zones)` : relation);

/**
 * Signed contributions of the transaction rows `rows` (alias t, condition `where`) of the users
 * `users` (a relation of user_id): one row per transaction with every key column, `sign` *
 * amount and `sign` as count. Each user's zone is looked up once, not per row, only with
 * `zoneOnce` (see SummaryFunctionOptions). A deleted user's rows contribute nothing: the
 * triggers of an account deletion's cascaded deletes run after the users trigger that removed
 * the account's summary rows. `noLinks`: the rows are new, so no category link can reference
 * them yet (category 0 without a look-up per row).
 */
function contributions(rows: string, sign: number, users: string, where = 'true', { noLinks = false, zoneOnce = false } = {}): string {
  return `
    select t.user_id, (t.datetime at time zone z.zone)::date as day, t.wallet_id, t.type, t.intent,
           ${noLinks ? '0::bigint' : 'coalesce((select min(tc.category_id) from transaction_categories tc where tc.transaction_id = t.id), 0)'} as category_id,
           coalesce(t.party_id, 0) as party_id, ${sign} * t.amount as total, ${sign}::bigint as count
      from ${rows} t
      join ${userZones(`(select u.user_id, stats_time_zone(u.user_id) as zone from ${users} u where exists (select 1 from users where users.id = u.user_id))`, zoneOnce)} z
        on z.user_id = t.user_id
     where t.deleted_at is null and t.transfer_id is null and (${where})`;
}

/** How 029 emits the trigger functions; without options they are what 021-028 emitted. */
export interface SummaryFunctionOptions {
  /** Month and year rows are summed from the statement's day sums, not from every change again. */
  rollUpFromDays?: boolean;
  /**
   * An INSERT into transactions only adds: no count falls to 0 (no deletes), and a new row has
   * no category link yet (links reference it, and every write links in a later statement).
   */
  insertsOnlyAdd?: boolean;
  /**
   * Each user's zone is looked up once per statement (a materialized CTE). Otherwise PostgreSQL
   * pulls the zone subquery up and calls stats_time_zone (a query) once per changed row.
   */
  zoneOnce?: boolean;
}

/**
 * Adds the rows of `changes` (contribution columns) to the given summaries in one statement,
 * then, unless `onlyAdds`, deletes the rows of `users` (a relation of user_id) whose count fell to 0.
 */
function applyChanges(changes: string, users: string, tables: readonly SummaryTable[], { rollUpFromDays = false, onlyAdds = false } = {}): string {
  // with rollUpFromDays each day table's sums are one CTE, read by its upsert and its rollups
  const daySums = (summary: SummaryTable) => `${summary.table}_changes`;
  const summedByDay = (summary: SummaryTable) => rollUpFromDays && !summary.rollupOf && tables.some((other) => other.rollupOf === summary.table);
  const source = (summary: SummaryTable) => {
    if (!rollUpFromDays) return 'changes';
    const day = tables.find((other) => other.table === (summary.rollupOf ?? summary.table));
    return day && summedByDay(day) ? daySums(day) : 'changes';
  };
  const upserts = tables.map((summary) => `
    insert into ${summary.table} as s (user_id, day, wallet_id, type, ${summary.key}, total, count)
    select user_id, ${dayOf(summary)}, wallet_id, type, ${keyOf(summary)}, sum(total), sum(count) from ${source(summary)}
     group by 1, 2, 3, 4, 5 having sum(count) <> 0 or sum(total) <> 0
     order by 1, 2, 3, 4, 5
    on conflict (user_id, day, wallet_id, type, ${summary.key})
    do update set total = s.total + excluded.total, count = s.count + excluded.count`);
  const sums = tables.filter(summedByDay).map((summary) => `, ${daySums(summary)} as materialized (
      select user_id, day, wallet_id, type, ${summary.key}, sum(total) as total, sum(count) as count from changes group by 1, 2, 3, 4, 5)`);
  const ctes = upserts.slice(0, -1).map((upsert, i) => `u${i} as (${upsert} returning 1)`);
  const deletes = onlyAdds ? '' : `
    ${tables.map(({ table }) => `delete from ${table} where count = 0 and user_id in (select user_id from ${users} u);`).join('\n')}`;
  return `with changes as materialized (${changes})${sums.join('')}${ctes.map((cte) => `, ${cte}`).join('')}
    ${upserts[upserts.length - 1]};${deletes}`;
}

/** Rebuilds the users' rows of `tables`: day tables from the transactions, rollups from their day table. */
function rebuildInserts(tables: readonly SummaryTable[], zoneOnce = false): string {
  return tables
    .map((summary) =>
      summary.rollupOf
        ? `
      insert into ${summary.table} (user_id, day, wallet_id, type, ${summary.key}, total, count)
      select user_id, ${dayOf(summary)}, wallet_id, type, ${keyOf(summary)}, sum(total), sum(count)
        from ${summary.rollupOf} where user_id = any(uids)
       group by 1, 2, 3, 4, 5;`
        : `
      insert into ${summary.table} (user_id, day, wallet_id, type, ${summary.key}, total, count)
      select user_id, day, wallet_id, type, ${summary.key}, sum(total), sum(count)
        from (${contributions('transactions', 1, '(select unnest(uids) as user_id)', 't.user_id = any(uids)', { zoneOnce })}) c
       group by 1, 2, 3, 4, 5;`,
    )
    .join('\n');
}

// Before the statement, a transaction's links were the current ones minus those it added plus
// those it removed.
// Each side is aggregated once (EXCEPT ALL and GROUP BY hash the transition tables), not
// looked up per transaction: a statement linking many rows stays linear in its rows.
const firstCategoryMoves = (added: string, removed: string, zoneOnce = false) => `
    with affected as (
      select a0.transaction_id from ${added} a0 union select r0.transaction_id from ${removed} r0
    ), now_links as (
      select tc.transaction_id, tc.category_id from transaction_categories tc
       where tc.transaction_id in (select transaction_id from affected)
    ), before_links as (
      (select transaction_id, category_id from now_links except all select a.transaction_id, a.category_id from ${added} a)
      union all
      select r.transaction_id, r.category_id from ${removed} r
    ), firsts as (
      select f.transaction_id, coalesce(n.first, 0) as new_first, coalesce(b.first, 0) as old_first
        from affected f
        left join (select transaction_id, min(category_id) as first from now_links group by 1) n on n.transaction_id = f.transaction_id
        left join (select transaction_id, min(category_id) as first from before_links group by 1) b on b.transaction_id = f.transaction_id
    ), moved as (
      select t.*, (t.datetime at time zone z.zone)::date as day, f.new_first, f.old_first
        from firsts f
        join transactions t on t.id = f.transaction_id
        join ${userZones(`(select u.user_id, stats_time_zone(u.user_id) as zone
                from (select a1.user_id from ${added} a1 union select r1.user_id from ${removed} r1) u)`, zoneOnce)} z on z.user_id = t.user_id
       where f.old_first <> f.new_first and t.deleted_at is null and t.transfer_id is null
    )
    select user_id, day, wallet_id, type, intent, old_first as category_id, party_id, -amount as total, -1::bigint as count from moved
    union all
    select user_id, day, wallet_id, type, intent, new_first as category_id, party_id, amount as total, 1::bigint as count from moved`;

/**
 * Creates (or replaces) the functions that keep `tables` exact: stats_sums_rebuild(uids) and the
 * statement trigger functions of transactions, transaction_categories and users. The triggers
 * themselves and the zone functions they call are the migrations'.
 */
export async function defineSummaryFunctions(db: Kysely<any>, tables: readonly SummaryTable[], options: SummaryFunctionOptions = {}): Promise<void> {
  const { rollUpFromDays = false, insertsOnlyAdd = false, zoneOnce = false } = options;
  await sql`create or replace function stats_sums_rebuild(uids bigint[]) returns void language plpgsql as $$
    begin
      -- the writers' lock order: their wallets first
      perform 1 from wallets w where w.user_id = any(uids) order by w.id for no key update;
      ${sql.raw(tables.map(({ table }) => `delete from ${table} where user_id = any(uids);`).join('\n'))}
      ${sql.raw(rebuildInserts(tables, zoneOnce))}
    end
  $$`.execute(db);

  // ---- transactions ----------------------------------------------------------------------------
  const summarised = ['user_id', 'datetime', 'wallet_id', 'type', 'intent', 'party_id', 'amount', 'deleted_at is null', 'transfer_id is null'];
  const tuple = (alias: string) => `(${summarised.map((column) => `${alias}.${column}`).join(', ')})`;
  const changedIds = `t.id in (select n.id from new_rows n join old_rows o on o.id = n.id where ${tuple('n')} is distinct from ${tuple('o')})`;
  await sql`create or replace function stats_sums_after_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyChanges(contributions('new_rows', 1, NEW_USERS, 'true', { noLinks: insertsOnlyAdd, zoneOnce }), NEW_USERS, tables, { rollUpFromDays, onlyAdds: insertsOnlyAdd }))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(contributions('old_rows', -1, OLD_USERS, 'true', { zoneOnce }), OLD_USERS, tables, { rollUpFromDays }))}
      else
        ${sql.raw(applyChanges(`${contributions('new_rows', 1, BOTH_USERS, changedIds, { zoneOnce })} union all ${contributions('old_rows', -1, BOTH_USERS, changedIds, { zoneOnce })}`, BOTH_USERS, tables, { rollUpFromDays }))}
      end if;
      return null;
    end
  $$`.execute(db);

  // ---- transaction_categories: a transaction's first category moves --------------------------
  const categoryTables = tables.filter(({ key }) => key === 'category_id');
  await sql`create or replace function stats_sums_after_transaction_categories() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyChanges(firstCategoryMoves('new_rows', NO_ROWS, zoneOnce), NEW_USERS, categoryTables, { rollUpFromDays }))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(firstCategoryMoves(NO_ROWS, 'old_rows', zoneOnce), OLD_USERS, categoryTables, { rollUpFromDays }))}
      else
        ${sql.raw(applyChanges(firstCategoryMoves('new_rows', 'old_rows', zoneOnce), BOTH_USERS, categoryTables, { rollUpFromDays }))}
      end if;
      return null;
    end
  $$`.execute(db);

  // ---- users: an account's rows go with it -----------------------------------------------------
  await sql`create or replace function stats_sums_after_users() returns trigger language plpgsql as $$
    begin
      ${sql.raw(tables.map(({ table }) => `delete from ${table} where user_id in (select id from old_rows);`).join('\n'))}
      delete from stats_sum_zones where user_id in (select id from old_rows);
      return null;
    end
  $$`.execute(db);
}

/** Creates a summary table and the tiny index that finds its rows whose count fell to 0. */
export async function createSummaryTable(db: Kysely<any>, { table, key, keyType }: SummaryTable): Promise<void> {
  await sql`create table ${sql.table(table)} (
      user_id bigint not null,
      day date not null,
      wallet_id bigint not null,
      type text not null,
      ${sql.id(key)} ${sql.raw(keyType)} not null,
      total numeric not null,
      count bigint not null,
      primary key (user_id, day, wallet_id, type, ${sql.id(key)})
    )`.execute(db);
  await sql`create index ${sql.id(`${table}_empty_idx`)} on ${sql.table(table)} (user_id) where count = 0`.execute(db);
}
