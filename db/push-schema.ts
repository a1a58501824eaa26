// Kysely table types of migration 036 (push notifications), joined into `Database` in db/schema.ts.
import type { Generated } from 'kysely';
import type { Id, NullableTimestamp, TimestampWithDefault } from './schema.js';

export type PushKind = 'webpush' | 'fcm' | 'ntfy';
export type PushDeliveryStatus = 'pending' | 'sent' | 'failed';

export interface PushSubscriptionsTable {
  id: Id;
  user_id: number;
  kind: PushKind;
  /** webpush and ntfy: the URL pushes are POSTed to; fcm: the device's registration token. */
  address: string;
  /** webpush: the browser's P-256 public key and auth secret (base64url); null otherwise. */
  p256dh: string | null;
  auth: string | null;
  /** webpush: the subscription's expirationTime, when the browser gave one. */
  expires_at: NullableTimestamp;
  last_success_at: NullableTimestamp;
  last_failure_at: NullableTimestamp;
  last_error: string | null;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface PushDeliveriesTable {
  id: Id;
  user_id: number;
  subscription_id: number;
  notification_id: number | null;
  /** The message as JSON ({title, body, type, topic, notification_id, data}); each sender shapes it for its service. */
  payload: string;
  status: Generated<PushDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: TimestampWithDefault;
  sent_at: NullableTimestamp;
  last_error: string | null;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface VapidKeysTable {
  id: Generated<number>;
  /** base64url of the uncompressed P-256 point (65 bytes): the browser's applicationServerKey. */
  public_key: string;
  /** base64url of the 32-byte private scalar. */
  private_key: string;
  created_at: TimestampWithDefault;
}

export interface PushTables {
  push_subscriptions: PushSubscriptionsTable;
  push_deliveries: PushDeliveriesTable;
  vapid_keys: VapidKeysTable;
}
