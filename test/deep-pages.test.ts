// Deep pages of a long transaction list. From an offset of 10,000 rows a page counts the list
// first and, in its back half, is read from the end (db/feed.ts); its ids are found in an
// index-only scan of the bare table. Each page must still be exactly the slice of the list in
// its order that offset paging defines, with every filter, up to and past the last page.
import t from 'tap';
import { sql } from 'kysely';
import { pageAnchorsOf } from '../db/page-anchors.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const ROWS = 10_420;

const wallet = async (name: string) =>
  (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name, type: 'bank', currency: 'USD', opening_balance: '0' } })).body.data.id as number;
const [first, second] = [await wallet('Checking'), await wallet('Cash')];
// Rows in bulk, as an import writes them: datetimes repeat (60 rows a day), so the order's
// later keys (created_at, id) decide ties; 1 in 3 in the second wallet, 1 in 5 an income.
await sql`
  insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
  select ${owner.user.id}::bigint, case when i % 3 = 0 then ${second}::bigint else ${first}::bigint end,
         case when i % 5 = 0 then 'income' else 'expense' end, (i % 97 + 1)::numeric,
         timestamptz '2024-01-01' + (i / 60) * interval '1 day', 'row ' || i,
         timestamptz '2024-01-01' + (i % 7) * interval '1 second', now(), now()
  from generate_series(1, ${ROWS}::int) as i`.execute(api.db);
// deleted rows are never counted nor shown
await sql`update transactions set deleted_at = now() where user_id = ${owner.user.id} and id % 101 = 0`.execute(api.db);

