// A wallet as the API shows it: money as JSON numbers converted once from exact decimals.
import type { components } from '../../generated/api.js';
import type { IconColumns } from '../../db/icons.js';
import type { SyncedRow } from '../../db/sync.js';
import type { WalletTotals } from '../../db/wallets.js';
import { moneyToJson } from '../../domain/money.js';
import { toIcon } from './icon.js';
import { syncFields } from './sync.js';

export type WalletView = components['schemas']['Wallet'];
export type WalletRow = SyncedRow<'wallets'> & IconColumns;

/** `totals` undefined means the wallet has no live transactions. */
export function toWallet(row: WalletRow, totals: WalletTotals | undefined): WalletView {
  return Object.assign(syncFields(row, 'wallet'), {
    name: row.name,
    slug: row.slug,
    type: row.type,
    description: row.description,
    currency: row.currency,
    balance: moneyToJson(row.balance),
    icon: toIcon(row),
    stats: {
      total_income: moneyToJson(totals?.total_income ?? 0),
      total_expense: moneyToJson(totals?.total_expense ?? 0),
    },
  });
}
