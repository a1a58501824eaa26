// Webhook delivery end to end: changes over HTTP recorded in their own database transaction,
// sent by the deliver-webhooks job to receivers on 127.0.0.1, signed; retries, failing
// endpoints, faulty receivers that never hold up other users, fairness under one user's burst,
// nothing sent for a rolled-back change, nothing lost across a crash.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { standardSecrets } from '../db/migrations/037_webhook_standard_secrets.js';
import { claimNextDelivery } from '../db/webhook-deliveries.js';
import { recordWebhookEvent } from '../db/webhook-outbox.js';
import { verifyWebhookSignature } from '../domain/webhook-events.js';
import { deliverDueWebhooks, deliverWebhooksJob } from '../jobs/deliver-webhooks.js';
import { JobRunner } from '../server/jobs.js';
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
  // every delivery is verified by the Standard Webhooks library, as a receiver built on it would
  receiver.secret = res.body.data.secret;
  return { receiver, endpoint: res.body.data };
}

/** Every request the receiver got verified with the Standard Webhooks library. */
const allVerified = (receiver: WebhookReceiver) => receiver.received.filter((hook) => hook.verified !== true).map((hook) => hook.refusal ?? 'not checked');

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
  t.equal(hook.verified, true, 'the Standard Webhooks library verifies it');
  const id = String(hook.headers['webhook-id']);
  const timestamp = String(hook.headers['webhook-timestamp']);
  const signature = String(hook.headers['webhook-signature']);
  t.ok(verifyWebhookSignature(endpoint.secret, id, timestamp, hook.body, signature), 'the hand-written check of docs/webhooks.md verifies it too');
  t.notOk(verifyWebhookSignature(endpoint.secret, id, String(Number(timestamp) + 1), hook.body, signature), 'the timestamp is signed');
  t.notOk(verifyWebhookSignature(endpoint.secret, randomUUID(), timestamp, hook.body, signature), 'the id is signed');
  t.notOk(verifyWebhookSignature(endpoint.secret, id, timestamp, hook.body + ' ', signature), 'the body is signed');
  t.match(signature, /^v1,[A-Za-z0-9+/]{43}=$/);
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
  t.same(allVerified(receiver), [], 'every delivery verified');
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
  t.same(allVerified(receiver), []);
});

