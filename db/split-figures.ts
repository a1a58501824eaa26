// What a split transaction (migration 046) counts in the statistics' raw reads: the rows it is
// expanded into. (The summaries keep the same per transaction by trigger; the budgets' raw SQL is
// countedAmount/countedRefund in budget-window-sql.ts.)
import { sql, type RawBuilder } from 'kysely';

/**
 * The parts the transaction `alias` counts in, as the statistics summary keeps them (046): a
 * transaction without splits is one part (its first category, its party); a split one a part
 * per line (the line's category, its party or else the transaction's). Columns category_id,
 * party_id, amount, and the counts each part adds: transactions (1 for one part of each
 * transaction), categories and parties (1 for the first part of each category or party).
 */
export function transactionParts(alias: string): RawBuilder<unknown> {
  const t = sql.table(alias);
  return sql`
        select min(tc.category_id) as category_id, ${t}.party_id, ${t}.amount, 1 as transactions, 1 as categories, 1 as parties
          from transaction_categories tc where tc.transaction_id = ${t}.id
        having not exists (select 1 from transaction_splits s where s.transaction_id = ${t}.id)
        union all
        select s.category_id, coalesce(s.party_id, ${t}.party_id), s.amount, (s.position = 0)::int,
               (row_number() over (partition by s.category_id order by s.position) = 1)::int,
               (row_number() over (partition by coalesce(s.party_id, ${t}.party_id) order by s.position) = 1)::int
          from transaction_splits s where s.transaction_id = ${t}.id`;
}
