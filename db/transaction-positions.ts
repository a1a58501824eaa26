// Where a deep page of the transaction list starts, from the live rows' counts per wallet and
// UTC day (migration 047) instead of an offset that walks every row before it. The list is
// ordered by `datetime` first, so the rows of the days after a day come before its rows: the
// row at position P is in the latest day D whose later days hold at most P rows, and the page
// reads the rows dated before D's end, skipping only rows of D itself (at most a day's rows).
import { sql, type Kysely } from 'kysely';
import type { PageStart } from './feed.js';
import type { Database } from './schema.js';
import type { TransactionFilters } from './transactions.js';

const DAY_MS = 86_400_000;

/**
 * Where the pages of a list with these filters start, when the day counts can tell: a list of
 * every live row, or of some wallets' (any other filter, or leaving out rows with a client id,
 * changes which rows count).
 */
export function transactionPageStarts(db: Kysely<Database>, userId: number, filters: TransactionFilters, noClientId: boolean | undefined) {
  const countedByDay = !noClientId && Object.entries(filters).every(([key, value]) => key === 'walletIds' || value === undefined || value === false || (Array.isArray(value) && value.length === 0));
  return countedByDay ? (offset: number) => transactionPageStart(db, userId, filters.walletIds, offset) : undefined;
}

/**
 * The start of position `offset` in the user's live transactions (of `walletIds`, when given),
 * in the list's order; null when the list has no row at that position.
 */
export async function transactionPageStart(db: Kysely<Database>, userId: number, walletIds: readonly number[] | undefined, offset: number): Promise<PageStart | null> {
  // integer counts: summed as bigint, where a sum of bigints is numeric arithmetic (several times slower)
  const { rows } = await sql<{ day: string; before: number }>`
    select day, before from (
      select day, sum(count) over (order by day desc) - count as before
        from (select day, sum(count)::int as count from transaction_day_counts
               where user_id = ${userId} ${walletIds?.length ? sql`and wallet_id = any(${[...walletIds]}::bigint[])` : sql``}
               group by day having sum(count) > 0) days
    ) positions
    where before <= ${offset}
    order by day asc limit 1`.execute(db);
  const day = rows[0];
  if (!day) return null;
  const dayEnd = new Date(Date.parse(`${day.day}T00:00:00Z`) + DAY_MS);
  return { position: Number(day.before), where: sql<boolean>`transactions.datetime < ${dayEnd}` };
}
