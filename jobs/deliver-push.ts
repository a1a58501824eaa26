// Drains the push outbox (db/push-deliveries.ts): every due push goes to its subscription's
// service (server/push-senders.ts) and is retried with exponential backoff while the service
// answers with a passing fault, until it is sent or runs out of attempts. A subscription the
// service no longer knows (404/410) is removed with its pending pushes. Runs every minute, at
// start (what a crash left pending), and after every commit that queued a push.
//
// Up to PUSH_CONCURRENCY workers each claim one due push at a time (a lease past the attempt's
// time limit: two workers never send one push at once, a worker that dies leaves it due again),
// so a slow or hanging service holds one worker for at most PUSH_TIMEOUT_MS.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { DELIVER_PUSH_JOB } from '../db/job-names.js';
import { claimDuePush, recordPushAttempt, subscriptionOf, type ClaimedPush, type PushMessage, type PushResult } from '../db/push-deliveries.js';
import type { Database } from '../db/schema.js';
import { retryDelayMs } from '../domain/webhook-events.js';
import type { JobDefinition } from '../server/jobs.js';
import type { PushConfig } from '../server/push-config.js';
import { PushSenders } from '../server/push-senders.js';
import type { AppServices } from '../server/services.js';
import { targetPolicyFor } from '../server/webhook-targets.js';

/** A claim outlives the attempt's time limit by this much before the push is due again. */
const LEASE_MARGIN_MS = 60_000;

const senders = new WeakMap<PushConfig, PushSenders>();
/** The senders of a configuration, made once (the FCM app among them). */
export function pushSendersFor(services: AppServices): PushSenders {
  let made = senders.get(services.config.push);
  if (!made) senders.set(services.config.push, (made = new PushSenders(services.config.push, targetPolicyFor(services.config.webhooks), services.vapidKeys)));
  return made;
}

export const deliverPushJob: JobDefinition = {
  name: DELIVER_PUSH_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run({ db, services, log }) {
    const counts = await deliverDuePushes(db, services, log);
    if (counts.attempts > 0) log.info(counts, 'pushes delivered');
  },
};

export interface PushRunCounts {
  attempts: number;
  sent: number;
  retrying: number;
  failed: number;
  gone: number;
}

/** Sends every due push until none is left due; returns what happened. */
export async function deliverDuePushes(db: Kysely<Database>, services: AppServices, log?: FastifyBaseLogger): Promise<PushRunCounts> {
  const config = services.config.push;
  const counts: PushRunCounts = { attempts: 0, sent: 0, retrying: 0, failed: 0, gone: 0 };
  const worker = async () => {
    for (;;) {
      const now = services.now();
      const push = await claimDuePush(db, now, new Date(now.getTime() + config.timeoutMs + LEASE_MARGIN_MS));
      if (!push) return;
      counts.attempts += 1;
      try {
        const result = await attempt(db, services, push);
        if (result) counts[result.kind === 'retry' ? 'retrying' : result.kind] += 1;
      } catch (error) {
        // a fault of ours (the database), not the service's: the lease makes it due again later
        log?.error({ err: error, pushId: push.id }, 'a push attempt failed');
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, worker));
  return counts;
}

/** One attempt of a claimed push, recorded; undefined when its subscription was deleted meanwhile. */
async function attempt(db: Kysely<Database>, services: AppServices, push: ClaimedPush): Promise<PushResult | undefined> {
  const config = services.config.push;
  const subscription = await subscriptionOf(db, push.subscription_id);
  if (!subscription) return undefined;
  const outcome = await pushSendersFor(services).send(subscription, JSON.parse(push.payload) as PushMessage);
  const at = services.now();
  const result: PushResult =
    outcome.kind !== 'retry'
      ? outcome
      : push.attempts >= config.maxAttempts
        ? { kind: 'failed', error: outcome.error }
        : { kind: 'retry', error: outcome.error, at: new Date(at.getTime() + retryDelayMs(push.attempts, config.retryBaseMs, config.retryMaxMs)) };
  await recordPushAttempt(db, push, at, result);
  return result;
}
