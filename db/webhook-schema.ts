// Kysely table types of migration 034 (webhooks), joined into `Database` in db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { Id, NullableTimestamp, Timestamp, TimestampWithDefault } from './schema.js';
import type { WebhookEventKind } from '../domain/webhook-events.js';

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookEndpointsTable {
  id: Id;
  user_id: number;
  url: string;
  event_kinds: ColumnType<WebhookEventKind[], WebhookEventKind[], WebhookEventKind[]>;
  /** `whsec_` and the base64 of 32 random bytes (Standard Webhooks); shown to the user once, on create (and on rotation). */
  secret: string;
  /** The secret a rotation replaced: deliveries are signed with it too until previous_secret_until (migration 037). */
  previous_secret: string | null;
  previous_secret_until: NullableTimestamp;
  active: Generated<boolean>;
  /** Deliveries given up in a row; reset by a success. */
  consecutive_failures: Generated<number>;
  /** Set when too many deliveries in a row failed: the endpoint was turned off then. */
  failing_since: NullableTimestamp;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface WebhookEventsTable {
  /** uuid, made by the writer: what receivers deduplicate on (Webhook-Id). */
  id: string;
  user_id: number;
  kind: WebhookEventKind;
  /** The id of the record the event is about. */
  subject_id: number;
  /** The JSON body sent, fixed at the first attempt; null until then. */
  payload: string | null;
  created_at: TimestampWithDefault;
}

export interface WebhookDeliveriesTable {
  id: Id;
  user_id: number;
  endpoint_id: number;
  event_id: string;
  status: Generated<WebhookDeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: TimestampWithDefault;
  delivered_at: NullableTimestamp;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

export interface WebhookAttemptsTable {
  id: Id;
  delivery_id: number;
  attempted_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
