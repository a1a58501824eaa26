// Webhook endpoints over HTTP: registration with its one-time secret, validation keyed by
// field, per-user scoping, updates, rotation; and the address rules that keep endpoints out of
// the service's own network.
import t from 'tap';
import { loadConfig } from '../server/config.js';
import { sendWebhook } from '../server/webhook-sender.js';
import { TargetPolicy } from '../server/webhook-targets.js';
import { startApp } from './helpers/harness.js';
import { TEST_ENV } from './helpers/test-environment.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';

const api = await startApp(t, { webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'] } });
const owner = await api.newUser();
const stranger = await api.newUser();

const create = (body: unknown, token = owner.token) => api.request('POST', '/api/v1/webhooks', { token, body });

t.test('an endpoint is registered with a secret shown once', async (t) => {
  const res = await create({ url: 'https://hooks.example.com/finance?x=1', event_kinds: ['transaction.created', 'transfer.created'] });
  t.equal(res.status, 201);
  const endpoint = res.body.data;
  t.match(endpoint, { url: 'https://hooks.example.com/finance?x=1', event_kinds: ['transaction.created', 'transfer.created'], active: true, failing_since: null, consecutive_failures: 0 });
  t.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'Standard Webhooks form: whsec_ and base64');
  t.equal(Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64').length, 32, '32 random bytes');
  t.equal(endpoint.previous_secret_expires_at, null);
  const stored = await api.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  t.equal(stored.secret, endpoint.secret);
  t.equal(stored.user_id, owner.user.id);

  const shown = await api.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.notOk('secret' in shown.body.data, 'a read never shows the secret');
  const listed = await api.request('GET', '/api/v1/webhooks', { token: owner.token });
  t.same(listed.body.data.data.map((e: any) => e.id), [endpoint.id]);
  t.notOk('secret' in listed.body.data.data[0]);

  const rotated = await api.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token: owner.token });
  t.equal(rotated.status, 200);
  t.not(rotated.body.data.secret, endpoint.secret, 'rotation makes a new secret');
  const after = await api.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret', 'previous_secret_until']).where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  t.equal(after.secret, rotated.body.data.secret);
  t.equal(after.previous_secret, endpoint.secret, 'the replaced secret is kept for the grace period');
  t.equal(after.previous_secret_until?.toISOString(), rotated.body.data.previous_secret_expires_at);
  const again = await api.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token: owner.token });
  const last = await api.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  t.same([last.secret, last.previous_secret], [again.body.data.secret, rotated.body.data.secret], 'two secrets at most: the first one no longer signs');
});

t.test('bad input is 422 keyed by field, nothing stored', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ url: 'ftp://hooks.example.com/x', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'not a url', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'https://user:pass@hooks.example.com/x', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: `https://hooks.example.com/${'a'.repeat(2048)}`, event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'http://10.1.2.3/hook', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'http://169.254.169.254/latest/meta-data', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'http://[::1]:8080/hook', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'http://[::ffff:10.0.0.1]/hook', event_kinds: ['transaction.created'] }, 'url'],
    [{ url: 'https://hooks.example.com/x', event_kinds: [] }, 'event_kinds'],
    [{ url: 'https://hooks.example.com/x', event_kinds: ['transaction.created', 'transaction.created'] }, 'event_kinds'],
    [{ url: 'https://hooks.example.com/x', event_kinds: ['account.hacked'] }, 'event_kinds.0'],
    [{ url: 'https://hooks.example.com/x' }, 'event_kinds'],
    [{ url: 'https://hooks.example.com/x', event_kinds: ['transaction.created'], secret: 'mine' }, 'secret'],
  ];
  for (const [body, field] of cases) {
    const res = await create(body, stranger.token);
    t.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
    t.ok(res.body.errors?.[field], `error on ${field}: ${JSON.stringify(res.body.errors)}`);
  }
  const count = await api.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', stranger.user.id).executeTakeFirstOrThrow();
  t.equal(Number(count.n), 0);
  t.equal((await create({ url: 'http://127.0.0.1:9/hook', event_kinds: ['reminder.fired'] }, stranger.token)).status, 201, 'the allow-list admits 127.0.0.1');
});

