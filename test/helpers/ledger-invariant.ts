// The ledger invariant: every live wallet's balance equals its opening balance plus the
// signed sum of its live transactions (transfer legs included), summed exactly in SQL.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Wallets of the user whose balance disagrees with their ledger: [] when every one holds. */
export async function walletsOffLedger(db: Kysely<Database>, userId: number): Promise<Array<{ id: number; balance: string; ledger: string }>> {
  const rows = await db
    .selectFrom('wallets as w')
    .select([
      'w.id',
      'w.balance',
      sql<string>`(w.opening_balance + coalesce((select sum(case when t.type = 'income' then t.amount else -t.amount end) from transactions t where t.wallet_id = w.id and t.deleted_at is null), 0))::text`.as('ledger'),
      sql<boolean>`w.balance = w.opening_balance + coalesce((select sum(case when t.type = 'income' then t.amount else -t.amount end) from transactions t where t.wallet_id = w.id and t.deleted_at is null), 0)`.as('holds'),
    ])
    .where('w.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .execute();
  return rows.filter((row) => !row.holds).map(({ id, balance, ledger }) => ({ id, balance, ledger }));
}
