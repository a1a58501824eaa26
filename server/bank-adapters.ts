// The one shape every bank connection speaks (docs/bank-sync.md): list the accounts a
// connection sees, fetch their lines for a window, and the bridge's own messages. SimpleFIN
// (server/simplefin.ts) is the first implementation; an Enable Banking or GoCardless adapter
// would implement the same interface behind its own consent flow.

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

export interface BankWindow {
  /** Lines posted on or after this day (inclusive). */
  from: Date;
  /** Lines posted before this time. */
  to: Date;
}

export interface BankFetch {
  accounts: BankAccount[];
  /** Messages from the bridge, shown to the user as they are (SimpleFIN asks for it). */
  errors: string[];
}

/** A failure of the bridge, said so the user can act: `status` is its HTTP answer when it gave one. */
export class BankBridgeError extends Error {
  override name = 'BankBridgeError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export interface BankAdapter {
  /** The accounts the connection sees, without lines (a cheap look for linking). */
  listAccounts(): Promise<BankFetch>;
  /** Every account's lines in the window, pending ones included and marked. */
  fetchTransactions(window: BankWindow): Promise<BankFetch>;
}