t.test("another user's endpoint is 404, no token is 401", async (t) => {
  const mine = (await create({ url: 'https://hooks.example.com/mine', event_kinds: ['reminder.fired'] })).body.data;
  const calls: Array<[string, string, unknown?]> = [
    ['GET', `/api/v1/webhooks/${mine.id}`],
    ['PUT', `/api/v1/webhooks/${mine.id}`, { active: false }],
    ['DELETE', `/api/v1/webhooks/${mine.id}`],
    ['POST', `/api/v1/webhooks/${mine.id}/rotate-secret`],
    ['GET', `/api/v1/webhooks/${mine.id}/deliveries`],
    ['POST', `/api/v1/webhooks/${mine.id}/deliveries/1/redeliver`],
  ];
  for (const [method, url, body] of calls) {
    t.equal((await api.request(method, url, { token: stranger.token, body })).status, 404, `${method} ${url} as a stranger`);
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url} without a token`);
  }
  t.notOk((await api.request('GET', '/api/v1/webhooks', { token: stranger.token })).body.data.data.some((e: any) => e.id === mine.id));
  const stored = await api.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', mine.id).executeTakeFirstOrThrow();
  t.equal(stored.active, true, "a stranger's update changed nothing");
});

t.test('an update changes what is sent; turning on again forgets failures; delete removes it', async (t) => {
  const endpoint = (await create({ url: 'https://hooks.example.com/a', event_kinds: ['reminder.fired'] })).body.data;
  await api.db.updateTable('webhook_endpoints').set({ active: false, failing_since: new Date(), consecutive_failures: 5 }).where('id', '=', endpoint.id).execute();
  const res = await api.request('PUT', `/api/v1/webhooks/${endpoint.id}`, {
    token: owner.token,
    body: { url: 'https://hooks.example.com/b', event_kinds: ['transaction.deleted'], active: true },
  });
  t.equal(res.status, 200);
  t.match(res.body.data, { url: 'https://hooks.example.com/b', event_kinds: ['transaction.deleted'], active: true, failing_since: null, consecutive_failures: 0 });
  t.equal((await api.request('PUT', `/api/v1/webhooks/${endpoint.id}`, { token: owner.token, body: {} })).status, 422, 'an empty update');
  t.equal((await api.request('PUT', `/api/v1/webhooks/${endpoint.id}`, { token: owner.token, body: { url: 'http://192.168.1.1/' } })).status, 422);
  t.equal((await api.request('DELETE', `/api/v1/webhooks/${endpoint.id}`, { token: owner.token })).status, 200);
  t.equal((await api.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token: owner.token })).status, 404);
});

t.test('internal addresses are refused unless allowed, IPv4 inside IPv6 too', async (t) => {
  const policy = new TargetPolicy([]);
  for (const address of ['127.0.0.1', '10.0.0.8', '172.31.255.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:a00:1', '64:ff9b::a00:1']) {
    t.ok(policy.refusal(address), `${address} is refused`);
  }
  for (const address of ['93.184.215.14', '2606:4700::1111', '::ffff:93.184.215.14']) t.notOk(policy.refusal(address), `${address} is public`);
  const allowing = new TargetPolicy(['10.0.5.0/24', '::1']);
  t.notOk(allowing.refusal('10.0.5.9'), 'inside an allowed network');
  t.ok(allowing.refusal('10.0.6.9'), 'outside it');
  t.notOk(allowing.refusal('::1'));
  await t.rejects(policy.resolve(new URL('http://127.0.0.1:1/')), /private, loopback or reserved/);
  await t.rejects(policy.resolve(new URL('http://localhost:1/')), /private, loopback or reserved|cannot resolve/, 'a name that resolves inside is refused too');
  t.throws(() => loadConfig({ ...TEST_ENV, WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' }), /WEBHOOK_ALLOWED_NETWORKS/);
});

t.test('at delivery the resolved address is checked again and is the one connected to', async (t) => {
  const receiver = await startWebhookReceiver();
  t.teardown(() => receiver.close());
  const request = (url: string) => ({ url, headers: { 'webhook-id': 'x' }, body: '{}' });
  // an endpoint stored before the rules changed, or a name that now resolves inside
  const refused = await sendWebhook(request(receiver.url), new TargetPolicy([]), 1000);
  t.match(refused, { ok: false, statusCode: null, error: /^refused: 127\.0\.0\.1 is a private/ });
  const byName = await sendWebhook(request(receiver.url.replace('127.0.0.1', 'localhost')), new TargetPolicy([]), 1000);
  t.match(byName.error, /^refused: /, 'a name resolving to loopback is refused too');
  t.equal(receiver.received.length, 0, 'nothing reached the receiver');
  const allowed = await sendWebhook(request(receiver.url.replace('127.0.0.1', 'localhost')), new TargetPolicy(['127.0.0.1', '::1']), 1000);
  t.match(allowed, { ok: true, statusCode: 200, error: null });
  t.equal(receiver.received[0].headers.host, `localhost:${new URL(receiver.url).port}`, 'the name stays the Host; the connection goes to the checked address');
});
