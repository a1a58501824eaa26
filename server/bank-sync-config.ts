// The bank sync settings of the configuration (BANK_SYNC_*), read and checked with the rest in
// server/config.ts. Bridge addresses follow the webhooks' rules (WEBHOOK_ALLOWED_NETWORKS).
import type { IntReader } from './outbox-config.js';

export interface BankSyncConfig {
  /** BANK_SYNC_INTERVAL_HOURS (default 6): hours between two scheduled syncs of a connection. */
  intervalHours: number;
  /** BANK_SYNC_FIRST_DAYS (default 90): how far back a connection's first sync reads. */
  firstDays: number;
  /** BANK_SYNC_OVERLAP_DAYS (default 5): days before the newest posted line a later sync reads again (late bookings). */
  overlapDays: number;
  /** BANK_SYNC_DAILY_REQUESTS (default 24, SimpleFIN's ask): requests to the bridge per connection and UTC day. */
  dailyRequests: number;
  /** BANK_SYNC_TIMEOUT_MS (default 30000): how long one request to the bridge may take. */
  timeoutMs: number;
}

export function bankSyncConfigFrom(int: IntReader): BankSyncConfig {
  return {
    intervalHours: int('BANK_SYNC_INTERVAL_HOURS', 6, 1, 24 * 7),
    firstDays: int('BANK_SYNC_FIRST_DAYS', 90, 1, 730),
    overlapDays: int('BANK_SYNC_OVERLAP_DAYS', 5, 0, 60),
    dailyRequests: int('BANK_SYNC_DAILY_REQUESTS', 24, 1, 1000),
    timeoutMs: int('BANK_SYNC_TIMEOUT_MS', 30_000, 100, 300_000),
  };
}
