// The webhook outbox, seen from the code that makes a change: `recordWebhookEvent` inside the
// change's own database transaction writes the event and a delivery per active endpoint of the
// user that wants its kind (migration 034). A user without endpoints costs one indexed lookup per
// database transaction: the answer is kept for the rest of that transaction.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
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

/**
 * One event of `kind` per record of `subjectIds` (one, or a batch writer's 2,000 rows of an
 * import) and a delivery per event and endpoint, in two statements whatever their number: the
 * values go as arrays through unnest (a VALUES list binds a parameter per column and row,
 * several times slower to parse for a batch). Returns the events' ids in the records' order,
 * none when no active endpoint of the user wants the kind.
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
  await sql`
    insert into webhook_events (id, user_id, kind, subject_id, created_at)
    select e.id, ${userId}::bigint, ${kind}::text, e.subject_id, ${at}::timestamptz
      from unnest(${ids}::uuid[], ${subjectIds}::bigint[]) as e(id, subject_id)`.execute(trx);
  // deliveries in the events' order: the job sends an endpoint's due deliveries by id
  await sql`
    insert into webhook_deliveries (user_id, endpoint_id, event_id, next_attempt_at, created_at, updated_at)
    select ${userId}::bigint, d.endpoint_id, e.id, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
      from unnest(${ids}::uuid[]) with ordinality as e(id, n)
     cross join unnest(${targets.map((endpoint) => endpoint.id)}::bigint[]) with ordinality as d(endpoint_id, m)
     order by e.n, d.m`.execute(trx);
  nudgeAfterCommit(DELIVER_WEBHOOKS_JOB);
  return ids;
}
