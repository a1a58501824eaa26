// Pure rules of the ledger: how an entry moves a wallet's balance, and when a wallet may
// not go below zero. Amounts are exact decimal strings.
import { Decimal } from './money.js';

export type EntryType = 'income' | 'expense';

/** The change an entry makes to its wallet's balance: +amount for income, −amount for expense. */
export function balanceEffect(type: EntryType, amount: string): Decimal {
  return type === 'income' ? new Decimal(amount) : new Decimal(amount).negated();
}

/**
 * A write that lowers a wallet below zero is refused, unless the wallet is a credit card or
 * the user allows negative balances. A write that raises a balance is always allowed, even
 * when the wallet stays negative.
 */
export function overdraftRefused(options: {
  walletType: string;
  balanceAfter: Decimal;
  change: Decimal;
  negativeAllowed: boolean;
}): boolean {
  if (options.walletType === 'credit_card' || options.negativeAllowed) return false;
  return options.change.isNegative() && options.balanceAfter.isNegative();
}
