// Queries of the webhook endpoints API: the caller's endpoints, and their deliveries with
// their attempts. Every query is scoped by user_id.
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { webhookSecretFrom, type WebhookEventKind } from '../domain/webhook-events.js';
import { listPage, type PageMeta } from './feed.js';
import type { Database } from './schema.js';
import type { WebhookAttemptsTable, WebhookDeliveryStatus, WebhookEndpointsTable } from './webhook-schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
export interface WebhookDeliveryRow {
  id: number;
  endpoint_id: number;
  event_id: string;
  event_kind: WebhookEventKind;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** 32 random bytes as `whsec_<base64>`: the endpoint's signing secret (Standard Webhooks). */
export const newWebhookSecret = () => webhookSecretFrom(randomBytes(32));

export function findEndpoint(db: Kysely<Database>, userId: number, id: number): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export function endpointPage(db: Kysely<Database>, userId: number, page: { page: number; limit: number; now: Date }): Promise<{ rows: WebhookEndpointRow[]; meta: PageMeta }> {
  return listPage(db.selectFrom('webhook_endpoints').selectAll().where('user_id', '=', userId).orderBy('id'), page);
}

export interface EndpointValues {
  url?: string;
  event_kinds?: WebhookEventKind[];
  active?: boolean;
}

export function insertEndpoint(db: Kysely<Database>, userId: number, values: Required<EndpointValues>, now: Date): Promise<WebhookEndpointRow> {
  return db
    .insertInto('webhook_endpoints')
    .values({ user_id: userId, ...values, secret: newWebhookSecret(), created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes what is given; turning an endpoint on again forgets its failures. */
export function updateEndpoint(db: Kysely<Database>, userId: number, id: number, values: EndpointValues, now: Date) {
  return db
    .updateTable('webhook_endpoints')
    .set({ ...values, ...(values.active === true ? { consecutive_failures: 0, failing_since: null } : {}), updated_at: now })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Gives the endpoint a new secret; the one it replaces keeps signing beside it until
 * `now + graceSeconds` (none when 0), so receivers can switch over without a refused delivery.
 * A secret replaced earlier and still in its grace period is dropped: two at a time at most.
 */
export function rotateEndpointSecret(db: Kysely<Database>, userId: number, id: number, now: Date, graceSeconds: number) {
  const until = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
  return db
    .updateTable('webhook_endpoints')
    // the right-hand sides read the row as it was: the old secret moves to previous_secret
    .set((eb) => ({ secret: newWebhookSecret(), previous_secret: until ? eb.ref('secret') : null, previous_secret_until: until, updated_at: now }))
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Kysely<Database>, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

function selectDeliveries(db: Kysely<Database>, userId: number, endpointId: number) {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.endpoint_id',
      'webhook_deliveries.event_id',
      'webhook_events.kind as event_kind',
      'webhook_deliveries.status',
      'webhook_deliveries.attempts',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.delivered_at',
      'webhook_deliveries.created_at',
      'webhook_deliveries.updated_at',
    ])
    .where('webhook_deliveries.user_id', '=', userId)
    .where('webhook_deliveries.endpoint_id', '=', endpointId);
}

/** The attempts of these deliveries, oldest first, by delivery. */
export async function attemptsOf(db: Kysely<Database>, deliveryIds: number[]): Promise<Map<number, WebhookAttemptRow[]>> {
  const byDelivery = new Map<number, WebhookAttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('id').execute();
  for (const row of rows) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return byDelivery;
}

export function deliveryPage(
  db: Kysely<Database>,
  userId: number,
  endpointId: number,
  page: { page: number; limit: number; now: Date; status?: WebhookDeliveryStatus },
): Promise<{ rows: WebhookDeliveryRow[]; meta: PageMeta }> {
  let query = selectDeliveries(db, userId, endpointId);
  if (page.status) query = query.where('webhook_deliveries.status', '=', page.status);
  return listPage(query.orderBy('webhook_deliveries.id', 'desc'), page);
}

export function findDelivery(db: Kysely<Database>, userId: number, endpointId: number, id: number): Promise<WebhookDeliveryRow | undefined> {
  return selectDeliveries(db, userId, endpointId).where('webhook_deliveries.id', '=', id).executeTakeFirst();
}

/** Makes the delivery pending and due now, with a fresh count of attempts (its log stays). */
export async function requeueDelivery(db: Kysely<Database>, id: number, now: Date): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'pending', attempts: 0, next_attempt_at: now, delivered_at: null, updated_at: now }).where('id', '=', id).execute();
}
