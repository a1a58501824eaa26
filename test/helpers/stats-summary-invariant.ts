// The statistics summary invariant: every row of the per-day summary tables (migration 021), of
// their monthly (024) and yearly (028) rollups and of the counts per year and weekday (028) equals a from-scratch recount over the user's live, non-transfer
// transactions in `timeZone`, and no recounted row is missing; compared exactly in SQL (numeric
// sums, no float).
import { sql } from 'kysely';
import type { TestApp } from './harness.js';

// A split transaction (046) counts each line under its own category (0: none) and party (the
// line's, else the transaction's), once per distinct key; one without lines counts whole under
// its first category and its party.
const splitParts = (key: ReturnType<typeof sql>) => sql`
  select ${key}::text as key, sum(s.amount) as total, 1 as count from transaction_splits s where s.transaction_id = t.id group by 1`;
const unsplit = (key: ReturnType<typeof sql>) => sql`
  select ${key}::text as key, t.amount as total, 1 as count where not exists (select 1 from transaction_splits s where s.transaction_id = t.id)`;
const KEYS = [
  { table: 'stats_day_sums', key: sql`t.intent`, column: 'intent' },
  {
    table: 'stats_category_day_sums',
    parts: sql`${unsplit(sql`coalesce((select min(tc.category_id) from transaction_categories tc where tc.transaction_id = t.id), 0)`)} union all ${splitParts(sql`coalesce(s.category_id, 0)`)}`,
    column: 'category_id',
  },
  { table: 'stats_party_day_sums', parts: sql`${unsplit(sql`coalesce(t.party_id, 0)`)} union all ${splitParts(sql`coalesce(s.party_id, t.party_id, 0)`)}`, column: 'party_id' },
];
const DIMENSIONS = [
  ...KEYS.map((k) => ({ ...k, by: 'day' as const })),
  ...KEYS.map((k) => ({ ...k, table: k.table.replace('_day_sums', '_month_sums'), by: 'month' as const })),
  ...KEYS.map((k) => ({ ...k, table: k.table.replace('_day_sums', '_year_sums'), by: 'year' as const })),
  // the key is the local day's ISO weekday (1 = Monday), not a column of the transaction
  { table: 'stats_weekday_year_sums', key: undefined, column: 'weekday', by: 'year' as const },
];

/** Rows that differ, as `table: stored|recounted day wallet type key total count`; [] when all hold. */
export async function summaryOffRecount(api: TestApp, userId: number, timeZone: string): Promise<string[]> {
  const off: string[] = [];
  for (const dimension of DIMENSIONS) {
    const { table, column, by } = dimension;
    const day = sql`(t.datetime at time zone ${timeZone})::date`;
    const parts = 'parts' in dimension && dimension.parts ? dimension.parts : sql`select ${'key' in dimension && dimension.key ? dimension.key : sql`extract(isodow from ${day})`}::text as key, t.amount as total, 1 as count`;
    const { rows } = await sql<any>`
      with recount as (
        select ${by === 'day' ? day : sql`date_trunc(${sql.lit(by)}, ${day})::date`}::text as day, t.wallet_id, t.type, p.key, sum(p.total) as total, sum(p.count) as count
          from transactions t cross join lateral (${parts}) p
         where t.user_id = ${userId} and t.deleted_at is null and t.transfer_id is null
         group by 1, 2, 3, 4
      ), stored as (
        select s.day::text as day, s.wallet_id, s.type, s.${sql.ref(column)}::text as key, s.total, s.count
          from ${sql.table(table)} s where s.user_id = ${userId}
      )
      (select 'stored' as side, * from stored except select 'stored', * from recount)
      union all
      (select 'recounted', * from recount except select 'recounted', * from stored)`.execute(api.db);
    for (const row of rows) off.push(`${table}: ${row.side} ${row.day} ${row.wallet_id} ${row.type} ${row.key} ${row.total} ${row.count}`);
  }
  return off.sort();
}
