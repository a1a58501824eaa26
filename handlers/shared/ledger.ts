// Every write that changes money goes through `moveBalances`, inside the write's database
// transaction: it reverts the effects an entry had, applies the effects it has now, and
// refuses (422, nothing written) a change that would overdraw a wallet that may not go
// negative (deletes only undo, and are never refused). Transactions, transfer legs,
// deletes and restores all use it.
import type { Transaction } from 'kysely';
import { applyBalanceChange, lockWallets, negativeBalanceAllowed } from '../../db/balances.js';
import type { Database } from '../../db/schema.js';
import { balanceEffect, type EntryType } from '../../domain/ledger.js';
import { Decimal, exceedsMoneyLimit } from '../../domain/money.js';
import { invalidField } from '../../server/errors.js';

/** What one entry does to one wallet: +amount for income, −amount for expense. */
export interface Effect {
  walletId: number;
  type: EntryType;
  amount: string;
}

export interface BalanceMove {
  /** Effects to undo (the entry as it was; empty for a create). */
  revert?: Effect[];
  /** Effects to apply (the entry as it is now; empty for a delete). */
  apply?: Effect[];
  /**
   * Records the move even below zero: for entries that happened outside the user's input, such
   * as a scheduled occurrence of a recurring expense, where refusing would lose real data.
   */
  allowOverdraft?: boolean;
}

/** A balance must stay inside numeric(19, 4). */
export const BALANCE_TOO_LARGE = 'The wallet balance would become too large.';

/** Why a write that would overdraw the wallet is refused. */
export function overdraftMessage(balance: Decimal, currency: string): string {
  return `This would take the wallet below zero (balance ${balance.toFixed(2)} ${currency}). Allow negative balances with the configuration wallets-allow-negative-balance.`;
}

export async function moveBalances(
  trx: Transaction<Database>,
  userId: number,
  move: BalanceMove,
  now: Date,
  fields: { amount: string; wallet: string } = { amount: 'amount', wallet: 'wallet_id' },
): Promise<void> {
  const net = new Map<number, Decimal>();
  const applied = new Set<number>();
  const reverted = new Set<number>();
  const add = (walletId: number, change: Decimal) => net.set(walletId, (net.get(walletId) ?? new Decimal(0)).plus(change));
  for (const effect of move.revert ?? []) {
    add(effect.walletId, balanceEffect(effect.type, effect.amount).negated());
    reverted.add(effect.walletId);
  }
  for (const effect of move.apply ?? []) {
    add(effect.walletId, balanceEffect(effect.type, effect.amount));
    applied.add(effect.walletId);
  }

  const wallets = await lockWallets(trx, userId, [...net.keys()]);
  // Undoing an entry (a delete) corrects the record and is never refused; the overdraft
  // guard is for money that moves now (creates and edits).
  const isUndo = applied.size === 0;
  const negativeAllowed = isUndo || move.allowOverdraft === true || ([...net.values()].some((change) => change.isNegative()) && (await negativeBalanceAllowed(trx, userId)));
  for (const [walletId, change] of net) {
    const wallet = wallets.get(walletId);
    if (!wallet) {
      // A deleted wallet keeps no balance: reverting from it, or editing an entry that stays in
      // it, changes nothing there; moving an entry into it is refused.
      if (applied.has(walletId) && !reverted.has(walletId)) throw invalidField(fields.wallet, 'The selected wallet is invalid.');
      continue;
    }
    if (exceedsMoneyLimit(new Decimal(wallet.balance).plus(change))) {
      throw invalidField(fields.amount, BALANCE_TOO_LARGE);
    }
    if (!(await applyBalanceChange(trx, wallet, change, negativeAllowed, now))) {
      throw invalidField(fields.amount, overdraftMessage(new Decimal(wallet.balance), wallet.currency));
    }
  }
}
