// 010 engagement sends: one row per engagement message produced for a user and period (the
// inactivity nudge of one inactivity stretch and tier, the insights summary of one week or
// month). The unique key is what makes those scheduled jobs idempotent: a job claims the
// (user, kind, period) with insert ... on conflict do nothing and delivers only when it
// inserted, so a second run or a second worker never sends the same message twice. The claim
// is recorded even when the user's preferences let nothing through.
import { sql, type Kysely } from 'kysely';
import { oneOf, withId, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('engagement_sends')
    .$call(withId)
    .$call(withUser)
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('period_key', 'text', (c) => c.notNull())
    .addColumn('notification_id', 'bigint', (c) => c.references('notifications.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('engagement_sends_kind_check', oneOf('kind', ['inactivity', 'insights_weekly', 'insights_monthly']))
    .addUniqueConstraint('engagement_sends_user_kind_period_key', ['user_id', 'kind', 'period_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('engagement_sends').execute();
}