t.test('budget events: past 100% at once records the crossing and the excess; threshold, then 100%', async (t) => {
  const user = await api.newUser();
  const { receiver } = await receiverFor(t, user, ['budget.threshold_crossed', 'budget.exceeded']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '1000', currency: 'EUR' });
  const budgetOf = async (name: string, category: number) => {
    const res = await api.request('POST', '/api/v1/budgets', {
      token: user.token,
      body: { name, amount: 100, currency: 'EUR', period_type: 'monthly', start_date: new Date().toISOString().slice(0, 8) + '01', threshold_percent: 80, forecast_alerts_enabled: false, targets: [{ type: 'category', id: category }] },
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const [jumpy, steady] = [await fixtures.category(user.user.id), await fixtures.category(user.user.id)];
  const jump = await budgetOf('Jump', jumpy);
  const steps = await budgetOf('Steps', steady);
  const spend = async (amount: number, category: number) => {
    const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet, categories: [category] } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    await run();
  };
  const events = () => receiver.received.map((r) => JSON.parse(r.body)).map((b) => [b.kind, b.data.id]);

  await spend(12, jumpy);
  t.same(events(), [], '12% sends nothing');
  await spend(91, jumpy);
  t.same(events(), [['budget.threshold_crossed', jump], ['budget.exceeded', jump]], '12% to 103% in one write: both, the crossing first');
  t.match(JSON.parse(receiver.received[1].body).data.progress, { percent_used: 103, status: 'over_budget' });
  await spend(5, jumpy);
  t.equal(receiver.received.length, 2, 'once per budget and window');

  await spend(85, steady);
  t.same(events().slice(2), [['budget.threshold_crossed', steps]], 'below to above the threshold');
  await spend(10, steady);
  t.equal(receiver.received.length, 3, '95%: nothing new');
  await spend(10, steady);
  t.same(events().slice(3), [['budget.exceeded', steps]], 'then past 100%: the excess alone');
  await spend(10, steady);
  t.equal(receiver.received.length, 4);
  t.same(allVerified(receiver), []);
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
  t.same(allVerified(receiver), []);
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
    t.same(allVerified(receiver), [], `${behaviour.kind}: every attempt verified`);
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
  t.same([...allVerified(flooded), ...allVerified(quiet)], [], 'every delivery of the burst verified');
  const before = flooded.received.filter((r) => r.at < quiet.received[0].at).length;
  t.ok(before < 50 + 60, `the other user's event arrived after ${before} of the burst's ${BURST}`);
  t.equal((await api.db.selectFrom('webhook_deliveries').select('status').where('endpoint_id', '=', endpoint.id).where('status', '!=', 'succeeded').execute()).length, 0);
});

t.test('a rotated secret signs beside the new one for the grace period; a secret of the first form keeps its key', async (t) => {
  const user = await api.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  const rotated = await api.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token: user.token });
  t.equal(rotated.status, 200);
  const graceEnds = Date.parse(rotated.body.data.previous_secret_expires_at);
  t.ok(Math.abs(graceEnds - Date.now() - 86_400_000) < 60_000, 'the old secret signs for 24 hours');
  // the receiver still holds the old secret
  t.equal((await expense(user, wallet)).status, 201);
  await run();
  const [during] = receiver.received;
  t.match(during.headers['webhook-signature'], /^v1,\S+ v1,\S+$/, 'two signatures, space-separated');
  t.equal(during.verified, true, 'the old secret still verifies');
  t.ok(verifyWebhookSignature(rotated.body.data.secret, String(during.headers['webhook-id']), String(during.headers['webhook-timestamp']), during.body, String(during.headers['webhook-signature'])), 'and so does the new one');
  const shown = await api.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token: user.token });
  t.equal(shown.body.data.previous_secret_expires_at, rotated.body.data.previous_secret_expires_at);

  // the grace period over: the new secret alone signs, and the old one is refused
  await api.db.updateTable('webhook_endpoints').set({ previous_secret_until: new Date(Date.now() - 1000) }).where('id', '=', endpoint.id).execute();
  t.equal((await expense(user, wallet)).status, 201);
  await run();
  const refused = receiver.received.slice(1);
  t.ok(refused.length >= 1 && refused.every((hook) => hook.verified === false && hook.refusal === 'No matching signature found'), 'a receiver with the replaced secret refuses it');
  t.match(refused[0].headers['webhook-signature'], /^v1,\S+$/, 'one signature');
  receiver.secret = rotated.body.data.secret;
  const failed = (await deliveries(user, endpoint.id)).body.data.data[0];
  t.equal((await api.request('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/redeliver`, { token: user.token })).status, 200);
  await run();
  t.equal(receiver.received.at(-1)!.verified, true, 'given the new secret the receiver takes the re-send');

  // an endpoint whose secret was made before Standard Webhooks (base64url): migration 037
  // keeps its bytes, so the receiver's key is the same bytes in the whsec_ form
  const legacy = 'OqF3b2tSd1-_x9W2nHn7fV0m1sE4yT8uQkL3aZpR6cI';
  await api.db.updateTable('webhook_endpoints').set({ secret: legacy, previous_secret: null, previous_secret_until: null }).where('id', '=', endpoint.id).execute();
  await standardSecrets(api.db);
  const stored = await api.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  receiver.secret = `whsec_${Buffer.from(legacy, 'base64url').toString('base64')}`;
  t.equal(stored.secret, receiver.secret);
  t.equal((await expense(user, wallet)).status, 201);
  await run();
  t.equal(receiver.received.at(-1)!.verified, true, 'verified with the old bytes');
  const listed = (await deliveries(user, endpoint.id)).body.data.data;
  t.same(listed.map((d: any) => d.status), ['succeeded', 'succeeded', 'succeeded']);
});

t.test('after a crash, a dead claim goes out when its lease ends and a retry when its backoff ends, not at the next minute', { timeout: 120_000 }, async (t) => {
  // a process of its own on the same database: a backoff of 2 s, a runner with no minute schedule
  // (only the wakes can run the job late), polling every half second
  const restarted = await startApp(t, { database: api.database, webhooks: { ...api.config.webhooks, retryBaseMs: 2000 } });
  const user = await restarted.newUser();
  const { receiver, endpoint } = await receiverFor(t, user, ['transaction.created']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  t.equal((await expense(user, wallet)).status, 201);
  // the dead worker's claim, with a short lease (3 s from now) instead of the real 70 s
  const leaseEnds = Date.now() + 3000;
  t.ok(await claimNextDelivery(api.db, endpoint.id, new Date(), new Date(leaseEnds)));
  const runner = new JobRunner(restarted.connectionString, [{ ...deliverWebhooksJob, cron: undefined }], { db: restarted.db, services: restarted.app.services, log: restarted.app.log }, 0.5);
  restarted.app.services.jobs.attach(runner);
  await runner.start(); // its run at start finds nothing due yet, and asks to be woken at the lease's end
  const arrivals = async (count: number) => {
    const deadline = Date.now() + 30_000;
    while (receiver.received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return receiver.received.map((hook) => performance.timeOrigin + hook.at);
  };
  try {
    const [delivered] = await arrivals(1);
    t.ok(delivered >= leaseEnds, 'not before the lease ended');
    t.ok(delivered - leaseEnds < 10_000, `delivered ${Math.round(delivered - leaseEnds)} ms after the lease ended (the minute schedule is off)`);

    receiver.behaviour = { kind: 'status', status: 503 };
    t.equal((await restarted.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: wallet } })).status, 201);
    const [, failedAt] = await arrivals(2);
    receiver.behaviour = { kind: 'ok' };
    const [, , retried] = await arrivals(3);
    t.ok(retried, 'the retry arrived');
    t.ok(retried - failedAt >= 2000 - 50, 'after the backoff');
    t.ok(retried - failedAt < 2000 + 10_000, `retried ${Math.round(retried - failedAt)} ms after the failed attempt (backoff 2000 ms)`);
  } finally {
    restarted.app.services.jobs.attach(undefined);
    await runner.stop();
  }
  t.same(allVerified(receiver), []);
});
