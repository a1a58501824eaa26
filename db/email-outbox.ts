// Outgoing e-mail, seen from the code that wants to send one: put it in the outbox (the
// `emails` table) inside your own database transaction, and after commit nudge the queue so
// the deliver-emails job sends it at once instead of at its next scheduled run. Requests never
// talk to the mail transport themselves.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface OutgoingEmail {
  to: string;
  subject: string;
  /** Plain text, always present. */
  text: string;
  /** A simple HTML rendering of the same message. */
  html?: string;
  /** What produced it: 'verification', 'password_reset', 'notification', 'outreach'... */
  kind: string;
  userId?: number | null;
  outreachSendId?: number | null;
}

/** Adds one e-mail to the outbox; returns its row id. */
export async function queueEmail(db: Kysely<Database>, email: OutgoingEmail): Promise<number> {
  const row = await db
    .insertInto('emails')
    .values({
      user_id: email.userId ?? null,
      kind: email.kind,
      to_address: email.to,
      subject: email.subject,
      text_body: email.text,
      html_body: email.html ?? null,
      outreach_send_id: email.outreachSendId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
