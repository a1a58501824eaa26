// Kysely table types of migration 042 (bank connections), joined into `Database` in db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { Id, NullableTimestamp, Numeric, TimestampWithDefault } from './schema.js';

export type BankProvider = 'simplefin';
export type BankConnectionStatus = 'active' | 'failing';

export interface BankConnectionsTable {
  id: Id;
  user_id: number;
  provider: BankProvider;
  name: string;
  /** The bridge's access URL, sealed (server/bank-secrets.ts); never answered. */
  secret: string;
  status: Generated<BankConnectionStatus>;
  last_error: string | null;
  /** The bridge's own messages of the last sync, verbatim. */
  bridge_errors: ColumnType<string[], string | undefined, string>;
  failure_count: Generated<number>;
  last_attempt_at: NullableTimestamp;
  last_synced_at: NullableTimestamp;
  next_sync_at: TimestampWithDefault;
  requests_day: ColumnType<string | null, string | null | undefined, string | null>;
  requests_count: Generated<number>;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface BankAccountsTable {
  id: Id;
  user_id: number;
  connection_id: number;
  external_id: string;
  name: string;
  bank: string | null;
  currency: string;
  balance: Numeric;
  available_balance: ColumnType<string | null, string | null | undefined, string | null>;
  balance_date: ColumnType<Date, Date, Date>;
  wallet_id: number | null;
  /** YYYY-MM-DD of the newest posted line taken: the next window starts a few days before. */
  last_posted_date: string | null;
  /** When a sync last found the account gone from the bridge. */
  missing_since: NullableTimestamp;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface BankLinesTable {
  id: Id;
  user_id: number;
  bank_account_id: number;
  external_id: string;
  posted_date: string;
  amount: Numeric;
  transaction_id: number | null;
  created_at: TimestampWithDefault;
}

export interface BankPendingLinesTable {
  id: Id;
  user_id: number;
  bank_account_id: number;
  external_id: string;
  date: string;
  amount: Numeric;
  description: string;
  created_at: TimestampWithDefault;
}

export interface BankTables {
  bank_connections: BankConnectionsTable;
  bank_accounts: BankAccountsTable;
  bank_lines: BankLinesTable;
  bank_pending_lines: BankPendingLinesTable;
}
