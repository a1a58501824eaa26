// Drains the push outbox (db/push-deliveries.ts): every due push goes to its subscription's
// service (server/push-senders.ts) and is retried with exponential backoff while the service
// answers with a passing fault, until it is sent or runs out of attempts. A subscription the
// service no longer knows (404/410) is removed with its pending pushes. Runs every minute, at
// start (what a crash left pending), and after every commit that queued a push.
//
// Pushes are handed out by subscription, up to PUSH_CONCURRENCY side by side, a turn of
// a few each (jobs/fair-turns.ts): one user's burst (thousands of reminders due at once) never
// queues another user's push behind it, and a hanging service holds one place for at most
// PUSH_TIMEOUT_MS per attempt. Each push is claimed under a lease past the attempt's time limit:
// two workers never send one push at once, a worker that dies leaves it due again.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { DELIVER_PUSH_JOB } from '../db/job-names.js';
import { claimDuePush, recordPushAttempt, subscriptionOf, subscriptionsWithDuePushes, type ClaimedPush, type PushMessage, type PushResult } from '../db/push-deliveries.js';
import { leaseEnd } from '../db/outbox-claims.js';
import type { Database } from '../db/schema.js';
import { retryDelayMs } from '../domain/webhook-events.js';
import type { JobDefinition } from '../server/jobs.js';
import type { PushConfig } from '../server/push-config.js';
import { PushSenders } from '../server/push-senders.js';
import type { AppServices } from '../server/services.js';
import { targetPolicyFor } from '../server/webhook-targets.js';
import { serveInTurns } from './fair-turns.js';
import { wakeWhenNextDue } from './outbox-wake.js';

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
  const counts: PushRunCounts = { attempts: 0, sent: 0, retrying: 0, failed: 0, gone: 0 };
  const { concurrency, timeoutMs } = services.config.push;
  await serveInTurns<ClaimedPush>({
    concurrency,
    dueKeys: (busy) => subscriptionsWithDuePushes(db, services.now(), busy, 100),
    claim: (subscriptionId) => claimDuePush(db, subscriptionId, services.now(), leaseEnd(services.now(), timeoutMs)),
    attempt: async (push) => {
      counts.attempts += 1;
      const result = await attempt(db, services, push);
      if (result) counts[result.kind === 'retry' ? 'retrying' : result.kind] += 1;
      // a subscription the service no longer knows went with its other pushes
      return result !== undefined && result.kind !== 'gone';
    },
    onFault: (error, push) => log?.error({ err: error, pushId: push.id }, 'a push attempt failed'),
  });
  // a retry's backoff, or another worker's lease, ends later: a run then, not at the next minute
  await wakeWhenNextDue(db, services, 'push_deliveries', DELIVER_PUSH_JOB);
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
