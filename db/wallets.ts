// Wallet queries beyond the shared sync ones: the wallet rows with their icons, and their
// stats (income and expense totals of live transactions, transfer legs included), which the
// wallets keep up to date themselves (012), on their own rows.
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
 * A wallet's totals, from the counts and sums it keeps of its live transactions (012's
 * triggers), which every read of its row carries: no second read of the same row.
 */
export function ownTotals(row: { income_total: unknown; expense_total: unknown }): WalletTotals {
  return { total_income: String(row.income_total), total_expense: String(row.expense_total) };
}
