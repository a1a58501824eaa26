// What a bank bridge hands over, whichever bridge it is (server/bank-adapters.ts): accounts
// with their balances and lines, amounts as signed exact decimal strings. Pure types.

/** One line as the bank gives it: `amount` a signed exact decimal string (positive = money in). */
export interface BankLine {
  /** The bank's id of the line, unique within its account. */
  id: string;
  /** The booking day, YYYY-MM-DD (UTC), or the day it was made while it is pending. */
  date: string;
  amount: string;
  description: string;
  payee: string | null;
  memo: string | null;
  pending: boolean;
}

export interface BankAccount {
  /** The bridge's id of the account, stable across requests. */
  id: string;
  name: string;
  currency: string;
  /** The bank's booked balance, a signed decimal string. */
  balance: string;
  available_balance: string | null;
  /** When the bank stated that balance. */
  balance_date: Date;
  bank: string | null;
  lines: BankLine[];
}