/** The list's ids in its order, as offset paging defines every page. */
async function expectedIds(filter: { type?: string; walletId?: number }) {
  let q = api.db
    .selectFrom('transactions')
    .select('id')
    .where('user_id', '=', owner.user.id)
    .where('deleted_at', 'is', null)
    .orderBy('datetime', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (filter.type) q = q.where('type', '=', filter.type as 'income' | 'expense');
  if (filter.walletId) q = q.where('wallet_id', '=', filter.walletId);
  return (await q.execute()).map((row) => Number(row.id));
}

const page = (query: string, token = owner.token) => api.request('GET', `/api/v1/transactions?${query}`, { token });

for (const [label, filter, query] of [
  ['every transaction', {}, ''],
  ['type=expense', { type: 'expense' }, '&type=expense'],
  ['one wallet', { walletId: second }, `&wallet_ids=${second}`],
] as const) {
  t.test(`deep pages are the exact slices of the list: ${label}`, async (t) => {
    const ids = await expectedIds(filter);
    t.ok(ids.length > 3_000, `${ids.length} rows`);
    for (const limit of [50, 100]) {
      const last = Math.ceil(ids.length / limit);
      // the first pages, the page crossing offset 10,000, the middle, the back half, the last
      const pages = [1, 2, Math.floor(10_000 / limit), Math.floor(10_000 / limit) + 1, Math.floor(last / 2), Math.floor(last / 2) + 1, last - 1, last];
      for (const n of [...new Set(pages)].filter((n) => n >= 1 && n <= last)) {
        const res = await page(`page=${n}&limit=${limit}${query}`);
        t.equal(res.status, 200);
        t.same(
          res.body.data.data.map((row: { id: number }) => row.id),
          ids.slice((n - 1) * limit, n * limit),
          `page ${n} at limit ${limit} of ${last}`,
        );
        t.match(res.body.data, { current_page: n, per_page: limit, total: ids.length, last_page: last });
      }
      for (const n of [last + 1, last + 500]) {
        const res = await page(`page=${n}&limit=${limit}${query}`);
        t.equal(res.status, 200);
        t.same(res.body.data.data, [], `page ${n} is past the end`);
        t.equal(res.body.data.total, ids.length);
      }
    }
  });
}

t.test('a deep page of another user is empty, and no token is 401', async (t) => {
  const res = await page('page=150&limit=100', stranger.token);
  t.equal(res.status, 200);
  t.same(res.body.data.data, []);
  t.equal(res.body.data.total, 0);
  t.equal((await api.request('GET', '/api/v1/transactions?page=150&limit=100')).status, 401);
});

// Pages found by key (db/page-anchors.ts): every page read leaves the ids at its two ends, and a
// later page of the same list at the same data version starts at the nearest one instead of
// skipping rows. Each page must still be exactly the offset slice, also when rows change between
// requests (a change is a new data version: its anchors start over).
t.test('pages found from kept anchors are the offset slices, while rows change between requests', async (t) => {
  const anchors = pageAnchorsOf(api.db);
  const check = async (n: number, limit: number, why: string) => {
    const ids = await expectedIds({});
    const res = await page(`page=${n}&limit=${limit}`);
    t.equal(res.status, 200);
    t.same(res.body.data.data.map((row: { id: number }) => row.id), ids.slice((n - 1) * limit, n * limit), `page ${n} at limit ${limit}: ${why}`);
    t.equal(res.body.data.total, ids.length);
  };
  // a walk from the first page: each page starts at the anchor the previous one left
  for (let n = 1; n <= 40; n++) await check(n, 50, 'walked');
  const version = async () => Number((await api.db.selectFrom('user_versions').select('version').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()).version);
  // the list's key: its parameters as validated (with the spec's defaults), but the page's own
  const list = `transactions\n${owner.user.id}\n${await version()}\n${JSON.stringify([['exclude_transfers', false]])}`;
  t.ok(anchors.nearest(list, 40 * 50), 'the walk left anchors');
  // other limits, backwards, and jumps near a known anchor (positions between anchors)
  for (const [n, limit] of [[39, 50], [20, 100], [19, 100], [27, 73], [26, 73], [101, 20], [60, 33], [1, 7], [3, 7]] as const) await check(n, limit, 'near an anchor');

  // rows change between requests: deleted, inserted with the same sort keys as existing rows
  // (ties decided by id), moved in time; every later page is still its slice of the list as it is
  const [shown] = (await page('page=10&limit=50')).body.data.data;
  await sql`update transactions set deleted_at = now() where user_id = ${owner.user.id} and id in (
    select id from transactions where user_id = ${owner.user.id} and deleted_at is null order by datetime desc, created_at desc, id desc limit 3 offset 420)`.execute(api.db);
  await check(11, 50, 'after deletes before the page');
  await sql`insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
    select user_id, wallet_id, type, amount, datetime, 'tie of ' || id, created_at, now(), now() from transactions where id = ${shown.id}`.execute(api.db);
  await check(10, 50, 'after an insert tied with a row of the page');
  await check(11, 50, 'the next page after the insert');
  await sql`update transactions set datetime = timestamptz '2030-01-01' where id = ${shown.id}`.execute(api.db);
  await check(10, 50, 'after a row moved to the front');
  for (let n = 12; n <= 16; n++) await check(n, 50, 'walked after the changes');
  t.not(await version(), Number(list.split('\n')[2]), 'each change was a new version');
});

t.test('a sync feed jumped into without a mark starts at a kept anchor: the same rows', async (t) => {
  const stamped = async () =>
    (await api.db.selectFrom('transactions').select('id').where('user_id', '=', owner.user.id).orderBy('last_synced_at').orderBy('id').execute()).map((row) => Number(row.id));
  const ids = await stamped();
  const limit = 100;
  for (const n of [1, 2, 3, 30, 31, 29, 60, 61, 2]) {
    // a fresh token each time: no page marks, so page N is a position in the feed
    const token = (await api.request('POST', '/api/login', { body: { email: owner.email, password: owner.password } })).body.data.token as string;
    const res = await page(`synced_since=2000-01-01T00:00:00Z&limit=${limit}&page=${n}`, token);
    t.equal(res.status, 200);
    t.same(res.body.data.data.map((row: { id: number }) => row.id), ids.slice((n - 1) * limit, n * limit), `sync page ${n}`);
  }
});

// A cold jump (no anchor at this data version) starts at the first row of the page's day, from
// the live rows' counts per wallet and UTC day (migration 047), kept by triggers through every
// write: inserts, deletes, restores, rows moved to another day or wallet.
t.test('the day counts stay exact through writes, and every cold jump is its offset slice', async (t) => {
  const recount = async () => {
    const kept = await sql<{ wallet_id: number; day: string; count: number }>`
      select wallet_id, day::text, count from transaction_day_counts where user_id = ${owner.user.id} and count <> 0 order by wallet_id, day`.execute(api.db);
    const live = await sql<{ wallet_id: number; day: string; count: number }>`
      select wallet_id, ((datetime at time zone 'UTC')::date)::text as day, count(*)::bigint as count from transactions
       where user_id = ${owner.user.id} and deleted_at is null group by 1, 2 order by 1, 2`.execute(api.db);
    return [kept.rows.map((r) => `${r.wallet_id} ${r.day} ${Number(r.count)}`), live.rows.map((r) => `${r.wallet_id} ${r.day} ${Number(r.count)}`)];
  };
  const [kept, live] = await recount();
  t.same(kept, live, 'after the bulk insert and the changes of the tests above');

  const created = [];
  for (let i = 0; i < 12; i++) {
    const res = await api.request('POST', '/api/v1/transactions', {
      token: owner.token,
      body: { wallet_id: i % 2 ? first : second, type: 'income', amount: i + 1.5, datetime: `2024-0${1 + (i % 6)}-1${i % 9}T23:30:00.000Z`, description: `api ${i}` },
    });
    t.equal(res.status, 201, JSON.stringify(res.body.errors ?? ''));
    created.push(res.body.data.id as number);
  }
  // a row moved to another day and wallet, one to another day, two deleted, one deleted and restored in SQL
  t.equal((await api.request('PUT', `/api/v1/transactions/${created[0]}`, { token: owner.token, body: { datetime: '2024-03-31T00:10:00.000Z', wallet_id: first } })).status, 200);
  t.equal((await api.request('PUT', `/api/v1/transactions/${created[1]}`, { token: owner.token, body: { datetime: '2023-12-31T23:59:59.000Z' } })).status, 200);
  for (const id of created.slice(2, 4)) t.equal((await api.request('DELETE', `/api/v1/transactions/${id}`, { token: owner.token })).status, 200);
  await sql`update transactions set deleted_at = now() where id = ${created[4]}`.execute(api.db);
  await sql`update transactions set deleted_at = null where id = ${created[4]}`.execute(api.db);
  const [keptAfter, liveAfter] = await recount();
  t.same(keptAfter, liveAfter, 'after creates, moves, deletes and a restore');

  // cold jumps at this data version, deepest first so no anchor of this version is nearer
  for (const [label, filter, query] of [['every transaction', {}, ''], ['one wallet', { walletId: second }, `&wallet_ids=${second}`]] as const) {
    const ids = await expectedIds(filter);
    for (const [n, limit] of [[Math.ceil(ids.length / 50) - 3, 50], [150, 40], [61, 100], [23, 50], [12, 100]] as const) {
      const res = await page(`page=${n}&limit=${limit}${query}`);
      t.equal(res.status, 200);
      t.same(res.body.data.data.map((row: { id: number }) => row.id), ids.slice((n - 1) * limit, n * limit), `${label}: page ${n} at limit ${limit}`);
    }
  }
});
