// Wallet queries beyond the shared sync ones: the wallet rows with their icons, and their
// stats (income and expense totals of live transactions, transfer legs included), which the
// wallets keep up to date themselves (012), read for many wallets at once.
import type { Kysely } from 'kysely';
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

/**
 * Totals by wallet id, from the counts and sums the wallets keep of their live transactions
 * (012's triggers): one indexed read however many transactions a wallet holds.
 */
export async function walletTotals(db: Kysely<Database>, userId: number, walletIds: number[]): Promise<Map<number, WalletTotals>> {
  if (walletIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('wallets')
    .select(['id', 'income_total', 'expense_total'])
    .where('user_id', '=', userId)
    .where('id', 'in', [...new Set(walletIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, { total_income: String(row.income_total), total_expense: String(row.expense_total) }]));
}
