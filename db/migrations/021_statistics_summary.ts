// 021 statistics summary: GET /stats reads per-day sums instead of aggregating every row of its
// window (a 30-day window at 1,000,000 rows is ~27,000 rows plus one category probe each).
//
// Three narrow tables of live, non-transfer transactions, each keyed by user, LOCAL day (the
// user's `timezone` configuration, UTC when unset), wallet (so currency) and type, plus one
// dimension, with sum(amount) and count:
//   stats_day_sums           + intent           (the daily sums and the position section)
//   stats_category_day_sums  + first category   (lowest linked category id; 0 = none)
//   stats_party_day_sums     + party            (0 = none)
// Separate tables rather than one row per full combination keep the rows far fewer.
//
// Maintained by statement-level triggers with transition tables, in the same database
// transaction as every write, so no write path needs to know about them:
// - on transactions (insert/update/delete): the old rows' contribution is taken away and the
//   new rows' added; an update that changes none of the summarised columns contributes nothing.
// - on transaction_categories: a transaction whose first category changed moves from the old
//   one to the new one in stats_category_day_sums.
// - on configurations: a change of the effective `timezone` records it in stats_sum_zones (the
//   zone each user's rows are kept in; none: UTC) and rebuilds that user's rows from scratch
//   (INSERT ... SELECT: no transaction row is updated, so no sync stamp moves).
// - on users (delete): the user's rows go (the triggers above ignore users that are gone).
// Rows are keyed by wallet and writers lock their wallets first (moveBalances), so the trigger's
// row locks sit behind locks the writer already holds; the rows are upserted in key order.
// A zone PostgreSQL does not know counts as UTC here; the reader then uses the raw rows.
// An index (user, wallet, type, amount desc, id) of live non-transfer rows serves the largest
// rows of a window top-down.
import { sql, type Kysely } from 'kysely';

const TABLES = [
  { table: 'stats_day_sums', key: 'intent', keyType: 'text' },
  { table: 'stats_category_day_sums', key: 'category_id', keyType: 'bigint' },
  { table: 'stats_party_day_sums', key: 'party_id', keyType: 'bigint' },
] as const;
type Summary = (typeof TABLES)[number];

const NEW_USERS = `(select distinct user_id from new_rows)`;
const OLD_USERS = `(select distinct user_id from old_rows)`;
const BOTH_USERS = `(select user_id from new_rows union select user_id from old_rows)`;
const NO_ROWS = `(select null::bigint as transaction_id, null::bigint as category_id, null::bigint as user_id where false)`;

/**
 * Signed contributions of the transaction rows `rows` (alias t, condition `where`) of the users
 * `users` (a relation of user_id): one row per transaction with every key column, `sign` *
 * amount and `sign` as count. Each user's zone is looked up once, not per row. A deleted
 * user's rows contribute nothing: the triggers of an account deletion's cascaded deletes run
 * after the users trigger that removed the account's summary rows.
 */
function contributions(rows: string, sign: number, users: string, where = 'true'): string {
  return `
    select t.user_id, (t.datetime at time zone z.zone)::date as day, t.wallet_id, t.type, t.intent,
           coalesce((select min(tc.category_id) from transaction_categories tc where tc.transaction_id = t.id), 0) as category_id,
           coalesce(t.party_id, 0) as party_id, ${sign} * t.amount as total, ${sign}::bigint as count
      from ${rows} t
      join (select u.user_id, stats_time_zone(u.user_id) as zone from ${users} u where exists (select 1 from users where users.id = u.user_id)) z
        on z.user_id = t.user_id
     where t.deleted_at is null and t.transfer_id is null and (${where})`;
}

/**
 * Adds the rows of `changes` (contribution columns) to the given summaries in one statement,
 * then deletes the rows of `users` (a relation of user_id) whose count fell to 0.
 */
function applyChanges(changes: string, users: string, tables: readonly Summary[] = TABLES): string {
  const upserts = tables.map(({ table, key }) => `
    insert into ${table} as s (user_id, day, wallet_id, type, ${key}, total, count)
    select user_id, day, wallet_id, type, ${key}, sum(total), sum(count) from changes
     group by 1, 2, 3, 4, 5 having sum(count) <> 0 or sum(total) <> 0
     order by 1, 2, 3, 4, 5
    on conflict (user_id, day, wallet_id, type, ${key})
    do update set total = s.total + excluded.total, count = s.count + excluded.count`);
  const ctes = upserts.slice(0, -1).map((upsert, i) => `u${i} as (${upsert} returning 1)`);
  return `with changes as materialized (${changes})${ctes.map((cte) => `, ${cte}`).join('')}
    ${upserts[upserts.length - 1]};
    ${tables.map(({ table }) => `delete from ${table} where count = 0 and user_id in (select user_id from ${users} u);`).join('\n')}`;
}

