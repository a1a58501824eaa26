// Wallet queries beyond the shared sync ones: the wallet rows with their icons, and their
// stats (income and expense totals of live transactions, transfer legs included), summed in
// SQL for many wallets at once so a page of wallets costs one query, not one per wallet.
import { sql, type Kysely } from 'kysely';
import { withIcon } from './icons.js';
import type { Database } from './schema.js';
import { selectSynced } from './sync.js';

/** The user's wallets (deleted ones included) with everything the wallet view needs but stats. */
export function selectWallets(db: Kysely<Database>, userId: number) {
  return withIcon(selectSynced(db, 'wallets', userId), 'wallets');
}

/** Exact decimal strings, as PostgreSQL sums numeric. */
export interface WalletTotals {
  total_income: string;
  total_expense: string;
}

/** Totals by wallet id; a wallet without live transactions is absent (its totals are 0). */
export async function walletTotals(db: Kysely<Database>, userId: number, walletIds: number[]): Promise<Map<number, WalletTotals>> {
  if (walletIds.length === 0) return new Map();
  const zero = sql<string>`0::numeric`;
  const rows = await db
    .selectFrom('transactions')
    .select((eb) => [
      'wallet_id',
      eb.fn.coalesce(eb.fn.sum<string>('amount').filterWhere('type', '=', 'income'), zero).as('total_income'),
      eb.fn.coalesce(eb.fn.sum<string>('amount').filterWhere('type', '=', 'expense'), zero).as('total_expense'),
    ])
    .where('user_id', '=', userId)
    .where('wallet_id', 'in', [...new Set(walletIds)])
    .where('deleted_at', 'is', null)
    .groupBy('wallet_id')
    .execute();
  return new Map(rows.map((row) => [row.wallet_id, { total_income: String(row.total_income), total_expense: String(row.total_expense) }]));
}
