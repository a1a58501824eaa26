// 036 push notifications: the devices and browsers a user subscribed, the outbox of pushes to
// them, and the server's VAPID key pair (Web Push).
//
// Non-obvious choices:
// - A browser endpoint or device token is one subscription across users ((kind, address) is
//   unique for them): registering it again updates the row, and a device that signs in as
//   another user moves to that user (its pending pushes are dropped by the code that moves it,
//   so the previous user's notifications never reach the new one). Knowing one is holding the
//   device: both are unguessable capabilities. An ntfy topic URL is not (people share topics):
//   it is unique per user only.
// - The outbox (push_deliveries) is written by notifyUser in the caller's transaction, one row
//   per subscription; the deliver-push job claims a row by moving next_attempt_at past the
//   attempt's time limit (a lease), as the webhook outbox does (migration 034).
// - The VAPID key pair is one row at most, like app_key (032): every process signs with it.
import { sql, type Kysely } from 'kysely';
import { oneOf, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('push_subscriptions')
    .$call(withId)
    .$call(withUser)
    .addColumn('kind', 'text', (c) => c.notNull())
    // webpush and ntfy: the URL; fcm: the device token
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('p256dh', 'text')
    .addColumn('auth', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_failure_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'push_subscriptions'))
    .addCheckConstraint('push_subscriptions_kind_check', oneOf('kind', ['webpush', 'fcm', 'ntfy']))
    .execute();
  await db.schema.createIndex('push_subscriptions_device_key').on('push_subscriptions').columns(['kind', 'address']).unique().where(sql.ref('kind'), '<>', 'ntfy').execute();
  await db.schema.createIndex('push_subscriptions_topic_key').on('push_subscriptions').columns(['user_id', 'address']).unique().where(sql.ref('kind'), '=', 'ntfy').execute();
  await db.schema.createIndex('push_subscriptions_user_idx').on('push_subscriptions').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('push_deliveries')
    .$call(withId)
    .$call(withUser)
    .addColumn('subscription_id', 'bigint', (c) => c.notNull().references('push_subscriptions.id').onDelete('cascade'))
    .addColumn('notification_id', 'bigint')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .$call(withTimestamps)
    .addCheckConstraint('push_deliveries_status_check', oneOf('status', ['pending', 'sent', 'failed']))
    .execute();
  // the job's look for subscriptions with pushes due, and its claims of one subscription's oldest
  await db.schema.createIndex('push_deliveries_subscription_due_idx').on('push_deliveries').columns(['subscription_id', 'next_attempt_at', 'id']).where(sql.ref('status'), '=', 'pending').execute();
  // the cascade when a subscription goes (finished rows too)
  await db.schema.createIndex('push_deliveries_subscription_idx').on('push_deliveries').column('subscription_id').execute();

  await db.schema
    .createTable('vapid_keys')
    .addColumn('id', 'smallint', (c) => c.primaryKey().defaultTo(1).check(sql`id = 1`))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('vapid_keys').execute();
  await db.schema.dropTable('push_deliveries').execute();
  await db.schema.dropTable('push_subscriptions').execute();
}
