// Drains the webhook outbox: every due delivery is POSTed to its endpoint, signed, and retried
// with exponential backoff until it succeeds or runs out of attempts. Runs every minute, at
// start (what a crash left pending), and after every commit that recorded an event.
//
// Fairness: work is handed out by endpoint, never in one queue of deliveries. Up to
// `concurrency` endpoints are served side by side, each for a turn of at most TURN deliveries,
// in order; whenever a turn ends the endpoint that was served least recently (one never served
// in this run first) gets the free place. So one user's burst of thousands of events holds one
// place at a time, another user's event waits for a free place at most one turn, and an
// endpoint that hangs holds only its own place, for the attempt's time limit.
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { DELIVER_WEBHOOKS_JOB } from '../db/job-names.js';
import type { Database } from '../db/schema.js';
import { claimNextDelivery, endpointOf, endpointsWithDueDeliveries, eventOf, fixEventPayload, recordAttempt, type AttemptResult, type ClaimedDelivery } from '../db/webhook-deliveries.js';
import { retryDelayMs, webhookSignature } from '../domain/webhook-events.js';
import type { JobDefinition } from '../server/jobs.js';
import type { AppServices } from '../server/services.js';
import { sendWebhook } from '../server/webhook-sender.js';
import { targetPolicyFor } from '../server/webhook-targets.js';
import { eventBody } from './webhook-payloads.js';

/** Deliveries one endpoint is served in a row before another endpoint may take its place. */
const TURN = 20;
/** How often a run with a free place looks for newly due endpoints. */
const RESCAN_MS = 200;
/** A claim outlives the attempt's time limit by this much before the delivery is due again. */
const LEASE_MARGIN_MS = 60_000;

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
  const { concurrency } = services.config.webhooks;
  const counts: WebhookRunCounts = { attempts: 0, succeeded: 0 };
  const turns = new Map<number, Promise<void>>();
  const lastServed = new Map<number, number>();
  let served = 0;
  for (;;) {
    const busy = [...turns.keys()];
    if (turns.size < concurrency) {
      const due = await endpointsWithDueDeliveries(db, services.now(), busy, 100);
      due.sort((a, b) => (lastServed.get(a) ?? -1) - (lastServed.get(b) ?? -1));
      for (const endpointId of due.slice(0, concurrency - turns.size)) {
        lastServed.set(endpointId, served++);
        const turn = serveTurn(db, services, endpointId, counts, log).finally(() => turns.delete(endpointId));
        turns.set(endpointId, turn);
      }
    }
    if (turns.size === 0) {
      // a turn that ended during the look was left out of it: look again before stopping
      if (busy.length === 0) return counts;
      continue;
    }
    // with a place free, look again soon: an event committed meanwhile must not wait for a
    // slow endpoint's turn to end
    await Promise.race(turns.size < concurrency ? [...turns.values(), delay(RESCAN_MS)] : turns.values());
  }
}

/** Up to TURN due deliveries of one endpoint, one after the other. */
async function serveTurn(db: Kysely<Database>, services: AppServices, endpointId: number, counts: WebhookRunCounts, log?: FastifyBaseLogger): Promise<void> {
  const config = services.config.webhooks;
  for (let i = 0; i < TURN; i++) {
    const now = services.now();
    const delivery = await claimNextDelivery(db, endpointId, now, new Date(now.getTime() + config.timeoutMs + LEASE_MARGIN_MS));
    if (!delivery) return;
    counts.attempts += 1;
    try {
      if (await attempt(db, services, delivery)) counts.succeeded += 1;
    } catch (error) {
      // a fault of ours (the database), not the endpoint's: the lease makes it due again later
      log?.error({ err: error, deliveryId: delivery.id }, 'a webhook delivery attempt failed');
      return;
    }
  }
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
      headers: { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature(endpoint.secret, timestamp, body) },
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
