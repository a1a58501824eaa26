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
  'budget.period_closed',
  'reminder.fired',
  'import.confirmed',
  'import.completed',
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/**
 * `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`: the timestamp is signed with the body, so a
 * captured request cannot be replayed later with a fresh timestamp.
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute and compare in constant time (used by the tests and the docs' example). */
export function verifyWebhookSignature(secret: string, timestamp: string, body: string, header: string): boolean {
  const expected = Buffer.from(webhookSignature(secret, Number(timestamp), body));
  return header.split(/\s+/).some((candidate) => {
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
