// 034 webhooks: endpoints a user registers, and the outbox of events and their deliveries.
//
// Non-obvious choices:
// - The outbox: a change writes its webhook_events row and one webhook_deliveries row per
//   matching active endpoint in its own database transaction, so a rolled-back change sends
//   nothing and a committed one is never lost (the deliver-webhooks job drains it, also after a
//   crash: its schedule and its run at start find every pending row).
// - An event keeps the record's id only; `payload` is filled once, by the job's first attempt,
//   from the record as the API shows it then, and every delivery of the event sends those bytes.
//   The write path pays one insert per event, not a view of the record.
// - A delivery is claimed by moving next_attempt_at past the attempt's time limit (a lease):
//   two workers never send it at once, and a worker dying mid-send leaves it due again
//   (at-least-once).
// - Endpoints are not synced records (no client ids, hard delete); deleting one deletes its
//   deliveries and their attempts.
import { sql, type Kysely } from 'kysely';
import { oneOf, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .$call(withId)
    .$call(withUser)
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_kinds', sql`text[]`, (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'timestamptz')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'webhook_endpoints'))
    .execute();
  // the write path's one lookup: the user's active endpoints
  await db.schema.createIndex('webhook_endpoints_user_active_idx').on('webhook_endpoints').column('user_id').where(sql.ref('active'), '=', true).execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .$call(withUser)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .$call(withId)
    .$call(withUser)
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'uuid', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .$call(withTimestamps)
    .addForeignKeyConstraint('webhook_deliveries_endpoint_fkey', ['endpoint_id', 'user_id'], 'webhook_endpoints', ['id', 'user_id'], (fk) => fk.onDelete('cascade'))
    .addCheckConstraint('webhook_deliveries_status_check', oneOf('status', ['pending', 'succeeded', 'failed']))
    .execute();
  // what the job scans: due deliveries of each endpoint, oldest first
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute();

  await db.schema
    .createTable('webhook_attempts')
    .$call(withId)
    .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').columns(['delivery_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
