// The push outbox (migration 036): `queuePushes` writes one row per subscription of the user in
// the caller's transaction (notifyUser), and the deliver-push job claims due rows one at a time
// (a lease on next_attempt_at, as the webhook outbox does) and records what each attempt did.
import { sql, type Kysely, type Selectable } from 'kysely';
import { DELIVER_PUSH_JOB } from './job-names.js';
import { nudgeAfterCommit } from './job-nudges.js';
import { claimOldestDue } from './outbox-claims.js';
import type { PushDeliveriesTable, PushSubscriptionsTable } from './push-schema.js';
import type { Database } from './schema.js';

/** What every push carries, whatever the service: each sender shapes it for its own. */
export interface PushMessage {
  title: string;
  body: string;
  /** The notification's type (reminder, alert, system) and what produced it. */
  type: string;
  topic: string;
  /** The in-app notification's id, or null when the in-app channel is off. */
  notification_id: number | null;
  data: Record<string, unknown>;
}

export type ClaimedPush = Selectable<PushDeliveriesTable>;
export type PushSubscriptionRow = Selectable<PushSubscriptionsTable>;

/** Queues `message` to every subscription of the user; returns how many rows were written. */
export async function queuePushes(trx: Kysely<Database>, userId: number, message: PushMessage): Promise<number> {
  const subscriptions = await trx.selectFrom('push_subscriptions').select('id').where('user_id', '=', userId).execute();
  if (subscriptions.length === 0) return 0;
  const payload = JSON.stringify(message);
  await trx
    .insertInto('push_deliveries')
    .values(subscriptions.map((subscription) => ({ user_id: userId, subscription_id: subscription.id, notification_id: message.notification_id, payload })))
    .execute();
  nudgeAfterCommit(DELIVER_PUSH_JOB);
  return subscriptions.length;
}

/** Subscriptions with a push due at `now`, leaving out `busy` ones; at most `limit`. */
export async function subscriptionsWithDuePushes(db: Kysely<Database>, now: Date, busy: number[], limit: number): Promise<number[]> {
  let query = db
    .selectFrom('push_subscriptions as s')
    .select('s.id')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('push_deliveries as d')
          .select(sql.lit(1).as('one'))
          .whereRef('d.subscription_id', '=', 's.id')
          .where('d.status', '=', 'pending')
          .where('d.next_attempt_at', '<=', now),
      ),
    )
    .limit(limit);
  if (busy.length > 0) query = query.where('s.id', 'not in', busy);
  return (await query.execute()).map((row) => row.id);
}

/** Claims the subscription's oldest due push for one attempt (a lease until `leaseUntil`, db/outbox-claims.ts). */
export function claimDuePush(db: Kysely<Database>, subscriptionId: number, now: Date, leaseUntil: Date): Promise<ClaimedPush | undefined> {
  return claimOldestDue<ClaimedPush>(db, 'push_deliveries', now, leaseUntil, sql<boolean>`subscription_id = ${subscriptionId}`);
}

export function subscriptionOf(db: Kysely<Database>, id: number): Promise<PushSubscriptionRow | undefined> {
  return db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What happens to a push after its attempt. */
export type PushResult =
  | { kind: 'sent' }
  | { kind: 'retry'; at: Date; error: string }
  | { kind: 'failed'; error: string }
  /** The service says the subscription no longer exists (404/410): it goes, with its pending pushes. */
  | { kind: 'gone'; error: string };

/** Moves the claimed push on; a row re-claimed meanwhile (another attempt counted) is left alone. */
export async function recordPushAttempt(db: Kysely<Database>, push: ClaimedPush, at: Date, result: PushResult): Promise<void> {
  if (result.kind === 'gone') {
    await db.deleteFrom('push_subscriptions').where('id', '=', push.subscription_id).execute();
    return;
  }
  await db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('push_deliveries')
      .set(
        result.kind === 'sent'
          ? { status: 'sent', sent_at: at, last_error: null, updated_at: at }
          : result.kind === 'retry'
            ? { next_attempt_at: result.at, last_error: result.error.slice(0, 500), updated_at: at }
            : { status: 'failed', last_error: result.error.slice(0, 500), updated_at: at },
      )
      .where('id', '=', push.id)
      .where('attempts', '=', push.attempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return;
    await trx
      .updateTable('push_subscriptions')
      .set(result.kind === 'sent' ? { last_success_at: at } : { last_failure_at: at, last_error: result.error.slice(0, 500) })
      .where('id', '=', push.subscription_id)
      .execute();
  });
}
