// The webhook outbox, seen from the code that makes a change: `recordWebhookEvent` inside the
// change's own database transaction writes the event and a delivery per active endpoint of the
// user that wants its kind (migration 034). A user without endpoints costs one indexed lookup per
// database transaction: the answer is kept for the rest of that transaction.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { WebhookEventKind } from '../domain/webhook-events.js';
import { DELIVER_WEBHOOKS_JOB } from './job-names.js';
import { nudgeAfterCommit } from './job-nudges.js';
import type { Database } from './schema.js';

interface ActiveEndpoint {
  id: number;
  event_kinds: WebhookEventKind[];
}

/** Per database transaction (the Transaction object), each user's active endpoints. */
const endpointsByTransaction = new WeakMap<object, Map<number, ActiveEndpoint[]>>();

function readActiveEndpoints(db: Kysely<Database>, userId: number): Promise<ActiveEndpoint[]> {
  return db.selectFrom('webhook_endpoints').select(['id', 'event_kinds']).where('user_id', '=', userId).where('active', '=', true).execute();
}

async function activeEndpointsOf(trx: Kysely<Database>, userId: number): Promise<ActiveEndpoint[]> {
  // outside a transaction there is nothing to keep the answer for
  if (!trx.isTransaction) return readActiveEndpoints(trx, userId);
  let byUser = endpointsByTransaction.get(trx);
  if (!byUser) endpointsByTransaction.set(trx, (byUser = new Map()));
  let endpoints = byUser.get(userId);
  if (!endpoints) {
    endpoints = await readActiveEndpoints(trx, userId);
    byUser.set(userId, endpoints);
  }
  return endpoints;
}

/**
 * Records that `kind` happened to the user's record `subjectId` at `at`; returns the event's id,
 * or undefined when no active endpoint of the user wants the kind (then nothing is written).
 */
export async function recordWebhookEvent(
  trx: Kysely<Database>,
  userId: number,
  kind: WebhookEventKind,
  subjectId: number,
  at: Date,
): Promise<string | undefined> {
  return (await recordWebhookEvents(trx, userId, kind, [subjectId], at))[0];
}

/** Rows per INSERT of a bulk record (events carry 5 parameters each; PostgreSQL allows 65,535). */
const INSERT_ROWS = 2000;

/**
 * One event of `kind` per record of `subjectIds` (a batch writer's, e.g. an import's 2,000
 * rows): a few statements, not a few per record. Returns the events' ids in the records'
 * order, none when no active endpoint of the user wants the kind.
 */
export async function recordWebhookEvents(
  trx: Kysely<Database>,
  userId: number,
  kind: WebhookEventKind,
  subjectIds: number[],
  at: Date,
): Promise<string[]> {
  const targets = (await activeEndpointsOf(trx, userId)).filter((endpoint) => endpoint.event_kinds.includes(kind));
  if (targets.length === 0 || subjectIds.length === 0) return [];
  const ids = subjectIds.map(() => randomUUID());
  for (let start = 0; start < ids.length; start += INSERT_ROWS) {
    const chunk = ids.slice(start, start + INSERT_ROWS);
    await trx
      .insertInto('webhook_events')
      .values(chunk.map((id, i) => ({ id, user_id: userId, kind, subject_id: subjectIds[start + i], created_at: at })))
      .execute();
    const deliveries = chunk.flatMap((id) =>
      targets.map((endpoint) => ({ user_id: userId, endpoint_id: endpoint.id, event_id: id, next_attempt_at: at, created_at: at, updated_at: at })),
    );
    for (let from = 0; from < deliveries.length; from += INSERT_ROWS) {
      await trx.insertInto('webhook_deliveries').values(deliveries.slice(from, from + INSERT_ROWS)).execute();
    }
  }
  nudgeAfterCommit(DELIVER_WEBHOOKS_JOB);
  return ids;
}
