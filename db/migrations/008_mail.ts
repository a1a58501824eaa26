// 008 mail: the outbox of e-mails waiting for the mail adapter.
//
// Non-obvious choices:
// - Requests never talk to SMTP: they insert a row here in their own transaction (so a rolled
//   back request sends nothing) and the deliver-emails job sends it. A crash between sending
//   and marking leaves the row pending; the job may then send it again (at-least-once), which
//   is the right side to err on for a code the user is waiting for.
// - user_id is nullable (an address can get a code before it has an account) and cascades:
//   deleting an account removes its mail, sent or not.
// - outreach_send_id links an outreach recipient's row so its status can follow delivery.
import { sql, type Kysely } from 'kysely';
import { oneOf, withId, withTimestamps } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('emails')
    .$call(withId)
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text')
    .addColumn('outreach_send_id', 'bigint', (c) => c.references('outreach_sends.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('message_id', 'text')
    .addColumn('sent_at', 'timestamptz')
    .$call(withTimestamps)
    .addCheckConstraint('emails_status_check', oneOf('status', ['pending', 'sent', 'failed']))
    .addCheckConstraint('emails_to_address_check', sql`to_address <> ''`)
    .execute();
  // what the delivery job scans
  await db.schema
    .createIndex('emails_pending_idx')
    .on('emails')
    .column('id')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema
    .createIndex('emails_user_id_idx')
    .on('emails')
    .column('user_id')
    .where(sql.ref('user_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('emails').execute();
}
