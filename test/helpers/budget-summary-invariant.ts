// The budget summary invariant (migration 023): every row of budget_day_sums and
// budget_multi_links equals a from-scratch recount over the user's live, non-transfer expenses
// and their category links in `timeZone`, and no recounted row is missing; compared exactly in
// SQL (numeric sums, no float).
import { sql } from 'kysely';
import type { TestApp } from './harness.js';

/** Rows that differ, as `table: stored|recounted …`; [] when all hold. */
export async function budgetSummaryOffRecount(api: TestApp, userId: number, timeZone: string): Promise<string[]> {
  const counted = sql`t.user_id = ${userId} and t.deleted_at is null and t.transfer_id is null and t.type = 'expense'`;
  const day = sql`(t.datetime at time zone ${timeZone})::date::text`;
  const { rows: sums } = await sql<any>`
    with recount as (
      select ${day} as day, t.wallet_id, coalesce(t.group_id, 0) as group_id, l.category_id, sum(l.amount) as total, sum(l.count) as count
        from transactions t
        -- every expense whole under category 0; under each linked category whole, or, split (046),
        -- its lines' sum under each line category
        cross join lateral (select 0::bigint as category_id, t.amount, 1 as count union all
                            select tc.category_id, t.amount, 1 from transaction_categories tc where tc.transaction_id = t.id
                               and not exists (select 1 from transaction_splits s where s.transaction_id = t.id) union all
                            select s.category_id, sum(s.amount), 1 from transaction_splits s where s.transaction_id = t.id and s.category_id is not null
                             group by 1) l
       where ${counted}
       group by 1, 2, 3, 4
    ), stored as (
      select s.day::text as day, s.wallet_id, s.group_id, s.category_id, s.total, s.count from budget_day_sums s where s.user_id = ${userId}
    )
    (select 'stored' as side, * from stored except select 'stored', * from recount)
    union all
    (select 'recounted', * from recount except select 'recounted', * from stored)`.execute(api.db);
  const { rows: links } = await sql<any>`
    with recount as (
      select ${day} as day, tc.category_id, t.id as transaction_id, t.wallet_id, coalesce(t.group_id, 0) as group_id, t.amount
        from transactions t join transaction_categories tc on tc.transaction_id = t.id
       where ${counted} and (select count(*) from transaction_categories c where c.transaction_id = t.id) > 1
    ), stored as (
      select m.day::text as day, m.category_id, m.transaction_id, m.wallet_id, m.group_id, m.amount from budget_multi_links m where m.user_id = ${userId}
    )
    (select 'stored' as side, * from stored except select 'stored', * from recount)
    union all
    (select 'recounted', * from recount except select 'recounted', * from stored)`.execute(api.db);
  return [
    ...sums.map((r) => `budget_day_sums: ${r.side} ${r.day} ${r.wallet_id} ${r.group_id} ${r.category_id} ${r.total} ${r.count}`),
    ...links.map((r) => `budget_multi_links: ${r.side} ${r.day} ${r.category_id} ${r.transaction_id} ${r.wallet_id} ${r.group_id} ${r.amount}`),
  ].sort();
}

/** The zone the user's budget summary is kept in. */
export async function budgetSummaryZone(api: TestApp, userId: number): Promise<string> {
  return (await sql<{ zone: string }>`select budget_sum_zone(${userId}) as zone`.execute(api.db)).rows[0].zone;
}
