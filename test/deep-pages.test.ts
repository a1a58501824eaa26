// Deep pages of a long transaction list. From an offset of 10,000 rows a page counts the list
// first and, in its back half, is read from the end (db/feed.ts); its ids are found in an
// index-only scan of the bare table. Each page must still be exactly the slice of the list in
// its order that offset paging defines, with every filter, up to and past the last page.
import t from 'tap';
import { sql } from 'kysely';
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
