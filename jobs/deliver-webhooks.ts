// Drains the webhook outbox: every due delivery is POSTed to its endpoint, signed, and retried
// with exponential backoff until it succeeds or runs out of attempts. Runs every minute, at
// start (what a crash left pending), and after every commit that recorded an event.
//
// Fairness: deliveries are handed out by endpoint, a turn of a few each (jobs/fair-turns.ts),
// so one user's burst never queues another user's event behind it.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { DELIVER_WEBHOOKS_JOB } from '../db/job-names.js';
import { leaseEnd } from '../db/outbox-claims.js';
import type { Database } from '../db/schema.js';
import { claimNextDelivery, endpointOf, endpointsWithDueDeliveries, eventOf, fixEventPayload, recordAttempt, type AttemptResult, type ClaimedDelivery } from '../db/webhook-deliveries.js';
import { retryDelayMs, webhookSignature } from '../domain/webhook-events.js';
import type { JobDefinition } from '../server/jobs.js';
import type { AppServices } from '../server/services.js';
import { sendWebhook } from '../server/webhook-sender.js';
import { targetPolicyFor } from '../server/webhook-targets.js';
import { serveInTurns } from './fair-turns.js';
import { wakeWhenNextDue } from './outbox-wake.js';
import { eventBody } from './webhook-payloads.js';

export const deliverWebhooksJob: JobDefinition = {
  name: DELIVER_WEBHOOKS_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run({ db, services, log }) {
    const sent = await deliverDueWebhooks(db, services, log);
    if (sent.attempts > 0) log.info(sent, 'webhooks delivered');
  },
};

export interface WebhookRunCounts {
  attempts: number;
  succeeded: number;
}

/** Serves every endpoint with due deliveries until none is left due; returns what it did. */
export async function deliverDueWebhooks(db: Kysely<Database>, services: AppServices, log?: FastifyBaseLogger): Promise<WebhookRunCounts> {
  const { concurrency, timeoutMs } = services.config.webhooks;
  const counts: WebhookRunCounts = { attempts: 0, succeeded: 0 };
  await serveInTurns<ClaimedDelivery>({
    concurrency,
    dueKeys: (busy) => endpointsWithDueDeliveries(db, services.now(), busy, 100),
    claim: (endpointId) => claimNextDelivery(db, endpointId, services.now(), leaseEnd(services.now(), timeoutMs)),
    attempt: async (delivery) => {
      counts.attempts += 1;
      if (await attempt(db, services, delivery)) counts.succeeded += 1;
      return true;
    },
    onFault: (error, delivery) => log?.error({ err: error, deliveryId: delivery.id }, 'a webhook delivery attempt failed'),
  });
  // a retry's backoff, or another worker's lease, ends later: a run then, not at the next minute
  await wakeWhenNextDue(db, services, 'webhook_deliveries', DELIVER_WEBHOOKS_JOB);
  return counts;
}

/** The endpoint's secret, and the one a rotation replaced while its grace period lasts. */
function signingSecrets(endpoint: { secret: string; previous_secret: string | null; previous_secret_until: Date | null }, at: Date): string[] {
  const { secret, previous_secret: previous, previous_secret_until: until } = endpoint;
  return previous !== null && until !== null && until > at ? [secret, previous] : [secret];
}

/** One attempt of a claimed delivery, logged; true when the endpoint took it. */
async function attempt(db: Kysely<Database>, services: AppServices, delivery: ClaimedDelivery): Promise<boolean> {
  const config = services.config.webhooks;
  const [endpoint, event] = await Promise.all([endpointOf(db, delivery.endpoint_id), eventOf(db, delivery.event_id)]);
  if (!endpoint) return false; // deleted meanwhile, with its deliveries
  const body = event.payload ?? (await fixEventPayload(db, event.id, await eventBody(db, services, event)));
  const at = services.now();
  const timestamp = Math.floor(at.getTime() / 1000);
  const outcome = await sendWebhook(
    {
      url: endpoint.url,
      body,
      headers: { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature(signingSecrets(endpoint, at), event.id, timestamp, body) },
    },
    targetPolicyFor(config),
    config.timeoutMs,
  );
  const result: AttemptResult = outcome.ok
    ? { kind: 'succeeded' }
    : delivery.attempts >= config.maxAttempts
      ? { kind: 'failed', disableAfterFailures: config.disableAfterFailures }
      : { kind: 'retry', at: new Date(services.now().getTime() + retryDelayMs(delivery.attempts, config.retryBaseMs, config.retryMaxMs)) };
  await recordAttempt(db, delivery, { at, durationMs: outcome.durationMs, statusCode: outcome.statusCode, error: outcome.error }, result);
  return outcome.ok;
}
