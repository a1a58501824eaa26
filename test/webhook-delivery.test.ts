// Webhook delivery end to end: changes over HTTP recorded in their own database transaction,
// sent by the deliver-webhooks job to receivers on 127.0.0.1, signed; retries, failing
// endpoints, faulty receivers that never hold up other users, fairness under one user's burst,
// nothing sent for a rolled-back change, nothing lost across a crash.
import t, { type Test } from 'tap';
import { claimNextDelivery } from '../db/webhook-deliveries.js';
import { recordWebhookEvent } from '../db/webhook-outbox.js';
import { verifyWebhookSignature } from '../domain/webhook-events.js';
import { deliverDueWebhooks } from '../jobs/deliver-webhooks.js';
import { fireDueReminders } from '../jobs/fire-reminders.js';
import { loadConfig } from '../server/config.js';
import { startApp } from './helpers/harness.js';
import { TEST_ENV } from './helpers/test-environment.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

// a margin for a loaded machine (other test files running) before a healthy answer times out
const TIMEOUT_MS = 1000;
const api = await startApp(t, {
  webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'], timeoutMs: TIMEOUT_MS, retryBaseMs: 0, maxAttempts: 3, disableAfterFailures: 2, concurrency: 4 },
});
const fixtures = ledgerFixtures(api);
const run = () => deliverDueWebhooks(api.db, api.app.services);

async function receiverFor(t: Test, user: { token: string }, kinds: string[]): Promise<{ receiver: WebhookReceiver; endpoint: any }> {
  const receiver = await startWebhookReceiver();
  t.teardown(() => receiver.close());
  const res = await api.request('POST', '/api/v1/webhooks', { token: user.token, body: { url: receiver.url, event_kinds: kinds } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { receiver, endpoint: res.body.data };
}

const deliveries = (user: { token: string }, endpointId: number) => api.request('GET', `/api/v1/webhooks/${endpointId}/deliveries`, { token: user.token });
const expense = (user: { token: string }, walletId: number, amount = 12.5) =>
  api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: walletId, datetime: '2026-05-01T10:00:00Z', description: 'Lunch' } });

t.test('a change is delivered signed, with the record as the API shows it', async (t) => {
  const user = await api.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created', 'transaction.updated', 'transaction.deleted', 'transfer.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  const other = await fixtures.wallet(user.user.id);
  const made = await expense(user, wallet);
  t.equal(made.status, 201);
  t.equal(receiver.received.length, 0, 'nothing is sent inside the request');
  await run();

  t.equal(receiver.received.length, 1);
  const [hook] = receiver.received;
  const body = JSON.parse(hook.body);
  t.match(body, { kind: 'transaction.created', id: hook.headers['webhook-id'] });
  t.match(body.id, /^[0-9a-f-]{36}$/);
  const shown = await api.request('GET', `/api/v1/transactions/${made.body.data.id}`, { token: user.token });
  t.same(body.data, shown.body.data, 'data is the record as GET shows it');
  t.ok(verifyWebhookSignature(endpoint.secret, String(hook.headers['webhook-timestamp']), hook.body, String(hook.headers['webhook-signature'])), 'the signature verifies');
  t.notOk(verifyWebhookSignature(endpoint.secret, String(Number(hook.headers['webhook-timestamp']) + 1), hook.body, String(hook.headers['webhook-signature'])), 'the timestamp is signed');
  t.match(hook.headers['webhook-signature'], /^v1=[0-9a-f]{64}$/);
  t.ok(Math.abs(Number(hook.headers['webhook-timestamp']) - Date.now() / 1000) < 60);

  const listed = await deliveries(user, endpoint.id);
  t.match(listed.body.data.data[0], { event_id: body.id, event_kind: 'transaction.created', status: 'succeeded', attempt_count: 1, next_attempt_at: null });
  t.match(listed.body.data.data[0].attempts, [{ status_code: 200, error: null }], 'the attempt is logged (its 100 KB answer read only in part)');

  await api.request('PUT', `/api/v1/transactions/${made.body.data.id}`, { token: user.token, body: { description: 'Dinner' } });
  await api.request('DELETE', `/api/v1/transactions/${made.body.data.id}`, { token: user.token });
  await api.request('POST', '/api/v1/transfer', { token: user.token, body: { from_wallet_id: wallet, to_wallet_id: other, amount: 5 } });
  await run();
  const kinds = receiver.received.map((r) => JSON.parse(r.body));
  t.same(kinds.map((k) => k.kind), ['transaction.created', 'transaction.updated', 'transaction.deleted', 'transfer.created']);
  t.equal(kinds[1].data.description, 'Dinner');
  t.ok(kinds[2].data.deleted_at, 'a deleted record comes as its tombstone');
  t.equal(kinds[3].data.amount, 5);

  const redo = await api.request('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${listed.body.data.data[0].id}/redeliver`, { token: user.token });
  t.match(redo.body.data, { status: 'pending', attempt_count: 0 });
  await run();
  t.equal(receiver.received.at(-1)!.body, hook.body, 'a re-send carries the same event and body');
  t.equal(receiver.received.at(-1)!.headers['webhook-id'], hook.headers['webhook-id']);
});

t.test('a rolled-back change sends nothing; kinds and paused endpoints filter', async (t) => {
  const user = await api.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '10' });
  const refused = await expense(user, wallet, 50); // overdraft: 422 after the write began
  t.equal(refused.status, 422);
  const events = () => api.db.selectFrom('webhook_events').select('kind').where('user_id', '=', user.user.id).execute();
  t.same(await events(), [], 'no event survives the rollback');
  await api.request('POST', '/api/v1/reminders', { token: user.token, body: { title: 'Rent', trigger_at: '2020-01-01T00:00:00Z' } });
  await fireDueReminders(api.db, new Date());
  t.same(await events(), [], 'a kind the endpoint did not choose is not recorded');
  await api.request('PUT', `/api/v1/webhooks/${endpoint.id}`, { token: user.token, body: { active: false } });
  await expense(user, wallet, 1);
  t.same(await events(), [], 'a paused endpoint gets nothing');
  await run();
  t.equal(receiver.received.length, 0);
});

