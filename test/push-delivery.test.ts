// Push delivery end to end: notifications made by the reminder job, by a write that crosses a
// budget's threshold and by the inactivity job are queued in their own transaction and sent by
// the deliver-push job to a Web Push service on 127.0.0.1 (the browser's keys decrypt the
// payload; the VAPID signature verifies), to FCM's HTTP v1 API faked on 127.0.0.1 through
// firebase-admin itself, and to an ntfy topic. Preferences decide; 404/410 remove a
// subscription; faults are retried later; a rolled-back change sends nothing; a claimed push is
// sent once; one user's burst does not hold up another user's push.
import { importJWK, jwtVerify } from 'jose';
import t, { type Test } from 'tap';
import { claimDuePush } from '../db/push-deliveries.js';
import { notifyUser } from '../db/notification-delivery.js';
import { deliverDuePushes, pushSendersFor } from '../jobs/deliver-push.js';
import { fireDueReminders } from '../jobs/fire-reminders.js';
import { sendInactivityNudges } from '../jobs/inactivity-nudges.js';
import { loadConfig } from '../server/config.js';
import { startFcmFake } from './helpers/fcm-fake.js';
import { startApp } from './helpers/harness.js';
import { browserSubscription, decryptPush, type BrowserSubscription } from './helpers/push-clients.js';
import { TEST_ENV } from './helpers/test-environment.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const RETRY_BASE_MS = 60_000;
const fcm = await startFcmFake();
t.teardown(() => fcm.close());
const base = loadConfig({ ...TEST_ENV, MAIL_FROM: 'Finance <alerts@finance.example>' });
const api = await startApp(t, {
  webhooks: { ...base.webhooks, allowedNetworks: ['127.0.0.1'] },
  push: { ...base.push, retryBaseMs: RETRY_BASE_MS, maxAttempts: 3, timeoutMs: 5000, concurrency: 4, fcm: { serviceAccount: fcm.serviceAccount, agent: fcm.agent } },
});
t.teardown(() => pushSendersFor(api.app.services).close());
const fixtures = ledgerFixtures(api);
const run = () => deliverDuePushes(api.db, api.app.services);

async function receiver(t: Test, path?: string): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(path);
  t.teardown(() => started.close());
  return started;
}

async function subscribeBrowser(user: { token: string }, at: WebhookReceiver): Promise<BrowserSubscription & { id: number }> {
  const browser = browserSubscription(at.url);
  const res = await api.request('POST', '/api/v1/push/subscriptions', { token: user.token, body: browser.json });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { ...browser, id: res.body.data.id };
}

