// One run of the webhook numbers in docs/performance.md: the write path's cost per transaction
// without and with an endpoint, and the time from commit to receipt on a loopback receiver.
//   npx tsx scripts/bench/webhooks.ts   (embedded database; DATABASE_URL for PostgreSQL)
import { deliverDueWebhooks } from '../../jobs/deliver-webhooks.js';
import { loadConfig } from '../../server/config.js';
import { startApp } from '../../test/helpers/harness.js';
import { TEST_ENV } from '../../test/helpers/test-environment.js';
import { startWebhookReceiver } from '../../test/helpers/webhook-receiver.js';

const N = 300;
const cleanups: Array<() => unknown> = [];
const api = await startApp({ teardown: (fn) => cleanups.push(fn) }, { webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'] } });

async function userWithWallet() {
  const user = await api.newUser();
  const wallet = await api.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'Bank', type: 'bank', currency: 'EUR', balance: 100000 } });
  return { user, walletId: wallet.body.data.id as number };
}
const expense = (token: string, walletId: number) =>
  api.request('POST', '/api/v1/transactions', { token, body: { type: 'expense', amount: 1.25, wallet_id: walletId, description: 'Coffee' } });

async function writeCost(label: string, token: string, walletId: number): Promise<number> {
  for (let i = 0; i < 30; i++) await expense(token, walletId); // warm up
  const started = performance.now();
  for (let i = 0; i < N; i++) await expense(token, walletId);
  const perWrite = (performance.now() - started) / N;
  console.log(`${label}: ${perWrite.toFixed(2)} ms per POST /transactions (${N})`);
  return perWrite;
}

const plain = await userWithWallet();
const subscribed = await userWithWallet();
await api.request('POST', '/api/v1/webhooks', { token: subscribed.user.token, body: { url: 'https://hooks.example.com/x', event_kinds: ['transaction.created'] } });
const without = await writeCost('no endpoint', plain.user.token, plain.walletId);
const withEndpoint = await writeCost('one endpoint', subscribed.user.token, subscribed.walletId);
console.log(`ratio with/without: ${(withEndpoint / without).toFixed(3)}`);

// commit to receipt: each write is followed by a run of the job, as the nudge after commit does
const receiver = await startWebhookReceiver();
const timed = await userWithWallet();
await api.request('POST', '/api/v1/webhooks', { token: timed.user.token, body: { url: receiver.url, event_kinds: ['transaction.created'] } });
const latencies: number[] = [];
for (let i = 0; i < 200; i++) {
  const res = await expense(timed.user.token, timed.walletId);
  const committed = performance.now();
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await deliverDueWebhooks(api.db, api.app.services);
  latencies.push(receiver.received.at(-1)!.at - committed);
}
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(1);
console.log(`commit to receipt: p50 ${pct(50)} ms, p99 ${pct(99)} ms (${latencies.length})`);
await receiver.close();
for (const fn of cleanups.reverse()) await fn();
