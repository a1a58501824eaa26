// The delivery job's queries over the webhook outbox (migration 034): which endpoints have
// deliveries due, claiming one (a lease on next_attempt_at), and recording what an attempt did.
import { sql, type Kysely, type Selectable } from 'kysely';
import { claimOldestDue } from './outbox-claims.js';
import type { Database } from './schema.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from './webhook-schema.js';

export type ClaimedDelivery = Selectable<WebhookDeliveriesTable>;

/** Active endpoints with a delivery due at `now`, leaving out `busy` ones; at most `limit`. */
export async function endpointsWithDueDeliveries(db: Kysely<Database>, now: Date, busy: number[], limit: number): Promise<number[]> {
  let query = db
    .selectFrom('webhook_endpoints as e')
    .select('e.id')
    .where('e.active', '=', true)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_deliveries as d')
          .select(sql.lit(1).as('one'))
          .whereRef('d.endpoint_id', '=', 'e.id')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now),
      ),
    )
    .limit(limit);
  if (busy.length > 0) query = query.where('e.id', 'not in', busy);
  return (await query.execute()).map((row) => row.id);
}

/**
 * Claims the endpoint's oldest due delivery for one attempt: counts the attempt and moves
 * next_attempt_at to `leaseUntil`, so no other worker takes it meanwhile and a worker that dies
 * mid-attempt leaves it due again then.
 */
export function claimNextDelivery(db: Kysely<Database>, endpointId: number, now: Date, leaseUntil: Date): Promise<ClaimedDelivery | undefined> {
  return claimOldestDue<ClaimedDelivery>(db, 'webhook_deliveries', now, leaseUntil, sql<boolean>`endpoint_id = ${endpointId}`);
}

export function endpointOf(db: Kysely<Database>, id: number): Promise<Selectable<WebhookEndpointsTable> | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export function eventOf(db: Kysely<Database>, id: string): Promise<Selectable<WebhookEventsTable>> {
  return db.selectFrom('webhook_events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Fixes the event's body the first time; returns the body every delivery of it sends. */
export async function fixEventPayload(db: Kysely<Database>, id: string, payload: string): Promise<string> {
  await db.updateTable('webhook_events').set({ payload }).where('id', '=', id).where('payload', 'is', null).execute();
  return (await eventOf(db, id)).payload!;
}

export interface AttemptRecord {
  at: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** What happens to a delivery after its attempt. */
export type AttemptResult = { kind: 'succeeded' } | { kind: 'retry'; at: Date } | { kind: 'failed'; disableAfterFailures: number };

/**
 * Logs the attempt and moves the delivery on; a given-up delivery counts against its endpoint,
 * which is turned off as failing after `disableAfterFailures` in a row. A delivery re-queued
 * meanwhile (attempts reset by a re-send) is only logged.
 */
export async function recordAttempt(db: Kysely<Database>, delivery: ClaimedDelivery, attempt: AttemptRecord, result: AttemptResult): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // the delivery is gone when its endpoint was deleted during the attempt: nothing to log
    const logged = await trx
      .insertInto('webhook_attempts')
      .columns(['delivery_id', 'attempted_at', 'duration_ms', 'status_code', 'error'])
      .expression((eb) =>
        eb
          .selectFrom('webhook_deliveries')
          .select([
            'id',
            sql<Date>`${attempt.at}::timestamptz`.as('attempted_at'),
            sql<number>`${attempt.durationMs}::int`.as('duration_ms'),
            sql<number | null>`${attempt.statusCode}::int`.as('status_code'),
            sql<string | null>`${attempt.error?.slice(0, 500) ?? null}::text`.as('error'),
          ])
          .where('id', '=', delivery.id),
      )
      .executeTakeFirst();
    if (Number(logged.numInsertedOrUpdatedRows) === 0) return;
    const moved = await trx
      .updateTable('webhook_deliveries')
      .set(
        result.kind === 'succeeded'
          ? { status: 'succeeded', delivered_at: attempt.at, updated_at: attempt.at }
          : result.kind === 'retry'
            ? { next_attempt_at: result.at, updated_at: attempt.at }
            : { status: 'failed', updated_at: attempt.at },
      )
      .where('id', '=', delivery.id)
      .where('attempts', '=', delivery.attempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0 || result.kind === 'retry') return;
    if (result.kind === 'succeeded') {
      await trx.updateTable('webhook_endpoints').set({ consecutive_failures: 0 }).where('id', '=', delivery.endpoint_id).where('consecutive_failures', '>', 0).execute();
      return;
    }
    await trx
      .updateTable('webhook_endpoints')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        active: sql<boolean>`case when consecutive_failures + 1 >= ${result.disableAfterFailures} then false else active end`,
        failing_since: sql<Date>`case when consecutive_failures + 1 >= ${result.disableAfterFailures} then ${attempt.at} else failing_since end`,
        updated_at: attempt.at,
      }))
      .where('id', '=', delivery.endpoint_id)
      .execute();
  });
}
