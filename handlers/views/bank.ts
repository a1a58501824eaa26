import type { BankAccountView, BankConnectionRow } from '../../db/bank-connections.js';
import type { components } from '../../generated/api.js';

type BankAccount = components['schemas']['BankAccount'];
type BankConnection = components['schemas']['BankConnection'];

const money = (value: string | null) => (value === null ? null : String(value));

export function toBankAccount(row: BankAccountView): BankAccount {
  return {
    id: Number(row.id),
    connection_id: Number(row.connection_id),
    name: row.name,
    bank: row.bank,
    currency: row.currency,
    balance: String(row.balance),
    available_balance: money(row.available_balance),
    balance_date: new Date(row.balance_date).toISOString(),
    wallet_id: row.wallet_id === null ? null : Number(row.wallet_id),
    wallet_balance: row.wallet_id === null ? null : money(row.wallet_balance),
    difference: row.wallet_id === null ? null : money(row.difference),
    pending_count: Number(row.pending_count ?? 0),
    last_posted_date: row.last_posted_date,
    missing_since: row.missing_since === null ? null : new Date(row.missing_since).toISOString(),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The connection as the API shows it: never its secret. */
export function toBankConnection(row: BankConnectionRow, accounts: BankAccountView[]): BankConnection {
  return {
    id: Number(row.id),
    provider: row.provider,
    name: row.name,
    status: row.status,
    last_error: row.last_error,
    bridge_errors: row.bridge_errors ?? [],
    failure_count: row.failure_count,
    last_synced_at: row.last_synced_at?.toISOString() ?? null,
    next_sync_at: row.next_sync_at.toISOString(),
    accounts: accounts.map(toBankAccount),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
