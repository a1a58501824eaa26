// Push subscriptions over HTTP: a browser's PushSubscription posted as it is, device tokens,
// ntfy topics; one row per endpoint or token (a device token moves with its device), validation
// keyed by field, per-user scoping; the VAPID key a browser subscribes with, made once and shared.
import t from 'tap';
import { loadConfig } from '../server/config.js';
import { startApp } from './helpers/harness.js';
import { browserSubscription } from './helpers/push-clients.js';
import { TEST_ENV } from './helpers/test-environment.js';

const api = await startApp(t, { webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'] } });
const owner = await api.newUser();
const stranger = await api.newUser();

const register = (body: unknown, token = owner.token) => api.request('POST', '/api/v1/push/subscriptions', { token, body });
const list = (token = owner.token) => api.request('GET', '/api/v1/push/subscriptions', { token });
const rowsOf = (userId: number) => api.db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).orderBy('id').execute();

t.test('the VAPID public key is made once, kept in the database and the same for every process', async (t) => {
  const res = await api.request('GET', '/api/v1/push/server', { token: owner.token });
  t.equal(res.status, 200);
  const key = Buffer.from(res.body.data.vapid_public_key, 'base64url');
  t.equal(key.length, 65, 'an uncompressed P-256 point');
  t.equal(key[0], 4);
  t.same(res.body.data.kinds, ['webpush', 'ntfy'], 'no FCM without credentials');
  const stored = await api.db.selectFrom('vapid_keys').selectAll().execute();
  t.equal(stored.length, 1);
  t.equal(stored[0].public_key, res.body.data.vapid_public_key);
  const other = await startApp(t, { database: api.database });
  const again = await other.request('GET', '/api/v1/push/server', { token: owner.token });
  t.equal(again.body.data.vapid_public_key, res.body.data.vapid_public_key, 'another process on the database signs with the same pair');
});

t.test('VAPID keys from the environment win; bad ones stop the start', async (t) => {
  const keys = { VAPID_PUBLIC_KEY: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', VAPID_PRIVATE_KEY: 'vTF8Ly5FUpGwUJ-Gl4X3S9yqMAR0bDfnKLJ5Qs8YQAE' };
  const configured = await startApp(t, { database: api.database, push: loadConfig({ ...TEST_ENV, ...keys, VAPID_SUBJECT: 'https://finance.example.com' }).push });
  const res = await configured.request('GET', '/api/v1/push/server', { token: owner.token });
  t.equal(res.body.data.vapid_public_key, keys.VAPID_PUBLIC_KEY);
  t.throws(() => loadConfig({ ...TEST_ENV, VAPID_PUBLIC_KEY: keys.VAPID_PUBLIC_KEY }), /set together/);
  t.throws(() => loadConfig({ ...TEST_ENV, ...keys, VAPID_PUBLIC_KEY: 'short' }), /VAPID_PUBLIC_KEY/);
  t.throws(() => loadConfig({ ...TEST_ENV, VAPID_SUBJECT: 'me@example.com' }), /VAPID_SUBJECT/);
  t.throws(() => loadConfig({ ...TEST_ENV, FCM_SERVICE_ACCOUNT: '{"project_id":"p"}' }), /FCM_SERVICE_ACCOUNT lacks client_email, private_key/);
  t.throws(() => loadConfig({ ...TEST_ENV, FCM_SERVICE_ACCOUNT: '/nowhere/key.json' }), /no file at/);
  t.equal(loadConfig({ ...TEST_ENV, MAIL_FROM: 'Finance <alerts@finance.example>' }).push.vapidSubject, 'mailto:alerts@finance.example');
});

t.test("a browser's subscription is posted as toJSON() gives it; registering it again updates the one row", async (t) => {
  const browser = browserSubscription('https://push.example.net/send/abc123');
  const res = await register(browser.json);
  t.equal(res.status, 201);
  t.match(res.body.data, { kind: 'webpush', endpoint: 'https://push.example.net/send/abc123', token: null, expires_at: null, last_error: null });
  t.notOk('keys' in res.body.data, 'the keys are never shown');
  const [stored] = await rowsOf(owner.user.id);
  t.match(stored, { kind: 'webpush', address: 'https://push.example.net/send/abc123', p256dh: browser.json.keys.p256dh, auth: browser.json.keys.auth });

  const renewed = browserSubscription('https://push.example.net/send/abc123');
  const again = await register({ ...renewed.json, expirationTime: Date.parse('2027-01-01T00:00:00Z') });
  t.equal(again.status, 200, 'the same endpoint again: updated, not added');
  t.equal(again.body.data.id, res.body.data.id);
  t.equal(again.body.data.expires_at, '2027-01-01T00:00:00.000Z');
  const rows = await rowsOf(owner.user.id);
  t.equal(rows.length, 1);
  t.equal(rows[0].p256dh, renewed.json.keys.p256dh, 'the new keys replace the old');
  const listed = await list();
  t.same(listed.body.data.data.map((s: any) => s.id), [res.body.data.id]);
  t.match(listed.body.data, { total: 1, current_page: 1, last_page: 1 });
});

t.test('a device token moves to the account that registers it last, without the previous pushes', async (t) => {
  const token = `fcm-token-${Date.now()}:APA91b-xyz`;
  const first = await register({ kind: 'fcm', token }, stranger.token);
  t.equal(first.status, 201);
  t.match(first.body.data, { kind: 'fcm', token, endpoint: null });
  await api.db.insertInto('push_deliveries').values({ user_id: stranger.user.id, subscription_id: first.body.data.id, payload: '{"title":"private"}' }).execute();
  const other = await api.newUser();
  const moved = await register({ kind: 'fcm', token }, other.token);
  t.equal(moved.status, 201, 'new to this account');
  t.equal(moved.body.data.id, first.body.data.id, 'the same row, moved');
  t.same(await rowsOf(stranger.user.id), [], 'the previous account no longer has it');
  t.equal((await rowsOf(other.user.id)).length, 1);
  t.same(await api.db.selectFrom('push_deliveries').select('id').where('subscription_id', '=', first.body.data.id).execute(), [], "the previous account's queued pushes are dropped");
});

t.test('an ntfy topic URL is registered', async (t) => {
  const res = await register({ kind: 'ntfy', endpoint: 'https://ntfy.sh/finance-alerts-5f3c?auth=dGs' });
  t.equal(res.status, 201);
  t.match(res.body.data, { kind: 'ntfy', endpoint: 'https://ntfy.sh/finance-alerts-5f3c?auth=dGs', token: null });
  t.equal((await register({ kind: 'ntfy', endpoint: 'http://127.0.0.1:9/topic' })).status, 201, 'the allow-list admits 127.0.0.1');
  t.equal((await register({ kind: 'ntfy', endpoint: 'https://ntfy.sh/finance-alerts-5f3c?auth=dGs' })).status, 200, 'once per user');
  const shared = await register({ kind: 'ntfy', endpoint: 'https://ntfy.sh/finance-alerts-5f3c?auth=dGs' }, stranger.token);
  t.equal(shared.status, 201, 'a topic is no device: another user subscribes to it too');
  t.not(shared.body.data.id, res.body.data.id);
  t.equal((await list()).body.data.data.filter((s: any) => s.kind === 'ntfy').length, 2, 'the first user keeps it');
  t.equal((await api.request('DELETE', `/api/v1/push/subscriptions/${shared.body.data.id}`, { token: stranger.token })).status, 200);
});

t.test('bad input is 422 keyed by field, nothing stored', async (t) => {
  const browser = browserSubscription('https://push.example.net/send/bad');
  const offCurve = Buffer.from(browser.json.keys.p256dh, 'base64url');
  offCurve[40] ^= 1;
  const cases: Array<[unknown, string]> = [
    [{ ...browser.json, kind: 'apns' }, 'kind'],
    [{ ...browser.json, endpoint: 'not a url' }, 'endpoint'],
    [{ ...browser.json, endpoint: 'ftp://push.example.net/x' }, 'endpoint'],
    [{ ...browser.json, endpoint: 'https://user:pw@push.example.net/x' }, 'endpoint'],
    [{ ...browser.json, endpoint: 'http://10.0.0.5/push' }, 'endpoint'],
    [{ ...browser.json, endpoint: 'http://[::1]/push' }, 'endpoint'],
    [{ ...browser.json, endpoint: undefined }, 'endpoint'],
    [{ ...browser.json, keys: undefined }, 'keys'],
    [{ ...browser.json, keys: { auth: browser.json.keys.auth } }, 'keys.p256dh'],
    [{ ...browser.json, keys: { ...browser.json.keys, p256dh: 'not-a-key' } }, 'keys.p256dh'],
    [{ ...browser.json, keys: { ...browser.json.keys, p256dh: offCurve.toString('base64url') } }, 'keys.p256dh'],
    [{ ...browser.json, keys: { ...browser.json.keys, auth: 'c2hvcnQ' } }, 'keys.auth'],
    [{ ...browser.json, token: 'abc' }, 'token'],
    [{ ...browser.json, extra: 1 }, 'extra'],
    [{ kind: 'fcm' }, 'token'],
    [{ kind: 'fcm', token: 'two words' }, 'token'],
    [{ kind: 'fcm', token: 'abc', endpoint: 'https://push.example.net/x' }, 'endpoint'],
    [{ kind: 'fcm', token: 'abc', keys: browser.json.keys }, 'keys'],
    [{ kind: 'ntfy' }, 'endpoint'],
    [{ kind: 'ntfy', endpoint: 'https://ntfy.sh/' }, 'endpoint'],
    [{ kind: 'ntfy', endpoint: 'https://ntfy.sh/topic', keys: browser.json.keys }, 'keys'],
    [{ kind: 'ntfy', endpoint: 'http://192.168.1.2/topic' }, 'endpoint'],
  ];
  for (const [body, field] of cases) {
    const res = await register(body, stranger.token);
    t.equal(res.status, 422, JSON.stringify(body).slice(0, 100));
    t.ok(res.body.errors?.[field], `error on ${field}: ${JSON.stringify(res.body.errors)}`);
  }
  const several = await register({ kind: 'webpush', endpoint: 'http://10.0.0.5/push', keys: { p256dh: 'x', auth: 'y' } }, stranger.token);
  t.same(Object.keys(several.body.errors).sort(), ['endpoint', 'keys.auth', 'keys.p256dh'], 'every wrong field is named at once');
  t.same(await rowsOf(stranger.user.id), []);
});

t.test("another user's subscription is 404, no token is 401", async (t) => {
  const mine = (await register(browserSubscription('https://push.example.net/send/mine').json)).body.data;
  t.equal((await api.request('DELETE', `/api/v1/push/subscriptions/${mine.id}`, { token: stranger.token })).status, 404);
  t.notOk((await list(stranger.token)).body.data.data.some((s: any) => s.id === mine.id));
  for (const [method, url, body] of [
    ['GET', '/api/v1/push/server'],
    ['GET', '/api/v1/push/subscriptions'],
    ['POST', '/api/v1/push/subscriptions', browserSubscription('https://push.example.net/send/anon').json],
    ['DELETE', `/api/v1/push/subscriptions/${mine.id}`],
  ] as const) {
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url} without a token`);
  }
  t.equal((await rowsOf(owner.user.id)).filter((row) => row.id === mine.id).length, 1, "the stranger's delete changed nothing");
  t.equal((await api.request('DELETE', `/api/v1/push/subscriptions/${mine.id}`, { token: owner.token })).status, 200);
  t.equal((await api.request('DELETE', `/api/v1/push/subscriptions/${mine.id}`, { token: owner.token })).status, 404, 'gone');
  t.equal((await api.request('DELETE', '/api/v1/push/subscriptions/abc', { token: owner.token })).status, 404);
});