t.test('a request that recorded an event nudges the delivery job after its commit, others do not', async (t) => {
  const sent: string[] = [];
  api.app.services.jobs.attach({ send: async (name) => void sent.push(name) });
  t.teardown(() => api.app.services.jobs.attach(undefined));
  const quiet = await api.newUser();
  const quietWallet = await fixtures.wallet(quiet.user.id, { balance: '100' });
  await expense(quiet, quietWallet);
  t.same(sent, [], 'a user without endpoints costs no nudge');
  const user = await api.newUser();
  await receiverFor(t, user, ['transaction.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '10' });
  t.equal((await expense(user, wallet, 50)).status, 422);
  t.same(sent, [], 'nor does a rolled-back write');
  t.equal((await expense(user, wallet, 5)).status, 201);
  t.same(sent, ['deliver-webhooks']);
  await run();
});

t.test('budget events: threshold crossed by a write, period closed', async (t) => {
  const user = await api.newUser();
  const { receiver } = await receiverFor(t, user, ['budget.threshold_crossed', 'budget.period_closed']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '1000', currency: 'EUR' });
  const budget = await api.request('POST', '/api/v1/budgets', {
    token: user.token,
    body: { name: 'Food', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: new Date().toISOString().slice(0, 8) + '01', threshold_percent: 80, rollover_enabled: true },
  });
  t.equal(budget.status, 201);
  const spend = (amount: number) => api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet } });
  await spend(50);
  await run();
  t.equal(receiver.received.length, 0, 'below the threshold nothing is sent');
  await spend(40);
  await spend(5);
  await api.request('POST', `/api/v1/budgets/${budget.body.data.id}/close-period`, { token: user.token });
  await run();
  const bodies = receiver.received.map((r) => JSON.parse(r.body));
  t.same(bodies.map((b) => b.kind), ['budget.threshold_crossed', 'budget.period_closed'], 'crossed once per window, then this window closed');
  t.match(bodies[0].data, { id: budget.body.data.id, name: 'Food' });
  t.match(bodies[1].data, { budget_id: budget.body.data.id });
});