/** `<table>_stats_sums_<event>` after insert, update and delete, each with its transition tables. */
async function createStatementTriggers(db: Kysely<any>, table: string, fn: string): Promise<void> {
  for (const [event, referencing] of [
    ['insert', 'new table as new_rows'],
    ['update', 'old table as old_rows new table as new_rows'],
    ['delete', 'old table as old_rows'],
  ]) {
    await sql`create trigger ${sql.id(`${table}_stats_sums_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(referencing)} for each statement execute function ${sql.id(fn)}()`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const { table, key, keyType } of TABLES) {
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
    // rows whose count fell to 0 are deleted right after each change: found by this tiny index
    await sql`create index ${sql.id(`${table}_empty_idx`)} on ${sql.table(table)} (user_id) where count = 0`.execute(db);
  }

  // The zone a configuration value asks for: its string, else UTC (as db/transactions.ts
  // userTimeZone reads it), and UTC for a name PostgreSQL cannot use. An exception block (a
  // subtransaction) tests the name, so it runs only when the setting is written.
  await sql`create function stats_zone_of(value jsonb, deleted_at timestamptz) returns text language plpgsql stable as $$
    declare zone text;
    begin
      if deleted_at is not null or value is null or jsonb_typeof(value) <> 'string' or value #>> '{}' = '' then
        return 'UTC';
      end if;
      zone := value #>> '{}';
      begin
        perform now() at time zone zone;
      exception when others then
        return 'UTC';
      end;
      return zone;
    end
  $$`.execute(db);
  await sql`create function stats_configured_zone(uid bigint) returns text language sql stable as $$
    select coalesce((select stats_zone_of(c.value, c.deleted_at) from configurations c where c.user_id = uid and c.key = 'timezone'), 'UTC')
  $$`.execute(db);
  // The zone each user's summary rows are kept in (no row: UTC), read by every trigger and read
  // of the summary; written with the rebuild when the setting changes.
  await sql`create table stats_sum_zones (user_id bigint primary key, zone text not null)`.execute(db);
  await sql`create function stats_time_zone(uid bigint) returns text language sql stable as $$
    select coalesce((select z.zone from stats_sum_zones z where z.user_id = uid), 'UTC')
  $$`.execute(db);

  const rebuildInserts = TABLES.map(({ table, key }) => `
      insert into ${table} (user_id, day, wallet_id, type, ${key}, total, count)
      select user_id, day, wallet_id, type, ${key}, sum(total), sum(count)
        from (${contributions('transactions', 1, '(select unnest(uids) as user_id)', 't.user_id = any(uids)')}) c
       group by 1, 2, 3, 4, 5;`);
  await sql`create function stats_sums_rebuild(uids bigint[]) returns void language plpgsql as $$
    begin
      -- the writers' lock order: their wallets first
      perform 1 from wallets w where w.user_id = any(uids) order by w.id for no key update;
      ${sql.raw(TABLES.map(({ table }) => `delete from ${table} where user_id = any(uids);`).join('\n'))}
      ${sql.raw(rebuildInserts.join('\n'))}
    end
  $$`.execute(db);

  // ---- transactions ----------------------------------------------------------------------------
  const summarised = ['user_id', 'datetime', 'wallet_id', 'type', 'intent', 'party_id', 'amount', 'deleted_at is null', 'transfer_id is null'];
  const tuple = (alias: string) => `(${summarised.map((column) => `${alias}.${column}`).join(', ')})`;
  const changedIds = `t.id in (select n.id from new_rows n join old_rows o on o.id = n.id where ${tuple('n')} is distinct from ${tuple('o')})`;
  await sql`create function stats_sums_after_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyChanges(contributions('new_rows', 1, NEW_USERS), NEW_USERS))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(contributions('old_rows', -1, OLD_USERS), OLD_USERS))}
      else
        ${sql.raw(applyChanges(`${contributions('new_rows', 1, BOTH_USERS, changedIds)} union all ${contributions('old_rows', -1, BOTH_USERS, changedIds)}`, BOTH_USERS))}
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'transactions', 'stats_sums_after_transactions');

  // ---- transaction_categories: a transaction's first category moves --------------------------
  // Before the statement, a transaction's links were the current ones minus those it added plus
  // those it removed.
  // Each side is aggregated once (EXCEPT ALL and GROUP BY hash the transition tables), not
  // looked up per transaction: a statement linking many rows stays linear in its rows.
  const firstCategoryMoves = (added: string, removed: string) => `
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
        join (select u.user_id, stats_time_zone(u.user_id) as zone
                from (select a1.user_id from ${added} a1 union select r1.user_id from ${removed} r1) u) z on z.user_id = t.user_id
       where f.old_first <> f.new_first and t.deleted_at is null and t.transfer_id is null
    )
    select user_id, day, wallet_id, type, intent, old_first as category_id, party_id, -amount as total, -1::bigint as count from moved
    union all
    select user_id, day, wallet_id, type, intent, new_first as category_id, party_id, amount as total, 1::bigint as count from moved`;
  const categoryTable = TABLES.filter(({ table }) => table === 'stats_category_day_sums');
  await sql`create function stats_sums_after_transaction_categories() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyChanges(firstCategoryMoves('new_rows', NO_ROWS), NEW_USERS, categoryTable))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(firstCategoryMoves(NO_ROWS, 'old_rows'), OLD_USERS, categoryTable))}
      else
        ${sql.raw(applyChanges(firstCategoryMoves('new_rows', 'old_rows'), BOTH_USERS, categoryTable))}
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'transaction_categories', 'stats_sums_after_transaction_categories');

  // ---- configurations: the time zone changed ---------------------------------------------------
  const zoneChanged = (rows: string) => `
    select array_agg(u.user_id) from (${rows}) u
    where exists (select 1 from users where users.id = u.user_id)
      and stats_configured_zone(u.user_id) <> stats_time_zone(u.user_id)`;
  const timeZoneRows = (rows: string) => `select user_id from ${rows} x where x.key = 'timezone'`;
  await sql`create function stats_sums_after_configurations() returns trigger language plpgsql as $$
    declare uids bigint[];
    begin
      if tg_op = 'INSERT' then
        uids := (${sql.raw(zoneChanged(timeZoneRows('new_rows')))});
      elsif tg_op = 'DELETE' then
        uids := (${sql.raw(zoneChanged(timeZoneRows('old_rows')))});
      else
        uids := (${sql.raw(zoneChanged(`${timeZoneRows('new_rows')} union ${timeZoneRows('old_rows')}`))});
      end if;
      if uids is not null then
        delete from stats_sum_zones where user_id = any(uids);
        insert into stats_sum_zones (user_id, zone)
          select u.id, stats_configured_zone(u.id) from unnest(uids) as u(id) where stats_configured_zone(u.id) <> 'UTC';
        perform stats_sums_rebuild(uids);
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'configurations', 'stats_sums_after_configurations');

  // ---- users: an account's rows go with it -----------------------------------------------------
  await sql`create function stats_sums_after_users() returns trigger language plpgsql as $$
    begin
      ${sql.raw(TABLES.map(({ table }) => `delete from ${table} where user_id in (select id from old_rows);`).join('\n'))}
      delete from stats_sum_zones where user_id in (select id from old_rows);
      return null;
    end
  $$`.execute(db);
  await sql`create trigger users_stats_sums_delete after delete on users
    referencing old table as old_rows for each statement execute function stats_sums_after_users()`.execute(db);

  // GET /stats's largest rows: per wallet and type, top-down by amount (ties: the lowest id)
  // until a row falls in the window, instead of two scans of the window (db/statistics.ts)
  await sql`create index transactions_user_largest_idx on transactions (user_id, wallet_id, type, amount desc, id)
    include (datetime) where deleted_at is null and transfer_id is null`.execute(db);

  // backfill every user's rows (INSERT ... SELECT: transactions are only read)
  await sql`insert into stats_sum_zones (user_id, zone)
    select c.user_id, stats_zone_of(c.value, c.deleted_at) from configurations c
     where c.key = 'timezone' and stats_zone_of(c.value, c.deleted_at) <> 'UTC'`.execute(db);
  await sql`select stats_sums_rebuild(array(select id from users))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index transactions_user_largest_idx`.execute(db);
  for (const event of ['insert', 'update', 'delete']) {
    await sql`drop trigger ${sql.id(`transactions_stats_sums_${event}`)} on transactions`.execute(db);
    await sql`drop trigger ${sql.id(`transaction_categories_stats_sums_${event}`)} on transaction_categories`.execute(db);
    await sql`drop trigger ${sql.id(`configurations_stats_sums_${event}`)} on configurations`.execute(db);
  }
  await sql`drop trigger users_stats_sums_delete on users`.execute(db);
  for (const fn of ['stats_sums_after_transactions', 'stats_sums_after_transaction_categories', 'stats_sums_after_configurations', 'stats_sums_after_users']) {
    await sql`drop function ${sql.id(fn)}()`.execute(db);
  }
  await sql`drop function stats_sums_rebuild(bigint[])`.execute(db);
  await sql`drop function stats_time_zone(bigint)`.execute(db);
  await sql`drop table stats_sum_zones`.execute(db);
  await sql`drop function stats_configured_zone(bigint)`.execute(db);
  await sql`drop function stats_zone_of(jsonb, timestamptz)`.execute(db);
  for (const { table } of TABLES) await db.schema.dropTable(table).execute();
}
