// The one shape every bank connection speaks (docs/bank-sync.md): list the accounts a
// connection sees, fetch their lines for a window, and the bridge's own messages. SimpleFIN
// (server/simplefin.ts) is the first implementation; an Enable Banking or GoCardless adapter
// would implement the same interface behind its own consent flow.

import type { BankAccount, BankLine } from '../domain/bank-lines.js';

export type { BankAccount, BankLine };

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
