// Wallet balances, changed only here and only inside the caller's database transaction.
// Wallets are locked (FOR NO KEY UPDATE, in id order so two writers never deadlock) before their
// balance is read, so concurrent writes queue instead of losing an update.
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import { Decimal } from '../domain/money.js';
import { overdraftRefused } from '../domain/ledger.js';
import type { Database } from './schema.js';
import { settingOf } from './settings.js';

export const ALLOW_NEGATIVE_KEY = 'wallets-allow-negative-balance';

export interface LockedWallet {
  id: number;
  type: string;
  currency: string;
  balance: string;
}

/** Locks the user's live wallets with these ids and returns them by id. */
export async function lockWallets(trx: Transaction<Database>, userId: number, ids: number[]): Promise<Map<number, LockedWallet>> {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  if (unique.length === 0) return new Map();
  const rows = await trx
    .selectFrom('wallets')
    .select(['id', 'type', 'currency', 'balance'])
    .where('user_id', '=', userId)
    .where('id', 'in', unique)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    // NO KEY UPDATE: it serialises balance writers, yet does not conflict with the key-share
    // lock that inserting a row referencing the wallet takes (FOR UPDATE would deadlock there).
    .forNoKeyUpdate()
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/** Whether the user's configuration allows balances below zero. */
export async function negativeBalanceAllowed(db: Kysely<Database>, userId: number): Promise<boolean> {
  const allowed = await settingOf(db, userId, ALLOW_NEGATIVE_KEY);
  return allowed === true || allowed === 'true';
}

/**
 * Applies `change` to a locked wallet's balance. Returns false (and changes nothing) when the
 * change would overdraw a wallet that may not go negative.
 */
export async function applyBalanceChange(
  trx: Transaction<Database>,
  wallet: LockedWallet,
  change: Decimal,
  negativeAllowed: boolean,
  now: Date,
): Promise<boolean> {
  if (change.isZero()) return true;
  const balanceAfter = new Decimal(wallet.balance).plus(change);
  if (overdraftRefused({ walletType: wallet.type, balanceAfter, change, negativeAllowed })) return false;
  await trx
    .updateTable('wallets')
    .set({ balance: sql<string>`balance + ${change.toFixed(4)}::numeric`, updated_at: now })
    .where('id', '=', wallet.id)
    .execute();
  wallet.balance = balanceAfter.toFixed(4);
  return true;
}
