// Notifications over HTTP: the list with its unread count, show, soft delete, the mark-read
// state table (interface spec section 3), read-all, the unread count and the preferences.
// Notifications are made by the server only, so the tests write the rows directly.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { NotificationType } from '../db/schema.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

interface NewNotification {
  type?: NotificationType;
  title?: string;
  data?: Record<string, unknown>;
  read_at?: string;
  created_at?: string;
}

async function notify(userId: number, fields: NewNotification = {}): Promise<number> {
  const { data, ...rest } = fields;
  const row = await api.db
    .insertInto('notifications')
    .values({ user_id: userId, type: 'reminder', title: 'Pay the rent', data: JSON.stringify(data ?? { reminder_id: 3 }), ...rest })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const readUrl = (id: number) => `/api/v1/notifications/${id}/read`;

t.test('list: newest first, unread_only, unread_count whatever the filters, paging', async (t) => {
  const { token, user } = await api.newUser();
  const oldest = await notify(user.id, { created_at: '2026-01-01T00:00:00Z', read_at: '2026-01-02T00:00:00Z' });
  const middle = await notify(user.id, { created_at: '2026-02-01T00:00:00Z', type: 'system', data: { type: 'insights' } });
  const newest = await notify(user.id, { created_at: '2026-03-01T00:00:00Z', type: 'alert', data: {} });

  const all = await api.request('GET', '/api/v1/notifications', { token });
  t.equal(all.status, 200);
  t.same(all.body.data.data.map((n: any) => n.id), [newest, middle, oldest]);
  t.equal(all.body.data.unread_count, 2);
  t.equal(all.body.data.total, 3);
  t.match(all.body.data.data[1], { id: middle, user_id: user.id, type: 'system', title: 'Pay the rent', body: '', data: { type: 'insights' }, read_at: null, client_generated_id: null, deleted_at: null });
  t.same(all.body.data.data[0].data, {}, 'data is always an object');
  t.equal(all.body.data.data[2].read_at, '2026-01-02T00:00:00.000Z');

  const unread = await api.request('GET', '/api/v1/notifications?unread_only=true', { token });
  t.same(unread.body.data.data.map((n: any) => n.id), [newest, middle]);
  t.equal(unread.body.data.unread_count, 2);

  const paged = await api.request('GET', '/api/v1/notifications?limit=1&page=3', { token });
  t.same(paged.body.data.data.map((n: any) => n.id), [oldest]);
  t.match(paged.body.data, { current_page: 3, per_page: 1, total: 3, last_page: 3, unread_count: 2 }, 'unread_count ignores paging');

  const bad = await api.request('GET', '/api/v1/notifications?synced_since=whenever', { token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.synced_since);
  const badLimit = await api.request('GET', '/api/v1/notifications?limit=0', { token });
  t.equal(badLimit.status, 422);
  t.ok(badLimit.body.errors.limit);
});

t.test('show, and delete as a soft delete with a tombstone in sync feeds', async (t) => {
  const { token, user } = await api.newUser();
  const id = await notify(user.id);
  const shown = await api.request('GET', `/api/v1/notifications/${id}`, { token });
  t.equal(shown.status, 200);
  t.match(shown.body.data, { id, user_id: user.id, type: 'reminder', data: { reminder_id: 3 }, read_at: null });
  t.notOk('sync_state' in shown.body.data);

  const since = new Date(Date.now() - 60_000).toISOString();
  const deleted = await api.request('DELETE', `/api/v1/notifications/${id}`, { token });
  t.equal(deleted.status, 200);
  t.equal(deleted.body.data, null);
  t.equal((await api.request('GET', `/api/v1/notifications/${id}`, { token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/notifications/${id}`, { token })).status, 404, 'deleting again is 404');
  t.same((await api.request('GET', '/api/v1/notifications', { token })).body.data.data, []);

  const feed = await api.request('GET', `/api/v1/notifications?synced_since=${encodeURIComponent(since)}`, { token });
  t.equal(feed.body.data.data.length, 1);
  t.equal(feed.body.data.data[0].id, id);
  t.ok(feed.body.data.data[0].deleted_at, 'the tombstone has deleted_at');
  t.equal(feed.body.data.unread_count, 0, 'a deleted notification is not counted as unread');
});

t.test('mark read: the state table of interface spec section 3', async (t) => {
  const { token, user } = await api.newUser();

  t.test('read_at given: read at that time (UTC, whole seconds)', async (t) => {
    const id = await notify(user.id);
    const res = await api.request('POST', readUrl(id), { token, body: { read_at: '2026-05-05T12:30:45.789+02:00' } });
    t.equal(res.status, 200);
    t.equal(res.body.message, 'Notification marked as read');
    t.equal(res.body.data.read_at, '2026-05-05T10:30:45.000Z');
    t.equal(res.body.data.client_generated_id, null);
  });

  t.test('no body, or an empty one: read now', async (t) => {
    for (const options of [{}, { body: {} }]) {
      const id = await notify(user.id);
      const before = Date.now() - 1000;
      const res = await api.request('POST', readUrl(id), { token, ...options });
      t.equal(res.status, 200);
      t.equal(res.body.message, 'Notification marked as read');
      t.ok(Date.parse(res.body.data.read_at) >= before, 'read_at is now');
      t.ok(Date.parse(res.body.data.updated_at) >= before, 'updated_at moves so sync feeds carry the change');
    }
  });

  t.test('client_id only: read state unchanged, client id recorded', async (t) => {
    const id = await notify(user.id);
    const linked = clientId();
    const res = await api.request('POST', readUrl(id), { token, body: { client_id: linked } });
    t.equal(res.status, 200);
    t.equal(res.body.message, 'Notification synced');
    t.equal(res.body.data.read_at, null);
    t.equal(res.body.data.client_generated_id, linked);

    const other = await api.request('POST', readUrl(id), { token, body: { client_id: clientId() } });
    t.equal(other.body.data.client_generated_id, linked, 'an existing client id is never replaced');
    t.equal(other.body.data.read_at, null);
    t.ok(Date.parse(other.body.data.last_synced_at) >= Date.parse(res.body.data.last_synced_at), 'last_synced_at is refreshed');
  });

  t.test('client_id with read_at: read and linked', async (t) => {
    const id = await notify(user.id);
    const linked = clientId();
    const res = await api.request('PUT', readUrl(id), { token, body: { client_id: linked, read_at: '2026-06-01T08:00:00Z' } });
    t.equal(res.status, 200);
    t.equal(res.body.message, 'Notification marked as read');
    t.match(res.body.data, { read_at: '2026-06-01T08:00:00.000Z', client_generated_id: linked });
  });

  t.test('an already read notification keeps its original read_at', async (t) => {
    const id = await notify(user.id, { read_at: '2026-01-01T00:00:00Z' });
    const res = await api.request('POST', readUrl(id), { token, body: { read_at: '2026-07-07T07:07:07Z' } });
    t.equal(res.body.message, 'Notification marked as read');
    t.equal(res.body.data.read_at, '2026-01-01T00:00:00.000Z');
  });

  t.test('PUT is the same operation', async (t) => {
    const id = await notify(user.id);
    const res = await api.request('PUT', readUrl(id), { token });
    t.equal(res.status, 200);
    t.equal(res.body.message, 'Notification marked as read');
    t.ok(res.body.data.read_at);
  });

  t.test('bad input is 422 keyed by field, checked before the id', async (t) => {
    const id = await notify(user.id);
    for (const [body, field] of [
      [{ client_id: 'not-a-client-id' }, 'client_id'],
      [{ read_at: 'yesterday' }, 'read_at'],
      [{ read_at: 12 }, 'read_at'],
    ] as const) {
      for (const method of ['POST', 'PUT']) {
        const res = await api.request(method, readUrl(id), { token, body });
        t.equal(res.status, 422, `${method} ${JSON.stringify(body)}`);
        t.ok(res.body.errors[field], `errors.${field}`);
      }
      t.equal((await api.request('POST', readUrl(999999), { token, body })).status, 422, 'validation runs before the lookup');
    }
    t.equal((await api.request('GET', `/api/v1/notifications/${id}`, { token })).body.data.read_at, null, 'unchanged');
  });
});

t.test('read-all and the unread count', async (t) => {
  const { token, user } = await api.newUser();
  const other = await api.newUser();
  const earlier = await notify(user.id, { read_at: '2026-01-01T00:00:00Z' });
  await notify(user.id);
  await notify(user.id);
  const strangers = await notify(other.user.id);

  const counted = await api.request('GET', '/api/v1/notifications/unread-count', { token });
  t.equal(counted.status, 200);
  t.same(counted.body.data, { count: 2 });

  const res = await api.request('POST', '/api/v1/notifications/read-all', { token });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'All notifications marked as read');
  t.equal(res.body.data, null);
  t.same((await api.request('GET', '/api/v1/notifications/unread-count', { token })).body.data, { count: 0 });
  const list = await api.request('GET', '/api/v1/notifications', { token });
  t.ok(list.body.data.data.every((n: any) => n.read_at), 'every notification is read');
  t.equal(list.body.data.data.find((n: any) => n.id === earlier).read_at, '2026-01-01T00:00:00.000Z', 'already read ones keep read_at');

  t.same((await api.request('GET', '/api/v1/notifications/unread-count', { token: other.token })).body.data, { count: 1 }, "another user's are untouched");
  t.equal((await api.request('GET', `/api/v1/notifications/${strangers}`, { token: other.token })).body.data.read_at, null);
});

t.test("another user's notification is 404", async (t) => {
  const owner = await api.newUser();
  const stranger = await api.newUser();
  const id = await notify(owner.user.id);
  for (const [method, url] of [
    ['GET', `/api/v1/notifications/${id}`],
    ['DELETE', `/api/v1/notifications/${id}`],
    ['POST', readUrl(id)],
    ['PUT', readUrl(id)],
  ] as const) {
    const res = await api.request(method, url, { token: stranger.token });
    t.equal(res.status, 404, `${method} ${url}`);
    t.equal(res.body.message, 'Notification not found.');
  }
  t.equal((await api.request('GET', '/api/v1/notifications/999999', { token: owner.token })).status, 404);
  const mine = await api.request('GET', `/api/v1/notifications/${id}`, { token: owner.token });
  t.match(mine.body.data, { read_at: null, deleted_at: null }, 'unchanged');
  t.equal((await api.request('GET', '/api/v1/notifications', { token: stranger.token })).body.data.total, 0);
});

t.test('preferences: on by default, partial update, the configuration entries, booleans only', async (t) => {
  const { token } = await api.newUser();
  const everythingOn = { channels: { email: true, push: true, inapp: true }, types: { reminders: true, insights: true, inactivity: true } };
  const initial = await api.request('GET', '/api/v1/notifications/preferences', { token });
  t.equal(initial.status, 200);
  t.same(initial.body.data, everythingOn);

  const changed = await api.request('PUT', '/api/v1/notifications/preferences', { token, body: { channels: { push: false }, types: { insights: false }, other: 1 } });
  t.equal(changed.status, 200);
  t.equal(changed.body.message, 'Notification preferences updated');
  const expected = { channels: { email: true, push: false, inapp: true }, types: { reminders: true, insights: false, inactivity: true } };
  t.same(changed.body.data, expected);
  t.same((await api.request('GET', '/api/v1/notifications/preferences', { token })).body.data, expected);

  const entry = await api.request('GET', '/api/v1/configurations/notifications-push', { token });
  t.match(entry.body.data, { key: 'notifications-push', value: false }, 'stored as the configuration entry');
  await api.request('POST', '/api/v1/configurations', { token, body: { key: 'notifications-email', type: 'bool', value: false } });
  t.equal((await api.request('GET', '/api/v1/notifications/preferences', { token })).body.data.channels.email, false, 'the configurations API changes the same switch');

  const back = await api.request('PUT', '/api/v1/notifications/preferences', { token, body: { channels: { push: true, email: true } } });
  t.same(back.body.data.channels, { email: true, push: true, inapp: true });
  t.equal(back.body.data.types.insights, false, 'what is not sent keeps its value');

  for (const [body, field] of [
    [{ channels: { email: 'false' } }, 'channels.email'],
    [{ types: { reminders: 0 } }, 'types.reminders'],
    [{ channels: 'off' }, 'channels'],
  ] as const) {
    const res = await api.request('PUT', '/api/v1/notifications/preferences', { token, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field} in ${JSON.stringify(res.body.errors)}`);
  }
  t.same((await api.request('GET', '/api/v1/notifications/preferences', { token })).body.data.channels, { email: true, push: true, inapp: true }, 'unchanged');
});

t.test('every operation needs a token', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/notifications'],
    ['GET', '/api/v1/notifications/1'],
    ['DELETE', '/api/v1/notifications/1'],
    ['POST', '/api/v1/notifications/1/read'],
    ['PUT', '/api/v1/notifications/1/read'],
    ['POST', '/api/v1/notifications/read-all'],
    ['GET', '/api/v1/notifications/unread-count'],
    ['GET', '/api/v1/notifications/preferences'],
    ['PUT', '/api/v1/notifications/preferences'],
  ] as const) {
    const res = await api.request(method, url, method === 'PUT' && url.endsWith('preferences') ? { body: {} } : {});
    t.equal(res.status, 401, `${method} ${url}`);
  }
});
