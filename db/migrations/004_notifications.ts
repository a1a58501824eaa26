// 004 notifications: reminders, notifications, notification_preferences, budget_alerts, and the
// admin outreach e-mails (outreach_messages + outreach_sends).
//
// Non-obvious choices:
// - reminders and notifications are synced records (sync columns, soft delete). Deleting a
//   notification soft-deletes it so clients get a tombstone.
// - The reference's polymorphic "remindable" is only ever a budget: reminders.budget_id.
// - notifications.body is NOT NULL (default '') and data is NOT NULL (default '{}'): the mobile
//   client's strict parser throws on a null body or a non-object data.
// - notification_preferences: one row per user, created lazily; no row means everything on.
// - budget_alerts makes "one alert per budget, kind and window" a unique key, so concurrent
//   writes crossing the threshold cannot both notify: insert ... on conflict do nothing, and
//   notify only when a row was inserted.
// - outreach_messages are admin history, not owned by a recipient: sender_id is nullable and
//   set null when the admin account goes. outreach_sends is one row per recipient (owned by the
//   recipient: deleting a user removes their send rows).
import { sql, type Kysely } from 'kysely';
import {
  addSyncIndexes,
  oneOf,
  ownedFk,
  withId,
  withSync,
  withTimestamps,
  withUser,
} from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('reminders')
    .$call(withId)
    .$call(withUser)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('custom'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('trigger_at', 'timestamptz')
    .addColumn('due_at', 'timestamptz')
    .addColumn('repeat_rule', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('priority', 'smallint', (c) => c.notNull().defaultTo(0))
    .addColumn('snoozed_until', 'timestamptz')
    .addColumn('last_triggered_at', 'timestamptz')
    .addColumn('next_trigger_at', 'timestamptz')
    .addColumn('metadata', 'jsonb')
    .addColumn('source', 'text')
    .addColumn('budget_id', 'bigint')
    .$call(withSync)
    .addCheckConstraint(
      'reminders_type_check',
      oneOf('type', ['daily_tracking', 'weekly_review', 'monthly_summary', 'bill_due', 'budget_alert', 'custom']),
    )
    .addCheckConstraint(
      'reminders_status_check',
      oneOf('status', ['active', 'paused', 'snoozed', 'completed', 'cancelled']),
    )
    .addCheckConstraint('reminders_priority_check', sql`priority between 0 and 255`)
    .addCheckConstraint('reminders_title_check', sql`title <> ''`)
    .execute();
  await ownedFk(db, 'reminders', 'budget_id', 'budgets', 'cascade');
  await addSyncIndexes(db, 'reminders');
  await db.schema.createIndex('reminders_user_status_idx').on('reminders').columns(['user_id', 'status']).execute();
  // what the firing job scans: due, live, not paused/completed/cancelled
  await db.schema
    .createIndex('reminders_due_idx')
    .on('reminders')
    .column('next_trigger_at')
    .where(sql<boolean>`deleted_at is null and status in ('active', 'snoozed') and next_trigger_at is not null`)
    .execute();
  await db.schema
    .createIndex('reminders_budget_id_idx')
    .on('reminders')
    .column('budget_id')
    .where(sql.ref('budget_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('notifications')
    .$call(withId)
    .$call(withUser)
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('system'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('read_at', 'timestamptz')
    .addColumn('reminder_id', 'bigint')
    .$call(withSync)
    .addCheckConstraint('notifications_type_check', oneOf('type', ['reminder', 'alert', 'achievement', 'system']))
    .addCheckConstraint('notifications_data_check', sql`jsonb_typeof(data) = 'object'`)
    .execute();
  await db.schema
    .alterTable('notifications')
    .addForeignKeyConstraint('notifications_reminder_id_fkey', ['reminder_id'], 'reminders', ['id'], (fk) =>
      fk.onDelete('set null'),
    )
    .execute();
  await addSyncIndexes(db, 'notifications');
  await db.schema
    .createIndex('notifications_user_created_idx')
    .on('notifications')
    .columns(['user_id', 'created_at desc', 'id desc'])
    .execute();
  // unread-count and read-all
  await db.schema
    .createIndex('notifications_unread_idx')
    .on('notifications')
    .column('user_id')
    .where(sql<boolean>`read_at is null and deleted_at is null`)
    .execute();
  await db.schema
    .createIndex('notifications_reminder_id_idx')
    .on('notifications')
    .column('reminder_id')
    .where(sql.ref('reminder_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('notification_preferences')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('channel_email', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('channel_push', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('channel_inapp', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('type_reminders', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('type_insights', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('type_inactivity', 'boolean', (c) => c.notNull().defaultTo(true))
    .$call(withTimestamps)
    .execute();

  await db.schema
    .createTable('budget_alerts')
    .$call(withId)
    .$call(withUser)
    .addColumn('budget_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('period_start', 'date', (c) => c.notNull())
    .addColumn('period_end', 'date', (c) => c.notNull())
    .addColumn('notification_id', 'bigint', (c) => c.references('notifications.id').onDelete('set null'))
    .addColumn('reminder_id', 'bigint', (c) => c.references('reminders.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('budget_alerts_kind_check', oneOf('kind', ['threshold', 'forecast', 'over_budget']))
    .addUniqueConstraint('budget_alerts_budget_kind_period_key', ['budget_id', 'kind', 'period_start'])
    .execute();
  await ownedFk(db, 'budget_alerts', 'budget_id', 'budgets', 'cascade');
  await db.schema.createIndex('budget_alerts_user_id_idx').on('budget_alerts').column('user_id').execute();

  await db.schema
    .createTable('outreach_messages')
    .$call(withId)
    .addColumn('sender_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo('email'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('cta_label', 'text')
    .addColumn('cta_url', 'text')
    .addColumn('image_url', 'text')
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('audience_user_ids', 'jsonb')
    .addColumn('attachments', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('recipients_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sent_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .$call(withTimestamps)
    .addCheckConstraint('outreach_messages_channel_check', oneOf('channel', ['email']))
    .addCheckConstraint(
      'outreach_messages_audience_check',
      oneOf('audience', ['all', 'active', 'inactive', 'test', 'specific']),
    )
    .addCheckConstraint('outreach_messages_status_check', oneOf('status', ['queued', 'sending', 'sent', 'failed']))
    .addCheckConstraint(
      'outreach_messages_counts_check',
      sql`recipients_count >= 0 and sent_count >= 0 and failed_count >= 0`,
    )
    .execute();
  await db.schema
    .createIndex('outreach_messages_created_idx')
    .on('outreach_messages')
    .columns(['created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('outreach_sends')
    .$call(withId)
    .addColumn('outreach_id', 'bigint', (c) => c.notNull().references('outreach_messages.id').onDelete('cascade'))
    .$call(withUser)
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('error', 'text')
    .addColumn('sent_at', 'timestamptz')
    .$call(withTimestamps)
    .addCheckConstraint('outreach_sends_status_check', oneOf('status', ['queued', 'sent', 'failed', 'skipped']))
    .addUniqueConstraint('outreach_sends_outreach_user_key', ['outreach_id', 'user_id'])
    .execute();
  await db.schema.createIndex('outreach_sends_user_id_idx').on('outreach_sends').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'outreach_sends',
    'outreach_messages',
    'budget_alerts',
    'notification_preferences',
    'notifications',
    'reminders',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
