// One run of the push numbers in docs/push.md: what queuing a push adds to making a
// notification (no subscription vs one), and the time from the notification's commit to the
// push service receiving it (Web Push, encrypted and signed; ntfy), on loopback receivers.
//   npx tsx scripts/bench/push.ts   (embedded database; DATABASE_URL for PostgreSQL)
import { notifyUser } from '../../db/notification-delivery.js';
import { deliverDuePushes } from '../../jobs/deliver-push.js';
import { loadConfig } from '../../server/config.js';
import { startApp } from '../../test/helpers/harness.js';
import { browserSubscription } from '../../test/helpers/push-clients.js';
import { TEST_ENV } from '../../test/helpers/test-environment.js';
import { startWebhookReceiver } from '../../test/helpers/webhook-receiver.js';

const N = 300;
const cleanups: Array<() => unknown> = [];
const api = await startApp({ teardown: (fn) => cleanups.push(fn) }, { webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'] } });
const notify = (userId: number, i: number) =>
  api.db.transaction().execute((trx) => notifyUser(trx, userId, 'alerts', { type: 'alert', title: `Budget near limit ${i}`, body: 'Food: 85% used — 85.00 of 100.00 EUR' }));

/** ms per notification of each user, the two interleaved so that neither runs on a warmer or emptier database. */
async function notifyCosts(userIds: number[]): Promise<number[]> {
  for (let i = 0; i < 30; i++) for (const id of userIds) await notify(id, i); // warm up
  const spent = userIds.map(() => 0);
  for (let i = 0; i < N; i++) {
    for (const [k, id] of userIds.entries()) {
      const started = performance.now();
      await notify(id, i);
      spent[k] += performance.now() - started;
    }
  }
  return spent.map((total) => total / N);
}

const plain = await api.newUser();
const subscribed = await api.newUser();
await api.request('POST', '/api/v1/push/subscriptions', { token: subscribed.token, body: browserSubscription('https://push.example.net/send/bench').json });
const [without, withOne] = await notifyCosts([plain.user.id, subscribed.user.id]);
console.log(`no subscription: ${without.toFixed(2)} ms, one subscription: ${withOne.toFixed(2)} ms per notification (${N} each, interleaved)`);
console.log(`ratio with/without: ${(withOne / without).toFixed(3)}`);
await api.db.deleteFrom('push_deliveries').execute(); // the queued bench pushes go nowhere

// commit to receipt: each notification is followed by a run of the job, as the nudge after commit does
for (const kind of ['webpush', 'ntfy'] as const) {
  const receiver = await startWebhookReceiver();
  const user = await api.newUser();
  const body = kind === 'webpush' ? browserSubscription(receiver.url).json : { kind, endpoint: receiver.url };
  await api.request('POST', '/api/v1/push/subscriptions', { token: user.token, body });
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    await notify(user.user.id, i);
    const committed = performance.now();
    await deliverDuePushes(api.db, api.app.services);
    latencies.push(receiver.received.at(-1)!.at - committed);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
  console.log(`${kind} commit to receipt: p50 ${pct(50)} ms, p99 ${pct(99)} ms (${latencies.length})`);
  await receiver.close();
}
for (const fn of cleanups.reverse()) await fn();