async function subscribe(user: { token: string }, body: unknown): Promise<number> {
  const res = await api.request('POST', '/api/v1/push/subscriptions', { token: user.token, body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.id;
}

/** A reminder due in the past, fired by the reminder job as it runs every minute. */
async function fireReminder(user: { token: string }, title: string, description = 'It is the 1st') {
  const res = await api.request('POST', '/api/v1/reminders', { token: user.token, body: { title, description, trigger_at: '2020-01-01T00:00:00Z' } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await fireDueReminders(api.db, new Date());
  return res.body.data;
}

const pushesOf = (userId: number) => api.db.selectFrom('push_deliveries').selectAll().where('user_id', '=', userId).orderBy('id').execute();
const subscriptionRow = (id: number) => api.db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
const makeDue = (userId: number) => api.db.updateTable('push_deliveries').set({ next_attempt_at: new Date(Date.now() - 1000) }).where('user_id', '=', userId).where('status', '=', 'pending').execute();

t.test('a reminder reaches a browser: encrypted for its keys, signed with the VAPID key', async (t) => {
  const user = await api.newUser();
  const service = await receiver(t, '/push/v2/abc');
  const browser = await subscribeBrowser(user, service);
  const reminder = await fireReminder(user, 'Pay rent', 'Rent is due — 950 EUR');
  t.equal(service.received.length, 0, 'nothing is pushed inside the job that fired it');
  const [queued] = await pushesOf(user.user.id);
  t.match(queued, { status: 'pending', subscription_id: browser.id, attempts: 0 });

  t.match(await run(), { attempts: 1, sent: 1 });
  t.equal(service.received.length, 1);
  const [push] = service.received;
  t.equal(push.url, '/push/v2/abc');
  t.equal(push.headers['content-encoding'], 'aes128gcm');
  t.equal(push.headers.ttl, '86400');
  t.notOk(push.raw.includes('Pay rent'), 'the payload is not readable on the wire');
  const payload = JSON.parse(decryptPush(push.raw, browser));
  const notification = await api.db.selectFrom('notifications').selectAll().where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
  t.same(payload, {
    title: 'Pay rent',
    body: 'Rent is due — 950 EUR',
    type: 'reminder',
    topic: 'reminders',
    notification_id: notification.id,
    data: { reminder_id: reminder.id, reminder_type: notification.data.reminder_type },
  });

  // RFC 8292: Authorization: vapid t=<ES256 JWT>, k=<the server's public key>
  const vapid = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(String(push.headers.authorization));
  t.ok(vapid, String(push.headers.authorization));
  const server = await api.request('GET', '/api/v1/push/server', { token: user.token });
  t.equal(vapid![2], server.body.data.vapid_public_key, 'k is the key browsers subscribed with');
  const point = Buffer.from(vapid![2], 'base64url');
  const key = await importJWK({ kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, 'ES256');
  const { payload: claims } = await jwtVerify(vapid![1], key, { audience: new URL(service.url).origin, subject: 'mailto:alerts@finance.example' });
  t.ok(claims.exp! > Date.now() / 1000, 'not expired');

  t.match(await pushesOf(user.user.id), [{ status: 'sent', attempts: 1, last_error: null }]);
  t.ok((await subscriptionRow(browser.id))!.last_success_at, 'the subscription shows its last success');
  t.match(await run(), { attempts: 0 }, 'a sent push is not sent again');
});

t.test('an ntfy topic gets a plain POST with the title in a header', async (t) => {
  const user = await api.newUser();
  const topic = await receiver(t, '/finance-alerts');
  await subscribe(user, { kind: 'ntfy', endpoint: topic.url });
  await fireReminder(user, 'Loyer de décembre', 'Payer le loyer');
  await run();
  t.equal(topic.received.length, 1);
  const [post] = topic.received;
  t.equal(post.url, '/finance-alerts');
  t.equal(post.body, 'Payer le loyer');
  t.match(post.headers['content-type'], /^text\/plain/);
  const title = /^=\?UTF-8\?B\?(.+)\?=$/.exec(String(post.headers.title));
  t.ok(title, 'non-ASCII titles are RFC 2047-encoded, as ntfy reads them');
  t.equal(Buffer.from(title![1], 'base64').toString('utf8'), 'Loyer de décembre');
  t.equal(post.headers.tags, 'reminder');
});

t.test('a device gets the reminder through FCM (firebase-admin against a local fake of its API)', async (t) => {
  const user = await api.newUser();
  const token = `device-${Date.now()}:APA91b`;
  await subscribe(user, { kind: 'fcm', token });
  const server = await api.request('GET', '/api/v1/push/server', { token: user.token });
  t.same(server.body.data.kinds, ['webpush', 'fcm', 'ntfy'], 'FCM is offered once credentials are configured');
  const before = fcm.messages.length;
  const reminder = await fireReminder(user, 'Pay rent');
  t.match(await run(), { sent: 1 });
  t.equal(fcm.messages.length, before + 1);
  const message = fcm.messages.at(-1)!;
  t.equal(message.token, token);
  t.same(message.notification, { title: 'Pay rent', body: 'It is the 1st' });
  t.match(message.data, { type: 'reminder', topic: 'reminders' });
  t.match(JSON.parse(message.data!.data), { reminder_id: reminder.id });
  t.ok(fcm.tokensIssued >= 1, 'the SDK signed in with the service account (its assertion verified)');
});

t.test('a subscription the service no longer knows is removed: Web Push 410 and 404, FCM UNREGISTERED', async (t) => {
  const user = await api.newUser();
  const expired = await receiver(t);
  expired.behaviour = { kind: 'status', status: 410 };
  const unknown = await receiver(t);
  unknown.behaviour = { kind: 'status', status: 404 };
  const ok = await receiver(t);
  const ids = [(await subscribeBrowser(user, expired)).id, (await subscribeBrowser(user, unknown)).id, (await subscribeBrowser(user, ok)).id];
  const token = `gone-${Date.now()}`;
  fcm.unregistered.add(token);
  ids.push(await subscribe(user, { kind: 'fcm', token }));
  await fireReminder(user, 'First');
  await fireReminder(user, 'Second');
  const counts = await run();
  // one answer removes the subscription with its other pending push, unless a second worker had claimed that one already
  t.ok(counts.gone >= 3 && counts.gone <= 6, `answered gone ${counts.gone} times`);
  t.equal(ok.received.length, 2);
  for (const id of [ids[0], ids[1], ids[3]]) t.notOk(await subscriptionRow(id), `subscription ${id} is gone`);
  t.ok(await subscriptionRow(ids[2]));
  t.same((await pushesOf(user.user.id)).map((p) => p.status), ['sent', 'sent'], 'only the working subscription keeps its pushes');
  const listed = await api.request('GET', '/api/v1/push/subscriptions', { token: user.token });
  t.same(listed.body.data.data.map((s: any) => s.id), [ids[2]]);
});

t.test('a fault is retried later with backoff, then given up; no answer in time counts as a fault', async (t) => {
  const user = await api.newUser();
  const flaky = await receiver(t);
  flaky.behaviour = { kind: 'status', status: 500 };
  const browser = await subscribeBrowser(user, flaky);
  const token = `busy-${Date.now()}`;
  fcm.failing.add(token);
  await subscribe(user, { kind: 'fcm', token });
  await fireReminder(user, 'Pay rent');
  // the run asks the queue for a run when the backoff ends (no nudge comes then)
  const wakes: Array<[string, Date]> = [];
  api.app.services.jobs.attach({ send: async () => {}, wakeAt: async (name, at) => void wakes.push([name, at]) });
  t.teardown(() => api.app.services.jobs.attach(undefined));
  t.match(await run(), { attempts: 2, retrying: 2 });
  let pushes = await pushesOf(user.user.id);
  t.same(pushes.map((p) => [p.status, p.attempts]), [['pending', 1], ['pending', 1]], 'both wait for another try');
  for (const push of pushes) t.equal(push.next_attempt_at.getTime() - push.updated_at.getTime(), RETRY_BASE_MS, 'tried again PUSH_RETRY_BASE_MS after the attempt');
  const firstRetry = Math.min(...pushes.map((p) => p.next_attempt_at.getTime()));
  t.same(wakes.map(([name, at]) => [name, at.getTime()]), [['deliver-push', firstRetry]], 'woken when the first backoff ends');
  api.app.services.jobs.attach(undefined);
  t.match(pushes.find((p) => p.subscription_id === browser.id)!.last_error, /HTTP 500/);
  t.match(pushes.find((p) => p.subscription_id !== browser.id)!.last_error, /internal-error/);
  t.match(await run(), { attempts: 0 }, 'not before then');

  // the services recover by the next try
  flaky.behaviour = { kind: 'ok' };
  fcm.failing.delete(token);
  await makeDue(user.user.id);
  t.match(await run(), { attempts: 2, sent: 2 });
  t.equal(flaky.received.length, 2);
  t.equal(JSON.parse(decryptPush(flaky.received[1].raw, browser)).title, 'Pay rent');

  // a service that keeps failing: given up after PUSH_MAX_ATTEMPTS (3), recorded on the subscription
  flaky.behaviour = { kind: 'close' };
  await fireReminder(user, 'Again');
  for (let attempt = 0; attempt < 3; attempt++) {
    await makeDue(user.user.id);
    await run();
  }
  pushes = (await pushesOf(user.user.id)).slice(-2);
  t.match(pushes.find((p) => p.subscription_id === browser.id), { status: 'failed', attempts: 3 });
  t.match(pushes.find((p) => p.subscription_id !== browser.id), { status: 'sent', attempts: 1 }, 'FCM took its copy at once');
  t.ok((await subscriptionRow(browser.id))!.last_failure_at);
});

t.test('preferences decide: the push channel and the type switches', async (t) => {
  const user = await api.newUser();
  const service = await receiver(t);
  await subscribeBrowser(user, service);
  const prefer = (body: unknown) => api.request('PUT', '/api/v1/notifications/preferences', { token: user.token, body });
  t.equal((await prefer({ channels: { push: false } })).status, 200);
  await fireReminder(user, 'Silent on push');
  t.same(await pushesOf(user.user.id), [], 'push off: nothing queued');
  t.equal((await api.db.selectFrom('notifications').select('id').where('user_id', '=', user.user.id).execute()).length, 1, 'in-app still made');
  await prefer({ channels: { push: true }, types: { reminders: false } });
  await fireReminder(user, 'Reminders off');
  t.same(await pushesOf(user.user.id), [], 'the type off: nothing queued');
  await prefer({ types: { reminders: true }, channels: { inapp: false } });
  await fireReminder(user, 'Push only');
  await run();
  t.equal(service.received.length, 1, 'push without in-app');
});

t.test('a rolled-back change pushes nothing', async (t) => {
  const user = await api.newUser();
  const service = await receiver(t);
  await subscribeBrowser(user, service);
  await t.rejects(
    api.db.transaction().execute(async (trx) => {
      await notifyUser(trx, user.user.id, 'alerts', { type: 'alert', title: 'Budget near limit', body: '90% used' });
      t.equal((await trx.selectFrom('push_deliveries').select('id').where('user_id', '=', user.user.id).execute()).length, 1, 'queued inside the transaction');
      throw new Error('the write failed');
    }),
    /the write failed/,
  );
  t.same(await pushesOf(user.user.id), []);
  await run();
  t.equal(service.received.length, 0);
});

t.test('a budget alert made by a write is pushed; the request nudges the job after its commit', async (t) => {
  const nudged: string[] = [];
  api.app.services.jobs.attach({ send: async (name) => void nudged.push(name) });
  t.teardown(() => api.app.services.jobs.attach(undefined));
  const user = await api.newUser();
  const service = await receiver(t);
  const browser = await subscribeBrowser(user, service);
  const wallet = await fixtures.wallet(user.user.id, { balance: '1000', currency: 'EUR' });
  const budget = await api.request('POST', '/api/v1/budgets', {
    token: user.token,
    body: { name: 'Food', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: new Date().toISOString().slice(0, 8) + '01', threshold_percent: 80 },
  });
  t.equal(budget.status, 201);
  nudged.length = 0;
  t.equal((await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 90, wallet_id: wallet } })).status, 201);
  t.ok(nudged.includes('deliver-push'), `nudged: ${nudged}`);
  t.equal(service.received.length, 0, 'not sent inside the request');
  await run();
  t.equal(service.received.length, 1);
  t.match(JSON.parse(decryptPush(service.received[0].raw, browser)), { title: 'Budget near limit: Food', type: 'alert', topic: 'alerts', data: { budget_id: budget.body.data.id, kind: 'threshold' } });
});

t.test('a claimed push is sent once by two workers; a claim abandoned by a dead worker is sent later', async (t) => {
  const user = await api.newUser();
  const service = await receiver(t);
  service.behaviour = { kind: 'slow', ms: 20 };
  const { id: subscriptionId } = await subscribeBrowser(user, service);
  for (let i = 0; i < 6; i++) await fireReminder(user, `Reminder ${i}`);
  // a worker claimed the oldest and died before sending: its lease ran out at once
  const now = new Date();
  t.ok(await claimDuePush(api.db, subscriptionId, now, new Date(now.getTime() - 1)));
  const [a, b] = await Promise.all([run(), run()]);
  t.equal(a.sent + b.sent, 6);
  t.equal(service.received.length, 6, 'each push arrived once');
  t.same((await pushesOf(user.user.id)).map((p) => [p.status, p.attempts]), [['sent', 2], ...Array.from({ length: 5 }, () => ['sent', 1])], 'the abandoned claim counted as an attempt');
});

t.test('without FCM credentials a push to a device token fails at once with the reason', async (t) => {
  const plain = await startApp(t, { database: api.database, webhooks: api.config.webhooks, push: { ...base.push, fcm: undefined } });
  const user = await plain.newUser();
  const id = await subscribe(user, { kind: 'fcm', token: `unconfigured-${Date.now()}` });
  t.same((await plain.request('GET', '/api/v1/push/server', { token: user.token })).body.data.kinds, ['webpush', 'ntfy']);
  await fireReminder(user, 'Pay rent');
  t.match(await deliverDuePushes(plain.db, plain.app.services), { attempts: 1, failed: 1 });
  t.match(await pushesOf(user.user.id), [{ status: 'failed', last_error: 'FCM is not configured on this server (FCM_SERVICE_ACCOUNT)' }]);
  t.match(await subscriptionRow(id), { last_error: 'FCM is not configured on this server (FCM_SERVICE_ACCOUNT)' });
});

t.test('an inactivity nudge is pushed too; a notification too large for a push loses its data, then body text', async (t) => {
  const user = await api.newUser();
  const service = await receiver(t);
  const browser = await subscribeBrowser(user, service);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  t.equal((await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: wallet } })).status, 201);
  await api.db.updateTable('transactions').set({ created_at: new Date(Date.now() - 8 * 86_400_000) }).where('user_id', '=', user.user.id).execute();
  t.ok((await sendInactivityNudges(api.db, new Date())) >= 1);
  await api.db.transaction().execute((trx) =>
    notifyUser(trx, user.user.id, 'insights', { type: 'system', title: 'Monthly Financial Insights', body: 'é'.repeat(3000), data: { rows: 'x'.repeat(3000) } }),
  );
  await run();
  t.equal(service.received.length, 2);
  const [nudge, large] = service.received.map((push) => JSON.parse(decryptPush(push.raw, browser)));
  t.match(nudge, { type: 'alert', topic: 'inactivity', body: /^8 days since your last transaction/, data: { type: 'inactivity', days_inactive: 8 } });
  t.same(large.data, {}, 'the data went first');
  t.match(large.body, /^é+…$/, 'then the body was shortened');
  t.ok(service.received[1].raw.length <= 4096, `one push record (${service.received[1].raw.length} bytes)`);
});

