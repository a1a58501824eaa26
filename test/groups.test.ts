// Groups over HTTP, and through them the sync behaviour every synced resource shares.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

async function countGroups(userId: number) {
  const row = await api.db.selectFrom('groups').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

t.test('create, show, and the sync fields of a record', async (t) => {
  const id = clientId();
  const res = await api.request('POST', '/api/v1/groups', {
    token: owner.token,
    body: { name: 'Holidays', description: 'Trips', icon: '🏖️', icon_type: 'emoji', client_id: id, created_at: '2026-01-02T03:04:05Z' },
  });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Group created successfully');
  t.match(res.body.data, { name: 'Holidays', slug: 'holidays', description: 'Trips', client_generated_id: id, user_id: owner.user.id, deleted_at: null });
  t.match(res.body.data.icon, { type: 'emoji', content: '🏖️', path: '🏖️' });
  t.equal(res.body.data.created_at, '2026-01-02T03:04:05.000Z', "the offline client's created_at is kept");
  t.equal(res.body.data.sync_state.client_generated_id, id.split(':')[1]);

  const shown = await api.request('GET', `/api/v1/groups/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);
});

t.test('a repeated client_id returns the existing record and writes nothing', async (t) => {
  const id = clientId();
  const first = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Once', client_id: id } });
  const before = await countGroups(owner.user.id);
  const again = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Twice?', client_id: id } });
  t.equal(again.status, 200);
  t.equal(again.body.data.id, first.body.data.id);
  t.equal(again.body.data.name, 'Once');
  t.equal(await countGroups(owner.user.id), before);

  const raced = clientId();
  const racing = await Promise.all([1, 2, 3].map(() => api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Race', client_id: raced } })));
  t.same(racing.map((r) => r.status).sort(), [200, 200, 201]);
  t.equal(new Set(racing.map((r) => r.body.data.id)).size, 1, 'simultaneous creates with one client id make one record');
});

t.test('names repeat freely; slugs stay unique', async (t) => {
  const a = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Side Projects' } });
  const b = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Side Projects' } });
  t.equal(a.body.data.slug, 'side-projects');
  t.equal(b.body.data.slug, 'side-projects-2');
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const before = await countGroups(owner.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 'ok', client_id: 'not-a-client-id' }, 'client_id'],
    [{ name: 'ok', icon: 'x', icon_type: 'sticker' }, 'icon_type'],
    [{ name: 'ok', created_at: 'yesterday' }, 'created_at'],
  ];
  for (const [body, field] of cases) {
    const res = await api.request('POST', '/api/v1/groups', { token: owner.token, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.equal(await countGroups(owner.user.id), before);
});

t.test("another user's group is 404, as is an unknown id", async (t) => {
  const mine = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Private' } });
  const id = mine.body.data.id;
  for (const [method, body] of [['GET'], ['PUT', { name: 'Taken over' }], ['DELETE']] as const) {
    const res = await api.request(method, `/api/v1/groups/${id}`, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Group not found.');
  }
  t.equal((await api.request('GET', '/api/v1/groups/999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', `/api/v1/groups/${id}`, { token: owner.token })).body.data.name, 'Private', 'unchanged');
});

t.test('update: fields, client-id adoption, never replacement, updated_at check', async (t) => {
  const made = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Before', description: 'text' } });
  const url = `/api/v1/groups/${made.body.data.id}`;
  const renamed = await api.request('PUT', url, { token: owner.token, body: { name: 'After', description: null } });
  t.equal(renamed.status, 200);
  t.match(renamed.body.data, { name: 'After', description: null, slug: 'before' });
  t.ok(renamed.body.data.updated_at >= made.body.data.updated_at);

  const adopted = clientId();
  const adopt = await api.request('PUT', url, { token: owner.token, body: { client_id: adopted } });
  t.equal(adopt.body.data.client_generated_id, adopted, 'a record without a client id adopts one');
  const replace = await api.request('PUT', url, { token: owner.token, body: { client_id: clientId() } });
  t.equal(replace.body.data.client_generated_id, adopted, 'an existing client id is never replaced');

  const early = await api.request('PUT', url, { token: owner.token, body: { name: 'Time travel', updated_at: '2000-01-01T00:00:00Z' } });
  t.equal(early.status, 422);
  t.ok(early.body.errors.updated_at);
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.name, 'After');

  const bad = await api.request('PUT', url, { token: owner.token, body: { name: '' } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.name);
});

t.test('delete is soft: gone from lists, a tombstone in sync feeds', async (t) => {
  const since = new Date(Date.now() - 1000).toISOString();
  const made = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Doomed', client_id: clientId() } });
  const id = made.body.data.id;
  const res = await api.request('DELETE', `/api/v1/groups/${id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Group deleted successfully', data: null });
  t.equal((await api.request('GET', `/api/v1/groups/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/groups/${id}`, { token: owner.token })).status, 404);

  const live = await api.request('GET', '/api/v1/groups?limit=100', { token: owner.token });
  t.notOk(live.body.data.data.some((g: { id: number }) => g.id === id));
  const feed = await api.request('GET', `/api/v1/groups?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  const tombstone = feed.body.data.data.find((g: { id: number }) => g.id === id);
  t.ok(tombstone?.deleted_at, 'the deleted group comes back with deleted_at');

  const replay = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Doomed', client_id: made.body.data.client_generated_id } });
  t.equal(replay.body.data.id, id, 'a replay after deletion finds the tombstone, never a second record');
});

t.test('lists: page counters, no_client_id, last_sync, synced_since formats', async (t) => {
  const user = await api.newUser();
  const list = await api.request('GET', '/api/v1/groups?limit=2&page=2', { token: user.token });
  t.equal(list.status, 200);
  t.match(list.body.data, { current_page: 2, per_page: 2, total: 5, last_page: 3 });
  t.equal(list.body.data.data.length, 2);

  const serverMade = await api.request('GET', '/api/v1/groups?no_client_id=true', { token: user.token });
  t.same(serverMade.body.data.data.map((g: { name: string }) => g.name), ['Personal', 'Family', 'Friends', 'Work'], 'General has a client id');

  const newest = list.body.data.data.reduce((max: string, g: { last_synced_at: string }) => (g.last_synced_at > max ? g.last_synced_at : max), '');
  t.equal(list.body.data.last_sync, newest, 'the newest change stamp among the rows');
  const empty = await api.request('GET', '/api/v1/groups?synced_since=2999-01-01T00:00:00Z', { token: user.token });
  t.same(empty.body.data.data, []);
  t.ok(Date.parse(empty.body.data.last_sync) <= Date.now(), 'a synced_since in the future is never echoed back');

  for (const since of ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123Z', '2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00', '2026-01-01']) {
    const res = await api.request('GET', `/api/v1/groups?synced_since=${encodeURIComponent(since)}`, { token: user.token });
    t.equal(res.status, 200, since);
    t.equal(res.body.data.total, 5, since);
  }
  const bad = await api.request('GET', '/api/v1/groups?synced_since=whenever', { token: user.token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.synced_since);
});

t.test('paging a feed of 2,000 rows that share one updated_at returns each exactly once', async (t) => {
  const user = await api.newUser();
  const stamp = new Date('2026-05-05T05:05:05.000Z');
  await api.db
    .insertInto('groups')
    .values(Array.from({ length: 2000 }, (_, i) => ({ user_id: user.user.id, name: `Bulk ${i}`, slug: `bulk-${i}`, updated_at: stamp, created_at: stamp })))
    .execute();
  const seen = new Map<number, number>();
  let page = 1;
  let lastPage = 1;
  do {
    const res = await api.request('GET', `/api/v1/groups?synced_since=2026-05-05T05:05:05Z&limit=50&page=${page}`, { token: user.token });
    for (const group of res.body.data.data) seen.set(group.id, (seen.get(group.id) ?? 0) + 1);
    lastPage = res.body.data.last_page;
    page++;
  } while (page <= lastPage);
  t.equal(lastPage, 41, '2,000 bulk rows and the 5 groups made at registration');
  t.equal(seen.size, 2005, 'every row');
  t.ok([...seen.values()].every((n) => n === 1), 'each once');
});

t.test('no token is 401 on every group operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/groups'],
    ['POST', '/api/v1/groups'],
    ['GET', '/api/v1/groups/1'],
    ['PUT', '/api/v1/groups/1'],
    ['DELETE', '/api/v1/groups/1'],
  ]) {
    t.equal((await api.request(method, url, { body: method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined })).status, 401, `${method} ${url}`);
  }
});
