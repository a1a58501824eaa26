// A refund record as the API shows it: the income marked as a refund, the expense it pays
// back (or null), and the income's amount.
import type { components } from '../../generated/api.js';
import type { SyncedRow } from '../../db/sync.js';
import { moneyToJson } from '../../domain/money.js';
import { syncFields } from './sync.js';

export type RefundView = components['schemas']['Refund'];
/** A refunds row with the amount of its income transaction. */
export type RefundRow = SyncedRow<'refunds'> & { amount: string };

export function toRefund(row: RefundRow): RefundView {
  return Object.assign(syncFields(row, 'refund'), {
    refund_transaction_id: row.refund_transaction_id,
    original_transaction_id: row.original_transaction_id,
    amount: moneyToJson(row.amount),
  });
}