t.test('an endpoint deleted during an attempt: the attempt ends quietly', async (t) => {
  const user = await api.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
  receiver.behaviour = { kind: 'slow', ms: 100 };
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  await expense(user, wallet);
  const running = run();
  while (receiver.received.length === 0) await new Promise((resolve) => setImmediate(resolve));
  t.equal((await api.request('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token: user.token })).status, 200);
  const counts = await running;
  t.same(counts, { attempts: 1, succeeded: 1 });
  t.equal((await api.db.selectFrom('webhook_deliveries').select('id').where('user_id', '=', user.user.id).execute()).length, 0);
});

t.test('reminder.fired is sent from the reminder job', async (t) => {
  const user = await api.newUser();
  const { receiver } = await receiverFor(t, user, ['reminder.fired']);
  const reminder = await api.request('POST', '/api/v1/reminders', { token: user.token, body: { title: 'Pay rent', trigger_at: '2020-01-01T00:00:00Z' } });
  await fireDueReminders(api.db, new Date());
  await run();
  t.equal(receiver.received.length, 1);
  t.match(JSON.parse(receiver.received[0].body), { kind: 'reminder.fired', data: { id: reminder.body.data.id, title: 'Pay rent', status: 'completed' } });
});

t.test('a crash after the commit loses nothing: a fresh run delivers, a dead claim is retried', async (t) => {
  const user = await api.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  await expense(user, wallet);
  await expense(user, wallet);
  // a worker claimed the first delivery and died before sending: its lease ran out at once
  const now = new Date();
  const claimed = await claimNextDelivery(api.db, endpoint.id, now, new Date(now.getTime() - 1));
  t.ok(claimed);
  await run(); // the run a restarted process makes at start
  t.equal(receiver.received.length, 2, 'both arrive');
  const listed = (await deliveries(user, endpoint.id)).body.data.data;
  t.same(listed.map((d: any) => [d.status, d.attempt_count]), [['succeeded', 1], ['succeeded', 2]], 'the abandoned claim counted as an attempt');
});

t.test('faulty endpoints are retried, then failed and turned off, and never hold up another user', async (t) => {
  const healthy = await api.newUser();
  const { receiver: good } = await receiverFor(t, healthy, ['transaction.created']);
  const faults = [{ kind: 'hang' }, { kind: 'status', status: 500 }, { kind: 'slow', ms: TIMEOUT_MS * 3 }, { kind: 'close' }, { kind: 'redirect', to: 'http://127.0.0.1:1/' }] as const;
  const faulty = [];
  for (const behaviour of faults) {
    const user = await api.newUser();
    const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
    receiver.behaviour = behaviour;
    const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
    await expense(user, wallet);
    await expense(user, wallet);
    faulty.push({ user, receiver, endpoint, behaviour });
  }
  const wallet = await fixtures.wallet(healthy.user.id, { balance: '100' });
  await expense(healthy, wallet);
  const started = performance.now();
  await run();
  t.equal(good.received.length, 1);
  t.ok(good.received[0].at - started < TIMEOUT_MS, `the healthy endpoint was served in ${Math.round(good.received[0].at - started)} ms, before any hanging attempt timed out`);

  for (const { user, receiver, endpoint, behaviour } of faulty) {
    const listed = (await deliveries(user, endpoint.id)).body.data.data;
    t.same(listed.map((d: any) => [d.status, d.attempt_count]), [['failed', 3], ['failed', 3]], `${behaviour.kind}: each delivery tried 3 times, then failed`);
    t.equal(receiver.received.length, 6);
    const errors = listed[0].attempts.map((a: any) => a.error);
    t.ok(errors.every((e: string | null) => e), `${behaviour.kind}: ${errors[0]}`);
    if (behaviour.kind === 'hang' || behaviour.kind === 'slow') t.match(errors[0], /timed out/);
    if (behaviour.kind === 'redirect') t.equal(listed[0].attempts[0].status_code, 307, 'a redirect is a failure, not followed');
    const shown = (await api.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token: user.token })).body.data;
    t.match(shown, { active: false, consecutive_failures: 2 }, `${behaviour.kind}: turned off after 2 failed deliveries`);
    t.ok(shown.failing_since);
  }
});

t.test("one user's burst does not delay another user's delivery", async (t) => {
  // 500 keeps the test at a few seconds on the embedded database (2,000 took 14 s, same outcome)
  const BURST = 500;
  const busy = await api.newUser();
  const other = await api.newUser();
  const { receiver: flooded, endpoint } = await receiverFor(t, busy, ['transaction.created']);
  const { receiver: quiet } = await receiverFor(t, other, ['transaction.created']);
  // the burst through the same outbox call the write paths use, in one transaction
  await api.db.transaction().execute(async (trx) => {
    for (let i = 0; i < BURST; i++) await recordWebhookEvent(trx, busy.user.id, 'transaction.created', i + 1, new Date());
  });
  const pending = run();
  while (flooded.received.length < 50) await new Promise((resolve) => setImmediate(resolve));
  const wallet = await fixtures.wallet(other.user.id, { balance: '100' });
  await expense(other, wallet); // committed while the burst is being delivered
  await pending;
  t.equal(new Set(flooded.received.map((r) => r.headers['webhook-id'])).size, BURST, 'the burst is delivered in full');
  t.equal(quiet.received.length, 1);
  const before = flooded.received.filter((r) => r.at < quiet.received[0].at).length;
  t.ok(before < 50 + 60, `the other user's event arrived after ${before} of the burst's ${BURST}`);
  t.equal((await api.db.selectFrom('webhook_deliveries').select('status').where('endpoint_id', '=', endpoint.id).where('status', '!=', 'succeeded').execute()).length, 0);
});
