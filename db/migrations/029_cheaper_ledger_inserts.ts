// 029 cheaper ledger inserts: what an INSERT into transactions pays in its statement triggers
// (every ledger write: POST /transactions, transfers, both imports, sync pushes). Measured on
// 2,000 plain rows at 1,000,000 rows (docs/performance.md, "Cheaper inserts into the ledger").
//
// An insert only adds: each new row contributes count +1, so no summary row's count can fall
// to 0 and the "delete where count = 0" statements of 021/023 have nothing to find. And a new
// row has no category link yet: transaction_categories references (id, user_id) of
// transactions through a non-deferrable foreign key, and every write links its rows in a later
// statement (021-023 already count on that: their link triggers add each link's move as it
// comes), so the per-row look-up of a first category and the join to the links find nothing.
//
// - statistics (021/024/028): the same functions, emitted with `zoneOnce` (PostgreSQL pulled
//   the zone subquery into the join and called stats_time_zone, a query, once per changed row),
//   `insertsOnlyAdd` (category 0, no deletes on insert) and `rollUpFromDays`: on every event
//   the month, year and weekday rows are summed from the statement's day sums (a few hundred
//   rows) instead of each re-grouping every change.
// - budgets (023) and list totals (022): the insert triggers call new insert-only functions;
//   the update and delete triggers keep the functions of 022/023.
// - 002's transactions_user_datetime_idx (user, datetime desc, id desc, every row) goes: no
//   query was found to need it (idx_scan 0 over the list, sync, stats, budgets and writes
//   benches and the list routes with each filter; the list reads live rows in 012's order, sync
//   feeds by stamp, a user's cascade finds rows through (user_id, last_synced_at, id)); the one
//   query seen to pick it (the assistant's recent transactions, live rows by date) reads 013's
//   (user_id, datetime) index of live rows as fast. transactions_user_type_datetime_idx, as
//   unused in the benches, stays: a list filtered by type reads it (EXPLAIN: type=income and
//   type with a date window twice as slow without it).
import { sql, type Kysely } from 'kysely';
import { DAY_TABLES, defineSummaryFunctions, MONTH_TABLES, WEEKDAY_YEAR_TABLE, YEAR_TABLES } from './stats-summary-functions.js';

const SUMMARY_TABLES = [...DAY_TABLES, ...MONTH_TABLES, ...YEAR_TABLES, WEEKDAY_YEAR_TABLE];

/** The insert triggers of 022 and 023, and the functions they call before and after 029. */
const INSERT_TRIGGERS = [
  { trigger: 'transactions_budget_sums_insert', before: 'budget_sums_after_transactions', after: 'budget_sums_after_transactions_insert' },
  { trigger: 'transactions_list_totals_insert', before: 'transaction_list_totals_from_transactions', after: 'transaction_list_totals_after_transactions_insert' },
];

async function pointInsertTrigger(db: Kysely<any>, trigger: string, fn: string): Promise<void> {
  await sql`drop trigger ${sql.id(trigger)} on transactions`.execute(db);
  await sql`create trigger ${sql.id(trigger)} after insert on transactions
    referencing new table as new_rows for each statement execute function ${sql.id(fn)}()`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await defineSummaryFunctions(db, SUMMARY_TABLES, { rollUpFromDays: true, insertsOnlyAdd: true, zoneOnce: true });

  // 023's insert branch without its delete: live expenses, category 0, in the zone budgets keep
  // each user's zone looked up once, not once per row (see zoneOnce in stats-summary-functions.ts)
  await sql`create function budget_sums_after_transactions_insert() returns trigger language plpgsql as $$
    begin
      insert into budget_day_sums as s (user_id, category_id, day, wallet_id, group_id, total, count)
      select t.user_id, 0::bigint, (t.datetime at time zone z.zone)::date, t.wallet_id, coalesce(t.group_id, 0), sum(t.amount), count(*)
        from new_rows t
        join (with user_zones as materialized (
                select u.user_id, budget_sum_zone(u.user_id) as zone from (select distinct user_id from new_rows) u
                 where exists (select 1 from users where users.id = u.user_id)) select * from user_zones) z on z.user_id = t.user_id
       where t.deleted_at is null and t.transfer_id is null and t.type = 'expense'
       group by 1, 2, 3, 4, 5
       order by 1, 2, 3, 4, 5
      on conflict (user_id, category_id, day, wallet_id, group_id)
      do update set total = s.total + excluded.total, count = s.count + excluded.count;
      return null;
    end
  $$`.execute(db);

  // 022's insert branch without the links: the wallets of the live rows locked in id order, then
  // their rows added in key order
  await sql`create function transaction_list_totals_after_transactions_insert() returns trigger language plpgsql as $$
    begin
      perform 1 from wallets w where w.id in (select r.wallet_id from new_rows r where r.deleted_at is null) order by w.id for no key update;
      insert into transaction_list_totals as s (user_id, wallet_id, category_id, type, intent, is_transfer, count, total)
      select r.user_id, r.wallet_id, 0::bigint, r.type, r.intent, r.transfer_id is not null, count(*), sum(r.amount)
        from new_rows r where r.deleted_at is null
       group by r.user_id, r.wallet_id, r.type, r.intent, r.transfer_id is not null
       order by 2, 3, 4, 5, 6
      on conflict (wallet_id, category_id, type, intent, is_transfer)
      do update set count = s.count + excluded.count, total = s.total + excluded.total;
      return null;
    end
  $$`.execute(db);

  for (const { trigger, after } of INSERT_TRIGGERS) await pointInsertTrigger(db, trigger, after);

  await sql`drop index transactions_user_datetime_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index transactions_user_datetime_idx on transactions (user_id, datetime desc, id desc)`.execute(db);
  for (const { trigger, before, after } of INSERT_TRIGGERS) {
    await pointInsertTrigger(db, trigger, before);
    await sql`drop function ${sql.id(after)}()`.execute(db);
  }
  await defineSummaryFunctions(db, SUMMARY_TABLES);
}
