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
import { createSummaryTable, DAY_TABLES as TABLES, defineSummaryFunctions } from './stats-summary-functions.js';

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
  for (const summary of TABLES) await createSummaryTable(db, summary);

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

  // the rebuild and the trigger functions of transactions, transaction_categories and users
  await defineSummaryFunctions(db, TABLES);
  await createStatementTriggers(db, 'transactions', 'stats_sums_after_transactions');
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

  // ---- users: an account's rows go with it (stats_sums_after_users)
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
