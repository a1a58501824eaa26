// Parties over HTTP. The sync machinery they share with groups (client-id replay and adoption,
// feeds, paging) is covered by groups.test.ts; this file covers what is the party's own.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

const PARTY_TYPES = [
  'individual',
  'organization',
  'business',
  'partnership',
  'non_profit',
  'government_agency',
  'educational_institution',
  'healthcare_provider',
];

async function countParties(userId: number) {
  const row = await api.db.selectFrom('parties').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

const createParty = (body: Record<string, unknown>, token = owner.token) => api.request('POST', '/api/v1/parties', { token, body });

t.test('create and show a party', async (t) => {
  const id = clientId();
  const res = await createParty({ name: 'ACME Corp', type: 'business', description: 'Employer', icon: '🏢', icon_type: 'emoji', client_id: id });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Party created successfully');
  t.match(res.body.data, { name: 'ACME Corp', type: 'business', description: 'Employer', client_generated_id: id, user_id: owner.user.id, deleted_at: null });
  t.match(res.body.data.icon, { type: 'emoji', content: '🏢', path: '🏢' });
  t.equal(res.body.data.sync_state.syncable_type, 'party');

  const shown = await api.request('GET', `/api/v1/parties/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);

  const minimal = await createParty({ name: 'Corner shop' });
  t.equal(minimal.status, 201);
  t.match(minimal.body.data, { type: null, description: null, icon: null, client_generated_id: null });
});

t.test('names repeat freely; a repeated client_id is a replay', async (t) => {
  const a = await createParty({ name: 'Landlord' });
  const b = await createParty({ name: 'Landlord' });
  t.equal(b.status, 201);
  t.not(a.body.data.id, b.body.data.id, 'a second party with the same name');

  const id = clientId();
  const first = await createParty({ name: 'Bakery', client_id: id });
  const again = await createParty({ name: 'Bakery (edited offline)', client_id: id });
  t.equal(again.status, 200);
  t.equal(again.body.message, 'Party already exists');
  t.equal(again.body.data.id, first.body.data.id);
  t.equal(again.body.data.name, 'Bakery');
});

t.test('party type: every enum value, null, and nothing else', async (t) => {
  for (const type of PARTY_TYPES) {
    const res = await createParty({ name: `A ${type}`, type });
    t.equal(res.status, 201, type);
    t.equal(res.body.data.type, type);
  }
  const typeless = await createParty({ name: 'Someone', type: null });
  t.equal(typeless.status, 201);
  t.equal(typeless.body.data.type, null);

  const before = await countParties(owner.user.id);
  for (const type of ['alien', 'Business', '', 3]) {
    const res = await createParty({ name: 'Bad type', type });
    t.equal(res.status, 422, JSON.stringify(type));
    t.ok(res.body.errors.type, `errors.type for ${JSON.stringify(type)}`);
  }
  t.equal(await countParties(owner.user.id), before);

  const url = `/api/v1/parties/${typeless.body.data.id}`;
  const typed = await api.request('PUT', url, { token: owner.token, body: { type: 'government_agency' } });
  t.equal(typed.body.data.type, 'government_agency');
  const kept = await api.request('PUT', url, { token: owner.token, body: { name: 'Tax office' } });
  t.match(kept.body.data, { name: 'Tax office', type: 'government_agency' }, 'a field not sent is unchanged');
  const cleared = await api.request('PUT', url, { token: owner.token, body: { type: null } });
  t.equal(cleared.body.data.type, null, 'null clears the type');
  const bad = await api.request('PUT', url, { token: owner.token, body: { type: 'alien' } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.type);
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const before = await countParties(owner.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ name: 'ok', description: 5 }, 'description'],
    [{ name: 'ok', client_id: 'not-a-client-id' }, 'client_id'],
    [{ name: 'ok', icon: '🙂', icon_type: 'sticker' }, 'icon_type'],
    [{ name: 'ok', created_at: 'yesterday' }, 'created_at'],
  ];
  for (const [body, field] of cases) {
    const res = await createParty(body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.equal(await countParties(owner.user.id), before);
});

t.test('update: fields change, bad input changes nothing', async (t) => {
  const made = await createParty({ name: 'Gym', description: 'Monthly', icon: 'dumbbell', icon_type: 'icon' });
  const url = `/api/v1/parties/${made.body.data.id}`;
  const res = await api.request('PUT', url, { token: owner.token, body: { name: 'Fitness club', description: null, icon: '🏋️', icon_type: 'emoji' } });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Party updated successfully');
  t.match(res.body.data, { name: 'Fitness club', description: null, icon: { id: made.body.data.icon.id, type: 'emoji', content: '🏋️' } });

  for (const [body, field] of [
    [{ name: '' }, 'name'],
    [{ client_id: 'nope' }, 'client_id'],
    [{ name: 'Time travel', updated_at: '2000-01-01T00:00:00Z' }, 'updated_at'],
  ] as const) {
    const bad = await api.request('PUT', url, { token: owner.token, body });
    t.equal(bad.status, 422, JSON.stringify(body));
    t.ok(bad.body.errors[field], `errors.${field}`);
  }
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.name, 'Fitness club', 'unchanged');
});

t.test('list: the caller’s live parties in creation order', async (t) => {
  const user = await api.newUser();
  const names = ['First', 'Second', 'Third'];
  for (const name of names) await createParty({ name }, user.token);
  await createParty({ name: 'Not yours' }, stranger.token);
  const list = await api.request('GET', '/api/v1/parties', { token: user.token });
  t.equal(list.status, 200);
  t.same(list.body.data.data.map((p: { name: string }) => p.name), names);
  t.match(list.body.data, { current_page: 1, per_page: 20, total: 3, last_page: 1 });

  const paged = await api.request('GET', '/api/v1/parties?limit=2&page=2', { token: user.token });
  t.same(paged.body.data.data.map((p: { name: string }) => p.name), ['Third']);
  t.equal((await api.request('GET', '/api/v1/parties?limit=0', { token: user.token })).status, 422);
});

t.test('delete is soft and leaves transactions that name the party intact', async (t) => {
  const since = new Date(Date.now() - 1000).toISOString();
  const made = await createParty({ name: 'Doomed shop' });
  const id = made.body.data.id;
  const wallet = await api.db.selectFrom('wallets').select('id').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow();
  const transaction = await api.db
    .insertInto('transactions')
    .values({ user_id: owner.user.id, wallet_id: wallet.id, type: 'expense', amount: '12.5000', party_id: id })
    .returning('id')
    .executeTakeFirstOrThrow();

  const res = await api.request('DELETE', `/api/v1/parties/${id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Party deleted successfully', data: null });
  t.equal((await api.request('GET', `/api/v1/parties/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('PUT', `/api/v1/parties/${id}`, { token: owner.token, body: { name: 'Back' } })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/parties/${id}`, { token: owner.token })).status, 404);

  const kept = await api.db.selectFrom('transactions').select(['party_id', 'deleted_at']).where('id', '=', transaction.id).executeTakeFirstOrThrow();
  t.same(kept, { party_id: id, deleted_at: null }, 'the transaction keeps its party_id');

  const live = await api.request('GET', '/api/v1/parties?limit=100', { token: owner.token });
  t.notOk(live.body.data.data.some((p: { id: number }) => p.id === id));
  const feed = await api.request('GET', `/api/v1/parties?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  t.ok(feed.body.data.data.find((p: { id: number }) => p.id === id)?.deleted_at, 'a tombstone in the sync feed');
});

t.test("another user's party is 404, as are unknown and non-numeric ids", async (t) => {
  const mine = await createParty({ name: 'Private payee' });
  const id = mine.body.data.id;
  for (const [method, body] of [['GET'], ['PUT', { name: 'Taken over' }], ['DELETE']] as const) {
    const res = await api.request(method, `/api/v1/parties/${id}`, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Party not found.');
  }
  const theirs = await api.request('GET', '/api/v1/parties?limit=100', { token: stranger.token });
  t.notOk(theirs.body.data.data.some((p: { id: number }) => p.id === id), "not in the other user's list");
  t.equal((await api.request('GET', '/api/v1/parties/999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', '/api/v1/parties/abc', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', `/api/v1/parties/${id}`, { token: owner.token })).body.data.name, 'Private payee', 'unchanged');
});

t.test('no token is 401 on every party operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/parties'],
    ['POST', '/api/v1/parties'],
    ['GET', '/api/v1/parties/1'],
    ['PUT', '/api/v1/parties/1'],
    ['DELETE', '/api/v1/parties/1'],
  ]) {
    t.equal((await api.request(method, url, { body: method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined })).status, 401, `${method} ${url}`);
  }
});
