// 028 statistics year sums: yearly rollups of 021's per-day summary tables, and transaction
// counts per year and ISO weekday, so GET /stats over years (all time) reads tens of rows per
// key instead of every month row (category sums at 1,000,000 transactions: ~4,800 month rows)
// and its weekday counts without every day row (~11,000).
//
//   stats_year_sums           = stats_day_sums           by year
//   stats_category_year_sums  = stats_category_day_sums  by year
//   stats_party_year_sums     = stats_party_day_sums     by year
//   stats_weekday_year_sums   = stats_day_sums           by year and ISO weekday of the day (key `weekday`, 1 = Monday)
// Same columns as the day tables; `day` is January 1st of the local year. Kept exact by the same
// statement triggers (each change is added to its day, month and year rows and its weekday row in
// one statement), rebuilt from the day rows when the time zone changes, removed with the account.
import { sql, type Kysely } from 'kysely';
import { createSummaryTable, DAY_TABLES, defineSummaryFunctions, MONTH_TABLES, WEEKDAY_YEAR_TABLE, YEAR_TABLES } from './stats-summary-functions.js';

const NEW_TABLES = [...YEAR_TABLES, WEEKDAY_YEAR_TABLE];

export async function up(db: Kysely<any>): Promise<void> {
  for (const summary of NEW_TABLES) await createSummaryTable(db, summary);
  await defineSummaryFunctions(db, [...DAY_TABLES, ...MONTH_TABLES, ...NEW_TABLES]);
  // backfill from the day rows; writes that ran the old trigger functions commit before it, later
  // ones wait for the new functions (the migrations run in one transaction)
  await sql`lock table transactions, transaction_categories, configurations in share mode`.execute(db);
  for (const { table, key, rollupOf } of NEW_TABLES) {
    const keyValue = key === 'weekday' ? sql`extract(isodow from day)::smallint` : sql.ref(key);
    await sql`insert into ${sql.table(table)} (user_id, day, wallet_id, type, ${sql.id(key)}, total, count)
      select user_id, date_trunc('year', day)::date, wallet_id, type, ${keyValue}, sum(total), sum(count)
        from ${sql.table(rollupOf!)} group by 1, 2, 3, 4, 5`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await defineSummaryFunctions(db, [...DAY_TABLES, ...MONTH_TABLES]);
  for (const { table } of NEW_TABLES) await db.schema.dropTable(table).execute();
}
