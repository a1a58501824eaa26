// 024 statistics month sums: monthly rollups of 021's per-day summary tables, so a long window
// of GET /stats reads its whole months from them and only its partial months from the day rows
// (all time at 1,000,000 transactions: ~300,000 day rows became ~10,000 month rows and ~1,000
// day rows).
//
//   stats_month_sums           = stats_day_sums           by month
//   stats_category_month_sums  = stats_category_day_sums  by month
//   stats_party_month_sums     = stats_party_day_sums     by month
// Same columns; `day` is the first day of the local month. Kept exact by the same statement
// triggers as the day tables (their functions are redefined over all six tables: each change
// is added to a day row and to its month row, in the same statement), rebuilt with them when
// the time zone changes (from the day rows), and removed with them when an account goes.
import { sql, type Kysely } from 'kysely';
import { createSummaryTable, DAY_TABLES, defineSummaryFunctions, MONTH_TABLES } from './stats-summary-functions.js';

export async function up(db: Kysely<any>): Promise<void> {
  for (const summary of MONTH_TABLES) await createSummaryTable(db, summary);
  await defineSummaryFunctions(db, [...DAY_TABLES, ...MONTH_TABLES]);
  // backfill from the day rows; writes that ran the old trigger functions commit before it, later
  // ones wait for the new functions (the migrations run in one transaction)
  await sql`lock table transactions, transaction_categories, configurations in share mode`.execute(db);
  for (const { table, key, rollupOf } of MONTH_TABLES) {
    await sql`insert into ${sql.table(table)} (user_id, day, wallet_id, type, ${sql.id(key)}, total, count)
      select user_id, date_trunc('month', day)::date, wallet_id, type, ${sql.id(key)}, sum(total), sum(count)
        from ${sql.table(rollupOf!)} group by 1, 2, 3, 4, 5`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await defineSummaryFunctions(db, DAY_TABLES);
  for (const { table } of MONTH_TABLES) await db.schema.dropTable(table).execute();
}
