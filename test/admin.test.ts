// Admin over HTTP: the role gate on every /admin route (401, then 403 for non-admins),
// metrics, the users list, a user's details and deleting a user with everything they own.
// The role is granted as the admin CLI grants it (scripts/admin.ts grantAdmin).
import t from 'tap';
import { adminUserDetails } from '../db/admin-users.js';
import { bucketKey } from '../domain/metric-buckets.js';
import { operations } from '../generated/operations.js';
import { grantAdmin } from '../scripts/admin.js';
import { startApp } from './helpers/harness.js';
import { isStored, uploadFiles } from './helpers/stored-files.js';
import { ledgerFixtures, multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fixtures = ledgerFixtures(api);
const DAY = 86_400_000;

async function newAdmin(overrides: Record<string, unknown> = {}) {
  const admin = await api.newUser(overrides);
  const granted = await grantAdmin(api.db, admin.email);
  if (granted.exitCode !== 0) throw new Error(granted.output);
  return admin;
}

async function transaction(userId: number, type: 'income' | 'expense', datetime: Date, deleted = false) {
  await api.db
    .insertInto('transactions')
    .values({
      user_id: userId,
      wallet_id: await fixtures.mainWallet(userId),
      type,
      amount: '10',
      datetime,
      deleted_at: deleted ? new Date() : null,
    })
    .execute();
}

async function configure(userId: number, key: string, value: string) {
  await api.db.insertInto('configurations').values({ user_id: userId, key, type: 'string', value: JSON.stringify(value) }).execute();
}

const metricOf = (body: any, group: string, key: string) =>
  body.data.groups.find((g: any) => g.key === group).metrics.find((m: any) => m.key === key);

// First, while the database holds only what this test makes: every figure is exact.
t.test('metrics: users, transactions, engagement, demographics and accounts over the period', async (t) => {
  const admin = await newAdmin({ first_name: 'Ada', last_name: 'Admin' });
  const ann = await api.newUser({ first_name: 'Ann', last_name: 'Lee' });
  const old = await api.newUser({ first_name: 'Old', last_name: 'Timer' });
  const now = Date.now();
  await api.db.updateTable('users').set({ created_at: new Date(now - 40 * DAY) }).where('id', '=', old.user.id).execute();

  for (let i = 0; i < 3; i++) await transaction(ann.user.id, 'expense', new Date(now - DAY));
  await transaction(ann.user.id, 'income', new Date(now - 2 * DAY));
  await transaction(ann.user.id, 'expense', new Date(now - 45 * DAY)); // before the period
  await transaction(ann.user.id, 'expense', new Date(now - DAY), true); // deleted
  await transaction(old.user.id, 'income', new Date(now - 3 * DAY));
  await configure(ann.user.id, 'country', 'CM');
  await configure(old.user.id, 'country', 'CM');
  await configure(admin.user.id, 'country', 'FR');
  await configure(ann.user.id, 'default-currency', 'XAF');
  await configure(admin.user.id, 'default-lang', '');

  const response = await api.request('GET', '/api/v1/admin/metrics', { token: admin.token });
  t.equal(response.status, 200);
  t.equal(response.body.message, 'Metrics retrieved');
  const body = response.body;
  const today = new Date(now).toISOString().slice(0, 10);
  t.same(body.data.period, {
    start: new Date(Date.parse(`${today}T00:00:00.000Z`) - 29 * DAY).toISOString(),
    end: `${today}T23:59:59.999Z`,
    granularity: 'day',
  });
  t.same(body.data.groups.map((g: any) => g.key), ['users', 'transactions', 'engagement', 'demographics', 'accounts']);

  t.equal(metricOf(body, 'users', 'total_users').value, 3);
  t.equal(metricOf(body, 'users', 'registrations_today').value, 2);
  t.equal(metricOf(body, 'users', 'registrations_month').value, 2);
  t.equal(metricOf(body, 'users', 'new_users').value, 2);
  const newUsers = metricOf(body, 'users', 'new_users_series');
  t.match(newUsers, { type: 'series', value: null, rows: [] });
  t.equal(newUsers.series.length, 30, 'one zero-filled bucket per day');
  t.same(newUsers.series.at(-1), { date: today, value: 2 });
  t.equal(newUsers.series.reduce((sum: number, p: any) => sum + p.value, 0), 2);

  t.equal(metricOf(body, 'transactions', 'total_transactions').value, 5, 'live, dated in the period');
  t.equal(metricOf(body, 'transactions', 'income_count').value, 2);
  t.equal(metricOf(body, 'transactions', 'expense_count').value, 3);
  const series = metricOf(body, 'transactions', 'transactions_series').series;
  t.same(series.at(-2), { date: new Date(now - DAY).toISOString().slice(0, 10), value: 3 });
  t.equal(series.reduce((sum: number, p: any) => sum + p.value, 0), 5);

  t.match(metricOf(body, 'engagement', 'avg_transactions_per_user'), { type: 'sum', value: 1.7 });
  t.same(metricOf(body, 'engagement', 'most_active_users').rows, [
    { label: 'Ann Lee', value: 4 },
    { label: 'Old Timer', value: 1 },
  ]);
  const features = metricOf(body, 'engagement', 'most_used_features').rows;
  t.same(features[0], { label: 'Transactions', value: 6 }, 'all-time live transactions');
  t.same(features.find((f: any) => f.label === 'Wallets'), { label: 'Wallets', value: 3 });
  t.notOk(features.some((f: any) => f.value === 0), 'unused features are left out');

  t.same(metricOf(body, 'demographics', 'users_by_country').rows, [
    { label: 'CM', value: 2 },
    { label: 'FR', value: 1 },
  ]);
  t.same(metricOf(body, 'demographics', 'users_by_language').rows, [], 'an empty value is not counted');
  t.same(metricOf(body, 'demographics', 'users_by_currency').rows, [{ label: 'XAF', value: 1 }]);
  t.match(metricOf(body, 'accounts', 'total_wallets'), { type: 'count', value: 3 });

  const weekly = await api.request('GET', '/api/v1/admin/metrics?days=90&granularity=month', { token: admin.token });
  t.equal(weekly.status, 200);
  t.equal(weekly.body.data.period.granularity, 'month');
  t.match(metricOf(weekly.body, 'users', 'new_users_series').series.at(-1).date, /^\d{4}-\d{2}$/);
  t.equal(metricOf(weekly.body, 'transactions', 'total_transactions').value, 6, 'the older transaction is inside 90 days');
  const byWeek = await api.request('GET', '/api/v1/admin/metrics?days=14&granularity=week', { token: admin.token });
  t.match(metricOf(byWeek.body, 'transactions', 'transactions_series').series[0].date, /^\d{4}-W\d{2}$/);

  for (const query of ['days=0', 'days=abc', 'days=5000', 'granularity=hour']) {
    const bad = await api.request('GET', `/api/v1/admin/metrics?${query}`, { token: admin.token });
    t.equal(bad.status, 422, query);
    t.ok(bad.body.errors[query.split('=')[0]], `errors keyed by ${query.split('=')[0]}`);
  }
});

t.test('every admin route: 401 without a token, 403 for an account without the role', async (t) => {
  const user = await api.newUser();
  const png = multipart([], [{ field: 'image', filename: 'a.png', contentType: 'image/png', data: PNG }]);
  const routes: Array<[string, string, Record<string, unknown>]> = [
    ['GET', '/api/v1/admin/metrics', {}],
    ['GET', '/api/v1/admin/users', {}],
    ['GET', `/api/v1/admin/users/${user.user.id}`, {}],
    ['DELETE', `/api/v1/admin/users/${user.user.id}`, {}],
    ['GET', '/api/v1/admin/outreach', {}],
    ['POST', '/api/v1/admin/outreach/preview', { body: { subject: 'Hi' } }],
    ['POST', '/api/v1/admin/outreach/media', { payload: png.payload, headers: png.headers }],
    ['POST', '/api/v1/admin/outreach/send', { body: { subject: 'Hi', body: 'Hello', audience: 'all' } }],
  ];
  for (const [method, url, options] of routes) {
    const anonymous = await api.request(method, url, options);
    t.equal(anonymous.status, 401, `${method} ${url} without a token`);
    const forbidden = await api.request(method, url, { ...options, token: user.token });
    t.equal(forbidden.status, 403, `${method} ${url} as a user`);
    t.match(forbidden.body, { success: false, message: 'Forbidden. You do not have the required role.' });
  }
  t.ok(await api.db.selectFrom('users').select('id').where('id', '=', user.user.id).executeTakeFirst(), 'the user was not deleted');
  t.equal((await api.db.selectFrom('outreach_messages').select('id').execute()).length, 0, 'nothing was sent');
});

t.test('users list: by id, paged, searched by name, e-mail or username', async (t) => {
  const admin = await newAdmin();
  const zed = await api.newUser({ first_name: 'Zed', last_name: 'Quux', username: `zq_${Date.now()}` });
  await configure(zed.user.id, 'avatar', 'https://example.test/zed.png');

  const all = await api.request('GET', '/api/v1/admin/users?limit=100', { token: admin.token });
  t.equal(all.status, 200);
  const ids = all.body.data.data.map((u: any) => u.id);
  t.same(ids, [...ids].sort((a: number, b: number) => a - b), 'ordered by id');
  t.equal(all.body.data.total, ids.length);
  const listedAdmin = all.body.data.data.find((u: any) => u.id === admin.user.id);
  t.match(listedAdmin, { role: 'admin', is_admin: true, email: admin.email });
  t.notOk('password_hash' in listedAdmin);

  const page = await api.request('GET', '/api/v1/admin/users?limit=2&page=2', { token: admin.token });
  t.same(page.body.data.data.map((u: any) => u.id), ids.slice(2, 4));
  t.match(page.body.data, { current_page: 2, per_page: 2, total: ids.length, last_page: Math.ceil(ids.length / 2) });

  for (const search of ['quu', 'ZED', zed.email.slice(0, 12).toUpperCase(), 'zq_']) {
    const found = await api.request('GET', `/api/v1/admin/users?search=${encodeURIComponent(search)}`, { token: admin.token });
    t.same(found.body.data.data.map((u: any) => u.id), [zed.user.id], `search ${search}`);
  }
  const shown = (await api.request('GET', '/api/v1/admin/users?search=quux', { token: admin.token })).body.data.data[0];
  t.match(shown, { first_name: 'Zed', role: 'user', is_admin: false, avatar_url: 'https://example.test/zed.png' });
  const wildcard = await api.request('GET', '/api/v1/admin/users?search=%25', { token: admin.token });
  t.same(wildcard.body.data.data, [], '% is a literal character, not a wildcard');

  for (const query of ['limit=0', 'limit=1.5', 'page=0', 'search=']) {
    const bad = await api.request('GET', `/api/v1/admin/users?${query}`, { token: admin.token });
    t.equal(bad.status, 422, query);
    t.ok(bad.body.errors[query.split('=')[0]]);
  }
});

t.test('a user: counts of live records, preferences, latest transaction; 404 for unknown ids', async (t) => {
  const admin = await newAdmin();
  const user = await api.newUser();
  const latest = new Date('2026-03-04T05:06:07.000Z');
  await transaction(user.user.id, 'expense', new Date('2026-01-01T00:00:00Z'));
  await transaction(user.user.id, 'income', latest);
  await transaction(user.user.id, 'income', new Date('2026-05-01T00:00:00Z'), true);
  await fixtures.category(user.user.id);
  await fixtures.party(user.user.id);
  await configure(user.user.id, 'country', 'DE');
  await configure(user.user.id, 'default-lang', 'de');
  const groups = await api.db.selectFrom('groups').select('id').where('user_id', '=', user.user.id).where('deleted_at', 'is', null).execute();
  const categories = await api.db.selectFrom('categories').select('id').where('user_id', '=', user.user.id).where('deleted_at', 'is', null).execute();

  const shown = await api.request('GET', `/api/v1/admin/users/${user.user.id}`, { token: admin.token });
  t.equal(shown.status, 200);
  t.match(shown.body.data.user, { id: user.user.id, email: user.email, role: 'user' });
  t.same(shown.body.data.counts, { transactions: 2, wallets: 1, categories: categories.length, parties: 1, groups: groups.length, budgets: 0 });
  t.ok(groups.length > 0 && categories.length > 0);
  t.same(shown.body.data.preferences, { country: 'DE', language: 'de', currency: null });
  t.equal(shown.body.data.last_transaction_at, latest.toISOString(), 'the deleted later one does not count');

  const bare = await api.request('GET', `/api/v1/admin/users/${admin.user.id}`, { token: admin.token });
  t.equal(bare.body.data.last_transaction_at, null);
  t.match(bare.body.data.user, { role: 'admin', is_admin: true });

  const missing = await api.request('GET', '/api/v1/admin/users/999999999', { token: admin.token });
  t.equal(missing.status, 404);
  t.equal(missing.body.message, 'User not found.');
  t.equal((await api.request('GET', '/api/v1/admin/users/abc', { token: admin.token })).status, 404, 'a non-numeric id too');
});

t.test('delete a user: the account and everything it owns, its tokens stop working', async (t) => {
  const admin = await newAdmin();
  const user = await api.newUser();
  const other = await api.newUser();
  await transaction(user.user.id, 'expense', new Date());
  await transaction(other.user.id, 'expense', new Date());
  const count = async (table: 'wallets' | 'transactions' | 'groups' | 'configurations' | 'tokens', userId: number) =>
    Number((await api.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);
  t.ok((await count('wallets', user.user.id)) > 0);
  const storedKeys = await uploadFiles(api, user);

  const deleted = await api.request('DELETE', `/api/v1/admin/users/${user.user.id}`, { token: admin.token, body: { reason: 'Spam account' } });
  t.equal(deleted.status, 200);
  t.same(deleted.body, { success: true, message: 'User deleted successfully.', data: null });
  for (const table of ['wallets', 'transactions', 'groups', 'configurations', 'tokens'] as const) {
    t.equal(await count(table, user.user.id), 0, `no ${table} left`);
  }
  t.equal(await count('transactions', other.user.id), 1, "another user's records stay");
  for (const key of storedKeys) t.notOk(await isStored(api, key), `the stored bytes of ${key} are gone`);
  const confirmation = await api.db.selectFrom('emails').selectAll().where('to_address', '=', user.email).where('kind', '=', 'account_deleted').execute();
  t.equal(confirmation.length, 1, 'the user gets the confirmation e-mail');
  t.match(confirmation[0], { user_id: null, status: 'pending', subject: 'Your account has been deleted' });
  t.match(confirmation[0].text_body, 'Hi Test User,');
  t.equal((await api.request('GET', '/api/v1/user', { token: user.token })).status, 401, 'its token no longer works');
  t.equal((await api.request('GET', `/api/v1/admin/users/${user.user.id}`, { token: admin.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/admin/users/${user.user.id}`, { token: admin.token })).status, 404, 'deleting again is 404');

  const tooLong = await api.request('DELETE', `/api/v1/admin/users/${other.user.id}`, { token: admin.token, body: { reason: 'x'.repeat(1001) } });
  t.equal(tooLong.status, 422);
  t.ok(tooLong.body.errors.reason);
  t.equal(await count('transactions', other.user.id), 1, 'nothing deleted on bad input');
  t.equal((await api.request('DELETE', '/api/v1/admin/users/abc', { token: admin.token })).status, 404);
});

t.test('an admin may delete their own account (spec): afterwards their token is gone', async (t) => {
  const admin = await newAdmin();
  const deleted = await api.request('DELETE', `/api/v1/admin/users/${admin.user.id}`, { token: admin.token });
  t.equal(deleted.status, 200);
  t.equal((await api.request('GET', '/api/v1/admin/users', { token: admin.token })).status, 401);
});

t.test('revoking the role closes the admin area at once, for tokens already issued', async (t) => {
  const admin = await newAdmin();
  t.equal((await api.request('GET', '/api/v1/admin/users', { token: admin.token })).status, 200);
  await api.db.updateTable('users').set({ role: 'user' }).where('id', '=', admin.user.id).execute();
  t.equal((await api.request('GET', '/api/v1/admin/users', { token: admin.token })).status, 403);
});

// ---- review: the gate over every operation, racing deletes, hostile paging ------------------------

t.test('every /admin operation of the spec is behind the role (enumerated, not listed by hand)', async (t) => {
  const user = await api.newUser();
  const adminOperations = operations.filter((op) => op.path.startsWith('/v1/admin'));
  t.ok(adminOperations.length >= 8, `${adminOperations.length} admin operations`);
  t.same(operations.filter((op) => op.tag === 'Admin').map((op) => op.operationId).sort(), adminOperations.map((op) => op.operationId).sort(), 'the gate (tag Admin) covers exactly the /admin paths');
  for (const op of adminOperations) {
    t.equal(op.public, false, `${op.operationId} needs a token`);
    const url = `/api${op.path.replace('{id}', String(user.user.id))}`;
    const forbidden = await api.request(op.method, url, { token: user.token });
    t.equal(forbidden.status, 403, `${op.operationId} as a user`);
    t.equal((await api.request(op.method, url)).status, 401, `${op.operationId} without a token`);
  }
  t.ok(await api.db.selectFrom('users').select('id').where('id', '=', user.user.id).executeTakeFirst(), 'the user is still there');
});

t.test('two admins deleting one user at once: one deletes, the other gets 404, one e-mail', async (t) => {
  const first = await newAdmin();
  const second = await newAdmin();
  const user = await api.newUser();
  const results = await Promise.all([
    api.request('DELETE', `/api/v1/admin/users/${user.user.id}`, { token: first.token }),
    api.request('DELETE', `/api/v1/admin/users/${user.user.id}`, { token: second.token }),
  ]);
  t.same(results.map((r) => r.status).sort(), [200, 404]);
  const mails = await api.db.selectFrom('emails').select('id').where('to_address', '=', user.email).where('kind', '=', 'account_deleted').execute();
  t.equal(mails.length, 1, 'one confirmation e-mail');
});

// Found by the fuzzer: the account was closed between reading the user and reading its counts.
t.test('reading a user while it is deleted: 200 or 404, never a 500', async (t) => {
  const admin = await newAdmin();
  for (let round = 0; round < 5; round++) {
    const user = await api.newUser();
    const [read, deleted] = await Promise.all([
      api.request('GET', `/api/v1/admin/users/${user.user.id}`, { token: admin.token }),
      api.request('DELETE', `/api/v1/admin/users/${user.user.id}`, { token: admin.token }),
    ]);
    t.equal(deleted.status, 200);
    t.ok([200, 404].includes(read.status), `round ${round}: ${read.status}`);
  }
  t.equal(await adminUserDetails(api.db, 999_999_999), undefined, 'the details of a closed account are undefined, not an error');
});

t.test('paging: a page far past the end is empty, never a 500', async (t) => {
  const admin = await newAdmin();
  for (const url of ['/api/v1/admin/users', '/api/v1/admin/outreach']) {
    for (const page of ['1000000', '9007199254740991', '100000000000000000000']) {
      const res = await api.request('GET', `${url}?page=${page}&limit=100`, { token: admin.token });
      t.not(res.status, 500, `${url} page=${page}`);
      if (res.status === 200) t.same(res.body.data.data, [], `${url} page=${page} is empty`);
      else t.ok(res.body.errors?.page, `${url} page=${page} refused on page`);
    }
  }
});

t.test('users list: a search with a NUL character is 422 on search (never a 500)', async (t) => {
  const admin = await newAdmin();
  const res = await api.request('GET', '/api/v1/admin/users?search=a%00b', { token: admin.token });
  t.equal(res.status, 422);
  t.same(res.body.errors, { search: ['The search may not contain NUL characters.'] });
});

t.test('metrics: the SQL buckets (to_char) and the zero-filled keys agree for every granularity', async (t) => {
  const admin = await newAdmin();
  const user = await api.newUser();
  const now = Date.now();
  // Around year and week edges too: 3 and 10 days ago, and 40 days ago (another month).
  const dates = [1, 3, 10, 40].map((days) => new Date(now - days * DAY));
  for (const date of dates) await transaction(user.user.id, 'expense', date);
  for (const granularity of ['day', 'week', 'month'] as const) {
    const res = await api.request('GET', `/api/v1/admin/metrics?days=60&granularity=${granularity}`, { token: admin.token });
    t.equal(res.status, 200);
    const total = metricOf(res.body, 'transactions', 'total_transactions').value;
    const series = metricOf(res.body, 'transactions', 'transactions_series').series;
    t.equal(series.reduce((sum: number, p: any) => sum + p.value, 0), total, `${granularity}: every counted transaction lands in a bucket`);
    const keys = series.map((p: any) => p.date);
    t.same(keys, [...new Set(keys)], `${granularity}: keys are distinct`);
    for (const date of dates) t.ok(series.find((p: any) => p.date === bucketKey(date, granularity))?.value >= 1, `${granularity}: ${date.toISOString()} in its bucket`);
    const users = metricOf(res.body, 'users', 'new_users_series').series;
    t.equal(users.reduce((sum: number, p: any) => sum + p.value, 0), metricOf(res.body, 'users', 'new_users').value, `${granularity}: new users too`);
  }
});
