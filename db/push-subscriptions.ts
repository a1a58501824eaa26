// Queries of the push subscriptions API. A browser endpoint or device token is unique across
// users: registering a known one updates it, and one another user registered moves to the
// caller without what was queued for the previous user. An ntfy topic is unique per user
// (migration 036).
import type { Kysely } from 'kysely';
import { listPage, type PageMeta } from './feed.js';
import type { PushSubscriptionRow } from './push-deliveries.js';
import type { PushKind } from './push-schema.js';
import type { Database } from './schema.js';

export interface SubscriptionValues {
  kind: PushKind;
  address: string;
  p256dh: string | null;
  auth: string | null;
  expires_at: Date | null;
}

export function subscriptionPage(db: Kysely<Database>, userId: number, page: { page: number; limit: number; now: Date }): Promise<{ rows: PushSubscriptionRow[]; meta: PageMeta }> {
  return listPage(db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).orderBy('id'), page);
}

/**
 * Registers the subscription for the user; `created` is false when the user had it already.
 * Keys and expiry are replaced (a browser that re-subscribes brings new ones).
 */
export function upsertSubscription(db: Kysely<Database>, userId: number, values: SubscriptionValues, now: Date): Promise<{ row: PushSubscriptionRow; created: boolean }> {
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('push_subscriptions')
      .values({ user_id: userId, ...values, created_at: now, updated_at: now })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, created: true };
    let known = trx.selectFrom('push_subscriptions').select(['id', 'user_id']).where('kind', '=', values.kind).where('address', '=', values.address);
    if (values.kind === 'ntfy') known = known.where('user_id', '=', userId);
    const existing = await known.forUpdate().executeTakeFirstOrThrow();
    const moved = existing.user_id !== userId;
    // the previous user's pushes (and their record) must never reach the new one
    if (moved) await trx.deleteFrom('push_deliveries').where('subscription_id', '=', existing.id).execute();
    const row = await trx
      .updateTable('push_subscriptions')
      .set({
        user_id: userId,
        p256dh: values.p256dh,
        auth: values.auth,
        expires_at: values.expires_at,
        ...(moved ? { last_success_at: null, last_failure_at: null, last_error: null, created_at: now } : {}),
        updated_at: now,
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, created: moved };
  });
}

export async function deleteSubscription(db: Kysely<Database>, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('push_subscriptions').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