t.test("one user's burst of pushes does not delay another user's push", async (t) => {
  const BURST = 300;
  const busy = await api.newUser();
  const other = await api.newUser();
  const flooded = await receiver(t, '/busy');
  flooded.behaviour = { kind: 'slow', ms: 5 };
  const quiet = await receiver(t, '/quiet');
  await subscribe(busy, { kind: 'ntfy', endpoint: flooded.url });
  await subscribe(other, { kind: 'ntfy', endpoint: quiet.url });
  // thousands of reminders due in one minute, as one transaction of the reminder job makes them
  await api.db.transaction().execute(async (trx) => {
    for (let i = 0; i < BURST; i++) await notifyUser(trx, busy.user.id, 'reminders', { type: 'reminder', title: `Bill ${i}`, body: 'Due today' });
  });
  const pending = run();
  for (let waited = 0; flooded.received.length < 40 && waited < 10_000; waited++) await new Promise((resolve) => setTimeout(resolve, 1));
  // committed while the burst is being sent
  await api.db.transaction().execute((trx) => notifyUser(trx, other.user.id, 'reminders', { type: 'reminder', title: 'Rent', body: 'Due today' }));
  await pending;
  t.equal(flooded.received.length, BURST, 'the burst is sent in full');
  t.equal(quiet.received.length, 1);
  const before = flooded.received.filter((push) => push.at < quiet.received[0].at).length;
  t.ok(before < 40 + 60, `the other user's push arrived after ${before} of the burst's ${BURST}`);
});
