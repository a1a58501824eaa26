// Webhooks, the parts with no HTTP and no SQL: the event kinds, the signature a receiver
// checks, and when a failed delivery is tried again.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Every kind an endpoint can subscribe to; each is emitted from one place (docs/webhooks.md). */
export const WEBHOOK_EVENT_KINDS = [
  'transaction.created',
  'transaction.updated',
  'transaction.deleted',
  'transfer.created',
  'transfer.updated',
  'transfer.deleted',
  'budget.threshold_crossed',
  'budget.exceeded',
  'budget.period_closed',
  'reminder.fired',
  'import.confirmed',
  'import.completed',
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** The prefix of a secret in the Standard Webhooks form: `whsec_` and the key bytes in base64. */
const SECRET_PREFIX = 'whsec_';

/** The key bytes of a `whsec_<base64>` secret (the specification's: the decoded bytes, not the text). */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** A new secret of `bytes` random bytes, in the Standard Webhooks form. */
export function webhookSecretFrom(bytes: Buffer): string {
  return SECRET_PREFIX + bytes.toString('base64');
}

/**
 * The `Webhook-Signature` header per the Standard Webhooks specification: for each secret,
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with its bytes, space-separated
 * (the current secret first; during a rotation's grace period the replaced one too). The id and
 * timestamp are signed with the body, so a captured request cannot be replayed as another event
 * or later with a fresh timestamp.
 */
export function webhookSignature(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}

/** What a receiver does: recompute and compare in constant time with each signature given (used by the tests and the docs' example). */
export function verifyWebhookSignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const expected = Buffer.from(webhookSignature([secret], id, Number(timestamp), body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failed: `base` doubled each time
 * (1, 2, 4, 8... times base), never more than `max`.
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
