// Drains the `emails` outbox through the mail adapter. Runs every minute and whenever a request
// nudges it after queueing mail.
//
// A run claims a batch of pending rows in one statement (FOR UPDATE SKIP LOCKED): the claim
// counts an attempt and stamps updated_at, and a claimed row is not claimable again until
// RETRY_AFTER has passed; each row's claim is renewed just before its send, so a row that
// waited behind slow sends and was claimed again elsewhere is skipped. So two workers, or two
// runs, never send the same row at once, and a sent row is never sent again. Sending happens
// outside any transaction (a slow SMTP server must not hold row locks, and on the embedded
// database not the whole database). A process dying between send and mark leaves the row
// pending; it is retried after RETRY_AFTER (at-least-once, see migration 008). The row's
// Message-ID is stored before its first attempt and every attempt sends that same one, so in
// the one window where a retry repeats a message (the server accepted it, the process died
// before marking it sent) the copies share a Message-ID that mail systems deduplicate on.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Database, EmailsTable } from '../db/schema.js';
import type { Config } from '../server/config.js';
import type { JobDefinition } from '../server/jobs.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import { createMailTransport, isPermanentFailure, type MailTransport } from '../server/mail-transport.js';
import type { FileStorage } from '../server/storage.js';
import { attachmentReader } from './email-attachments.js';

/** Rows claimed per statement. */
const BATCH = 20;
/** A claimed row becomes claimable again after this (longer than any send can take). */
const RETRY_AFTER_MS = 5 * 60_000;
/** After this many failed attempts a row is given up (`failed`). */
export const MAX_ATTEMPTS = 5;
/**
 * Kinds that carry a one-time code in clear: their bodies are blanked once the row is done
 * (the code is stored hashed in verification_codes; the outbox should not keep it either).
 */
const SECRET_KINDS = new Set(['verification', 'password_reset']);
const SCRUBBED = { text_body: '(removed after delivery: it contained a one-time code)', html_body: null };

type EmailRow = Selectable<EmailsTable>;

export interface DeliveryCounts {
  sent: number;
  failed: number;
  retrying: number;
}

// One transport per configuration, made on first use and kept for the process's life.
const transports = new WeakMap<Config, MailTransport>();
export function transportFor(config: Config): MailTransport {
  let transport = transports.get(config);
  if (!transport) transports.set(config, (transport = createMailTransport(config)));
  return transport;
}

export const deliverEmailsJob: JobDefinition = {
  name: DELIVER_EMAILS_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run({ db, services, log }) {
    const counts = await deliverPendingEmails(db, transportFor(services.config), services.storage, services.now, log);
    if (counts.sent + counts.failed + counts.retrying > 0) log.info(counts, 'outbox delivered');
  },
};

/**
 * Sends every claimable pending e-mail, outreach e-mails with their campaign's attachments
 * (read from `storage`); returns what happened to them.
 */
export async function deliverPendingEmails(
  db: Kysely<Database>,
  transport: MailTransport,
  storage: FileStorage,
  now: () => Date,
  log?: FastifyBaseLogger,
): Promise<DeliveryCounts> {
  const counts: DeliveryCounts = { sent: 0, failed: 0, retrying: 0 };
  const attachmentsOf = attachmentReader(db, storage);
  for (;;) {
    const batch = await claimBatch(db, now());
    for (const email of batch) {
      // Rows of a batch wait for the sends before them; one that waited past RETRY_AFTER may
      // have been claimed again by another worker, which then sends it instead.
      const stableId = email.message_id ?? `<${randomUUID()}@${transport.messageDomain ?? 'localhost'}>`;
      if (!(await renewClaim(db, email, stableId, now()))) continue;
      let messageId: string;
      try {
        ({ messageId } = await transport.send({
          id: email.id,
          to: email.to_address,
          subject: email.subject,
          text: email.text_body,
          html: email.html_body,
          // An unreadable attachment fails the attempt like a refused send: never sent without it.
          attachments: await attachmentsOf(email),
          messageId: stableId,
        }));
      } catch (error) {
        const givenUp = email.attempts >= MAX_ATTEMPTS || isPermanentFailure(error);
        await markFailedAttempt(db, email, errorText(error), givenUp, now());
        counts[givenUp ? 'failed' : 'retrying'] += 1;
        log?.warn({ err: error, emailId: email.id, attempt: email.attempts, givenUp }, 'sending an e-mail failed');
        continue;
      }
      await markSent(db, email, messageId, now());
      counts.sent += 1;
    }
    // Claimed rows are not claimable again within this run, so the loop ends.
    if (batch.length < BATCH) return counts;
  }
}

/** Claims up to BATCH rows: one attempt counted each, locked rows skipped. */
function claimBatch(db: Kysely<Database>, now: Date): Promise<EmailRow[]> {
  const retryBefore = new Date(now.getTime() - RETRY_AFTER_MS);
  return db
    .updateTable('emails')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), updated_at: now }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('emails')
        .select('id')
        .where('status', '=', 'pending')
        .where((w) => w.or([w('attempts', '=', 0), w('updated_at', '<=', retryBefore)]))
        .orderBy('id')
        .limit(BATCH)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute()
    // RETURNING has no order: send oldest first
    .then((rows) => rows.sort((a, b) => a.id - b.id));
}

/**
 * Restarts the claim's RETRY_AFTER just before sending, and records the Message-ID every
 * attempt sends; false when the row is no longer this claim's (another worker's claim counted
 * a further attempt, or it is done).
 */
async function renewClaim(db: Kysely<Database>, email: EmailRow, messageId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('emails')
    .set({ updated_at: now, message_id: messageId })
    .where('id', '=', email.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', email.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function markSent(db: Kysely<Database>, email: EmailRow, messageId: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('emails')
      .set({ status: 'sent', sent_at: now, message_id: messageId, last_error: null, updated_at: now, ...scrubbed(email) })
      .where('id', '=', email.id)
      .execute();
    if (email.outreach_send_id !== null) {
      await trx
        .updateTable('outreach_sends')
        .set({ status: 'sent', sent_at: now, error: null, updated_at: now })
        .where('id', '=', email.outreach_send_id)
        .execute();
    }
  });
}

async function markFailedAttempt(db: Kysely<Database>, email: EmailRow, error: string, givenUp: boolean, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('emails')
      .set({ status: givenUp ? 'failed' : 'pending', last_error: error, updated_at: now, ...(givenUp ? scrubbed(email) : {}) })
      .where('id', '=', email.id)
      .execute();
    if (email.outreach_send_id !== null) {
      // While retries remain the recipient stays `queued`, with the latest error for the admin.
      await trx
        .updateTable('outreach_sends')
        .set({ ...(givenUp ? { status: 'failed' as const } : {}), error, updated_at: now })
        .where('id', '=', email.outreach_send_id)
        .execute();
    }
  });
}

function scrubbed(email: EmailRow) {
  return SECRET_KINDS.has(email.kind) ? SCRUBBED : {};
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, 1000);
}
