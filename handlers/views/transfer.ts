// A transfer as the API shows it. The wallets are loaded once for a whole page and attached
// after (`withWallets`), so the row view (`toTransfer`) carries everything but them.
import type { components } from '../../generated/api.js';
import { formatClientId } from '../../domain/client-id.js';
import { rateToJson } from '../../domain/exchange.js';
import { moneyToJson } from '../../domain/money.js';
import type { TransferRow } from '../../db/transfers.js';
import { syncFields } from './sync.js';
import type { WalletView } from './wallet.js';

export type TransferView = components['schemas']['Transfer'];
/** A transfer before its wallets are attached. */
export type TransferCore = Omit<TransferView, 'source_wallet' | 'destination_wallet'>;

export function toTransfer(row: TransferRow): TransferCore {
  return Object.assign(syncFields(row, 'transfer'), {
    amount: moneyToJson(row.amount),
    from_wallet_id: row.from_wallet_id,
    to_wallet_id: row.to_wallet_id,
    exchange_rate: rateToJson(row.exchange_rate),
    received_amount: moneyToJson(row.received_amount),
    datetime: row.datetime.toISOString(),
    expense_transaction_id: row.expense_leg_id,
    income_transaction_id: row.income_leg_id,
    expense_transaction_client_id: formatClientId(row.expense_leg_device_token, row.expense_leg_client_generated_id),
    income_transaction_client_id: formatClientId(row.income_leg_device_token, row.income_leg_client_generated_id),
  });
}

/** The transfer with its wallets, by id; a deleted wallet still shows, with its `deleted_at` set. */
export function withWallets(transfer: TransferCore, wallets: Map<number, WalletView>): TransferView {
  // Wallets are never hard-deleted while transfers point at them (foreign keys), so a missing
  // one is a fault of the caller's loading, not a state to show.
  const wallet = (id: number) => {
    const found = wallets.get(id);
    if (!found) throw new Error(`wallet ${id} of transfer ${transfer.id} was not loaded`);
    return found;
  };
  return { ...transfer, source_wallet: wallet(transfer.from_wallet_id), destination_wallet: wallet(transfer.to_wallet_id) };
}
