// Configurations over HTTP: each key's value rule, conversion to the declared type, upsert on
// the key (a deleted entry revived), tombstones, and addressing by key.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { negativeBalanceAllowed } from '../db/balances.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

type Body = Record<string, unknown>;

const post = (body: Body, token = owner.token) => api.request('POST', '/api/v1/configurations', { token, body });
const put = (key: string, body: Body, token = owner.token) => api.request('PUT', `/api/v1/configurations/${key}`, { token, body });
const get = (key: string, token = owner.token) => api.request('GET', `/api/v1/configurations/${key}`, { token });

async function storedEntries(userId: number) {
  return api.db.selectFrom('configurations').select(['key', 'type', 'value', 'deleted_at']).where('user_id', '=', userId).orderBy('id').execute();
}

t.test('registration seeds default-group and default-wallet; the list is one page', async (t) => {
  const user = await api.newUser();
  const res = await api.request('GET', '/api/v1/configurations', { token: user.token });
  t.equal(res.status, 200);
  t.match(res.body.data, { current_page: 1, last_page: 1, per_page: 2, total: 2 });
  const byKey = Object.fromEntries(res.body.data.data.map((c: { key: string; value: unknown }) => [c.key, c]));
  const wallet = (await api.request('GET', '/api/v1/wallets', { token: user.token })).body.data.data[0];
  t.match(byKey['default-wallet'], { type: 'string', value: wallet.client_generated_id, user_id: user.user.id, deleted_at: null });
  t.match(byKey['default-group'], { type: 'string', value: /^00000000-0000-0000-0000-000000000000:/ });
  t.equal(res.body.data.last_sync, [...res.body.data.data].map((c: { last_synced_at: string }) => c.last_synced_at).sort().at(-1));

  for (const entry of res.body.data.data) t.match(entry.client_generated_id, /^00000000-0000-0000-0000-000000000000:/, 'seeded with a server client id');
  const serverMade = await api.request('GET', '/api/v1/configurations?no_client_id=true', { token: user.token });
  t.equal(serverMade.body.data.total, 0, 'the seeded entries have client ids');
  await post({ key: 'theme', type: 'string', value: 'dark' }, user.token);
  const withId = await post({ key: 'default-lang', type: 'string', value: 'fr', client_id: clientId() }, user.token);
  t.equal(withId.status, 201);
  const again = await api.request('GET', '/api/v1/configurations?no_client_id=true', { token: user.token });
  t.same(again.body.data.data.map((c: { key: string }) => c.key), ['theme'], 'only the entry made without a client id');
});

t.test('every key accepts its kind of value, stored with its JSON type', async (t) => {
  const user = await api.newUser();
  const cases: Array<[string, string, unknown, unknown]> = [
    ['default-wallet', 'string', `${randomUUID()}:${randomUUID()}`, undefined],
    ['default-currency', 'string', 'EUR', 'EUR'],
    ['default-group', 'string', '42', '42'],
    ['default-lang', 'string', 'fr', 'fr'],
    ['country', 'string', 'Cameroon', 'Cameroon'],
    ['onboarding-complete', 'bool', true, true],
    ['theme', 'string', 'system', 'system'],
    ['timezone', 'string', 'Europe/Paris', 'Europe/Paris'],
    ['manual-exchange-rates', 'string', '{"USD-EUR": 0.92, "EUR-XAF": 655.957}', '{"USD-EUR": 0.92, "EUR-XAF": 655.957}'],
    ['notifications-email', 'bool', false, false],
    ['notifications-push', 'bool', 'yes', true],
    ['notifications-inapp', 'bool', 'off', false],
    ['notifications-reminders', 'bool', 1, true],
    ['notifications-insights', 'bool', '0', false],
    ['notifications-inactivity', 'bool', 'TRUE', true],
    ['insights-frequency', 'string', 'weekly', 'weekly'],
    ['inactivity-reminders-enabled', 'bool', true, true],
    ['inactivity-reminder-count', 'int', '3', 3],
    ['last-inactivity-reminder-sent', 'date', '2026-03-01', '2026-03-01'],
    ['wallets-allow-negative-balance', 'bool', 'true', true],
    ['transaction-intents-enabled', 'json', true, true],
    ['asset-tracking-enabled', 'bool', false, false],
    ['landing-experience', 'string', 'chat', 'chat'],
  ];
  for (const [key, type, value, expected] of cases) {
    const res = await post({ key, type, value }, user.token);
    const isNew = key !== 'default-wallet' && key !== 'default-group';
    t.equal(res.status, isNew ? 201 : 200, `${key}: ${isNew ? 'created' : 'seeded entry updated'}`);
    t.match(res.body.data, { key, type });
    t.same(res.body.data.value, expected === undefined ? value : expected, `${key} stored as ${JSON.stringify(expected ?? value)}`);
    t.same((await get(key, user.token)).body.data.value, res.body.data.value, `${key} reads back the same`);
  }
  t.equal(await negativeBalanceAllowed(api.db, user.user.id), true, 'the ledger reads the stored boolean');
  t.same((await post({ key: 'default-currency', type: 'string', value: 'USD' }, user.token)).body.message, 'Configuration updated successfully');
});

t.test("values breaking the key's rule or the type are 422 on value and write nothing", async (t) => {
  const user = await api.newUser();
  const before = await storedEntries(user.user.id);
  const cases: Array<[string, string, unknown]> = [
    ['default-currency', 'string', 'A-VERY-LONG-CODE'],
    ['default-currency', 'string', ''],
    ['default-currency', 'string', null],
    ['default-lang', 'string', { code: 'fr' }],
    ['country', 'string', 'x'.repeat(61)],
    ['onboarding-complete', 'bool', 'maybe'],
    ['onboarding-complete', 'string', true],
    ['onboarding-complete', 'int', 1],
    ['theme', 'string', 'blue'],
    ['timezone', 'string', 'Mars/Olympus_Mons'],
    ['timezone', 'string', '+01:00'],
    ['manual-exchange-rates', 'string', 'not json'],
    ['manual-exchange-rates', 'string', '[1, 2]'],
    ['manual-exchange-rates', 'string', '{"usd-eur": 0.9}'],
    ['manual-exchange-rates', 'string', '{"USD-EUR": -1}'],
    ['manual-exchange-rates', 'json', { 'USD-EUR': 0.92 }],
    ['notifications-email', 'bool', null],
    ['insights-frequency', 'string', 'hourly'],
    ['inactivity-reminder-count', 'int', -1],
    ['inactivity-reminder-count', 'int', 'three'],
    ['inactivity-reminder-count', 'float', 2.5],
    ['last-inactivity-reminder-sent', 'date', '2026-02-30'],
    ['last-inactivity-reminder-sent', 'date', 'yesterday'],
    ['wallets-allow-negative-balance', 'bool', [true]],
    ['country', 'array', 'FR'],
    ['landing-experience', 'string', 'not-a-mode'],
  ];
  for (const [key, type, value] of cases) {
    const res = await post({ key, type, value }, user.token);
    t.equal(res.status, 422, `${key} ${type} ${JSON.stringify(value)}`);
    t.ok(res.body.errors?.value, `errors.value for ${key} ${JSON.stringify(value)}`);
  }

  const shape: Array<[Body, string]> = [
    [{ key: 'favourite-colour', type: 'string', value: 'red' }, 'key'],
    [{ key: 'avatar', type: 'string', value: 'https://example.test/a.png' }, 'key'],
    [{ type: 'string', value: 'dark' }, 'key'],
    [{ key: 'theme', value: 'dark' }, 'type'],
    [{ key: 'theme', type: 'colour', value: 'dark' }, 'type'],
    [{ key: 'theme', type: 'string' }, 'value'],
    [{ key: 'theme', type: 'string', value: 'dark', client_id: 'nope' }, 'client_id'],
  ];
  for (const [body, field] of shape) {
    const res = await post(body, user.token);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.same(await storedEntries(user.user.id), before, 'nothing written');
});

t.test('POST upserts on the key: updated in place, a deleted entry revived', async (t) => {
  const id = clientId();
  const made = await post({ key: 'theme', type: 'string', value: 'dark', client_id: id, created_at: '2026-01-02T03:04:05Z' });
  t.equal(made.status, 201);
  t.equal(made.body.message, 'Configuration added successfully');
  t.match(made.body.data, { key: 'theme', value: 'dark', client_generated_id: id, created_at: '2026-01-02T03:04:05.000Z' });

  const since = new Date(Date.now() - 1000).toISOString();
  const changed = await post({ key: 'theme', type: 'string', value: 'light', client_id: clientId() });
  t.equal(changed.status, 200);
  t.match(changed.body.data, { id: made.body.data.id, value: 'light', client_generated_id: id }, 'same entry, client id kept');

  const removed = await api.request('DELETE', '/api/v1/configurations/theme', { token: owner.token });
  t.same(removed.body, { success: true, message: 'Configuration deleted successfully', data: null });
  t.equal((await get('theme')).status, 404);
  t.equal((await put('theme', { value: 'dark' })).status, 404, 'PUT does not revive');
  t.equal((await api.request('DELETE', '/api/v1/configurations/theme', { token: owner.token })).status, 404);
  const live = await api.request('GET', '/api/v1/configurations', { token: owner.token });
  t.notOk(live.body.data.data.some((c: { key: string }) => c.key === 'theme'));
  const feed = await api.request('GET', `/api/v1/configurations?synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  const tombstone = feed.body.data.data.find((c: { key: string }) => c.key === 'theme');
  t.ok(tombstone?.deleted_at, 'the deleted key comes back with deleted_at');
  t.equal(feed.body.data.per_page, feed.body.data.data.length);

  const revived = await post({ key: 'theme', type: 'string', value: 'system' });
  t.equal(revived.status, 201, 'a restored entry answers 201');
  t.match(revived.body.data, { id: made.body.data.id, value: 'system', deleted_at: null, client_generated_id: id, created_at: '2026-01-02T03:04:05.000Z' });
  const rows = await api.db.selectFrom('configurations').select('id').where('user_id', '=', owner.user.id).where('key', '=', 'theme').execute();
  t.equal(rows.length, 1, 'one row per key, ever');

  const racing = await Promise.all(['daily', 'weekly', 'monthly'].map((value) => post({ key: 'insights-frequency', type: 'string', value })));
  t.ok(racing.every((r) => r.status === 200 || r.status === 201), 'simultaneous sets of a new key all succeed');
  t.equal(new Set(racing.map((r) => r.body.data.id)).size, 1, 'and make one entry');
});

t.test('a repeated client_id is a replay; a key without a client id adopts one', async (t) => {
  const id = clientId();
  const first = await post({ key: 'landing-experience', type: 'string', value: 'chat', client_id: id });
  t.equal(first.status, 201);
  const again = await post({ key: 'landing-experience', type: 'string', value: 'dashboard', client_id: id });
  t.equal(again.status, 200);
  t.equal(again.body.message, 'Configuration already exists');
  t.match(again.body.data, { id: first.body.data.id, value: 'chat' }, 'nothing changed');
  const otherKey = await post({ key: 'country', type: 'string', value: 'Peru', client_id: id });
  t.match(otherKey.body.data, { key: 'landing-experience' }, 'the client id names that entry whatever the key');
  t.equal((await get('country')).status, 404);

  const plain = await post({ key: 'default-lang', type: 'string', value: 'en' });
  t.equal(plain.body.data.client_generated_id, null);
  const adopted = clientId();
  const adopt = await post({ key: 'default-lang', type: 'string', value: 'de', client_id: adopted });
  t.match(adopt.body.data, { value: 'de', client_generated_id: adopted }, 'an entry without a client id adopts the one sent');
});

t.test('PUT: value and type, null defaults, client-id adoption, updated_at check', async (t) => {
  const user = await api.newUser();
  const count = await post({ key: 'inactivity-reminder-count', type: 'int', value: 3 }, user.token);
  const res = await put('inactivity-reminder-count', { value: '7' }, user.token);
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Configuration updated successfully');
  t.match(res.body.data, { id: count.body.data.id, type: 'int', value: 7 }, 'converted with the stored type');
  t.match((await put('inactivity-reminder-count', { type: 'float' }, user.token)).body.data, { type: 'float', value: 7 }, 'a type alone re-converts');

  const cleared = await put('default-group', { value: null }, user.token);
  t.match(cleared.body.data, { key: 'default-group', value: null }, 'null clears the default group');
  t.equal((await get('default-group', user.token)).body.data.value, null);
  const wallet = await put('default-wallet', { value: '12', type: 'string' }, user.token);
  t.equal(wallet.body.data.value, '12');

  t.equal((await post({ key: 'country', type: 'string', value: 'CM' }, user.token)).status, 201, 'made without a client id');
  const adopted = clientId();
  t.equal((await put('country', { client_id: adopted }, user.token)).body.data.client_generated_id, adopted, 'a body with only client_id adopts it');
  t.equal((await put('country', { client_id: clientId() }, user.token)).body.data.client_generated_id, adopted, 'never replaced');

  const before = await storedEntries(user.user.id);
  const failures: Array<[string, Body, number, string]> = [
    ['inactivity-reminder-count', { value: -2 }, 422, 'value'],
    ['default-wallet', { value: ['a'] }, 422, 'value'],
    ['inactivity-reminder-count', { type: 'bool' }, 422, 'value'],
    ['inactivity-reminder-count', { value: 1, type: 'number' }, 422, 'type'],
    ['inactivity-reminder-count', { value: 1, updated_at: '2000-01-01T00:00:00Z' }, 422, 'updated_at'],
    ['favourite-colour', { value: 'red' }, 422, 'key'],
    ['avatar', { value: 'https://example.test/a.png' }, 422, 'key'],
    ['theme', { value: 'dark' }, 404, ''],
  ];
  for (const [key, body, status, field] of failures) {
    const res = await put(key, body, user.token);
    t.equal(res.status, status, `${key} ${JSON.stringify(body)}`);
    if (field) t.ok(res.body.errors?.[field], `errors.${field}`);
  }
  t.same(await storedEntries(user.user.id), before, 'nothing written');
});

t.test("another user's entries are 404: keys are per user", async (t) => {
  await post({ key: 'asset-tracking-enabled', type: 'bool', value: true });
  for (const [method, body] of [['GET'], ['PUT', { value: false }], ['DELETE']] as const) {
    const res = await api.request(method, '/api/v1/configurations/asset-tracking-enabled', { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Configuration not found.');
  }
  t.equal((await get('asset-tracking-enabled')).body.data.value, true, 'unchanged');
  t.equal((await get('not-a-key')).status, 404);

  const theirs = await post({ key: 'asset-tracking-enabled', type: 'bool', value: false }, stranger.token);
  t.equal(theirs.status, 201, "the same key is the stranger's own entry");
  t.equal((await get('asset-tracking-enabled')).body.data.value, true, "the owner's is untouched");
});

t.test('no token is 401 on every configuration operation', async (t) => {
  for (const [method, url, body] of [
    ['GET', '/api/v1/configurations'],
    ['POST', '/api/v1/configurations', { key: 'theme', type: 'string', value: 'dark' }],
    ['GET', '/api/v1/configurations/theme'],
    ['PUT', '/api/v1/configurations/theme', { value: 'dark' }],
    ['DELETE', '/api/v1/configurations/theme'],
  ] as const) {
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url}`);
  }
});
