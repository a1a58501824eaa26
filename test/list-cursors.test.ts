// Plain lists walked by cursor (domain/list-cursor.ts, db/feed.ts): a full page's `next_cursor`,
// sent back as `cursor` with the same filters, gives the rows after that page's last one, found
// by key. Walking a list by cursor must give exactly the rows walking it by `page` gives (the
// offset slices, computed here in SQL), also when rows are inserted, deleted or moved between
// pages, with ties on every sort column but the id; a cursor is refused (422) when changed or
// sent with other filters, and names a position only (another user's lists only their rows).
import t from 'tap';
import { sql } from 'kysely';
import { startApp } from './helpers/harness.js';
import { mcpClients } from './helpers/mcp-client.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const ROWS = 1_000;

const post = async (token: string, url: string, body: unknown) => {
  const res = await api.request('POST', url, { token, body });
  if (res.status !== 201) throw new Error(`${url}: ${JSON.stringify(res.body)}`);
  return res.body.data;
};
const first = (await post(owner.token, '/api/v1/wallets', { name: 'Checking', type: 'bank', currency: 'USD', opening_balance: '0' })).id as number;
const second = (await post(owner.token, '/api/v1/wallets', { name: 'Cash', type: 'cash', currency: 'USD', opening_balance: '0' })).id as number;
const party = (await post(owner.token, '/api/v1/parties', { name: 'Corner shop' })).id as number;
// Rows in bulk: datetimes repeat (40 rows a day) and so do created_at values (7 of them), so
// many rows tie on both and the id decides; 1 in 3 in the second wallet, 1 in 5 an income, 1 in
// 4 with the party. Some stamps carry microseconds, which a cursor must keep exactly.
await sql`
  insert into transactions (user_id, wallet_id, party_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
  select ${owner.user.id}::bigint, case when i % 3 = 0 then ${second}::bigint else ${first}::bigint end,
         case when i % 4 = 0 then ${party}::bigint end,
         case when i % 5 = 0 then 'income' else 'expense' end, (i % 97 + 1)::numeric,
         timestamptz '2024-01-01' + (i / 40) * interval '1 day', 'row ' || i,
         timestamptz '2024-01-01' + (i % 7) * interval '1 second' + (i % 2) * interval '1 microsecond', now(), now()
  from generate_series(1, ${ROWS}::int) as i`.execute(api.db);
await sql`update transactions set deleted_at = now() where user_id = ${owner.user.id} and id % 53 = 0`.execute(api.db);
// the stranger has rows of their own, dated among the owner's
await post(stranger.token, '/api/v1/wallets', { name: 'Theirs', type: 'bank', currency: 'USD', opening_balance: '0' }).then((wallet) =>
  sql`insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
      select ${stranger.user.id}::bigint, ${wallet.id}::bigint, 'expense', 1, timestamptz '2024-01-01' + i * interval '1 day', 'theirs ' || i, now(), now(), now()
      from generate_series(1, 30) as i`.execute(api.db),
);

interface Filter {
  type?: 'income' | 'expense';
  walletId?: number;
  partyId?: number;
}

/** The list's ids in its order, as offset paging defines every page; with `including`, that row too even if deleted (a cursor's own row). */
async function expectedIds(filter: Filter, including?: number) {
  let q = api.db
    .selectFrom('transactions')
    .select(['id', 'deleted_at'])
    .where('user_id', '=', owner.user.id)
    .where((eb) => (including ? eb.or([eb('deleted_at', 'is', null), eb('id', '=', including)]) : eb('deleted_at', 'is', null)))
    .orderBy('datetime', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc');
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.walletId) q = q.where('wallet_id', '=', filter.walletId);
  if (filter.partyId) q = q.where('party_id', '=', filter.partyId);
  return (await q.execute()).map((row) => ({ id: Number(row.id), live: row.deleted_at === null }));
}
const live = async (filter: Filter) => (await expectedIds(filter)).map((row) => row.id);

const list = (query: string, token = owner.token) => api.request('GET', `/api/v1/transactions?${query}`, { token });
const ids = (res: { body: any }) => res.body.data.data.map((row: { id: number }) => row.id) as number[];

for (const [label, filter, query] of [
  ['every transaction', {}, ''],
  ['type=expense', { type: 'expense' }, '&type=expense'],
  ['one wallet', { walletId: second }, `&wallet_ids=${second}`],
  ['one party', { partyId: party }, `&party_ids=${party}`],
] as const) {
  t.test(`walking by cursor gives the pages walking by page gives: ${label}`, async (t) => {
    const expected = await live(filter);
    for (const limit of [50, 37]) {
      const last = Math.ceil(expected.length / limit);
      let cursor: string | undefined;
      for (let n = 1; n <= last; n++) {
        const byPage = await list(`page=${n}&limit=${limit}${query}`);
        const byCursor = n === 1 ? byPage : await list(`cursor=${cursor}&limit=${limit}${query}`);
        t.equal(byCursor.status, 200);
        const slice = expected.slice((n - 1) * limit, n * limit);
        t.same(ids(byPage), slice, `page ${n} at limit ${limit}`);
        t.same(ids(byCursor), slice, `cursor page ${n} at limit ${limit}`);
        // a cursor's page counts from it; the list's counters are the whole list's
        t.match(byCursor.body.data, { current_page: 1, per_page: limit, total: expected.length, last_page: last });
        t.equal(byCursor.body.data.next_cursor === undefined, slice.length < limit, `page ${n}: a cursor exactly when the page is full`);
        t.equal(byPage.body.data.next_cursor, byCursor.body.data.next_cursor, `page ${n} by page carries the same cursor`);
        cursor = byCursor.body.data.next_cursor;
      }
      if (cursor) {
        const after = await list(`cursor=${cursor}&limit=${limit}${query}`);
        t.same(ids(after), [], 'a full last page: the cursor after it gives no rows');
        t.equal(after.body.data.next_cursor, undefined);
      }
    }
  });
}

t.test('a cursor with a page: the page counts from the cursor', async (t) => {
  const expected = await live({});
  const cursor = (await list('limit=40')).body.data.next_cursor;
  const res = await list(`cursor=${cursor}&limit=40&page=3`);
  t.equal(res.status, 200);
  t.same(ids(res), expected.slice(40 + 80, 40 + 120));
  t.equal(res.body.data.current_page, 3);
});

t.test('rows inserted, deleted and moved between pages: the next page is the rows after the cursor, as they are now', async (t) => {
  const limit = 50;
  const page = await list(`page=4&limit=${limit}`);
  const cursor = page.body.data.next_cursor as string;
  const lastShown = ids(page).at(-1)!;
  /** The next page as the list stands: the live rows after the cursor's row in the list's order. */
  const expectedAfter = async () => {
    const rows = await expectedIds({}, lastShown);
    const at = rows.findIndex((row) => row.id === lastShown);
    return rows.slice(at + 1).filter((row) => row.live).slice(0, limit).map((row) => row.id);
  };
  const check = async (why: string) => {
    const res = await list(`cursor=${cursor}&limit=${limit}`);
    t.equal(res.status, 200);
    t.same(ids(res), await expectedAfter(), why);
  };
  await check('unchanged');
  // deleted: rows before the cursor, rows of the next page
  const next = ids(await list(`cursor=${cursor}&limit=${limit}`));
  await sql`update transactions set deleted_at = now() where id in (${sql.join([ids(page)[3], ids(page)[10], next[0], next[7]])})`.execute(api.db);
  await check('after deletes before the cursor and in the next page');
  // inserted with the cursor row's own datetime and created_at: the new id is higher, so in
  // this order (id descending) it ties before the cursor row, not after it; and one copy of a
  // row of the next page, which ties after the cursor
  await sql`insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
    select user_id, wallet_id, type, amount, datetime, 'tie of ' || id, created_at, now(), now() from transactions where id in (${lastShown}, ${next[2]})`.execute(api.db);
  await check('after inserts tied with the cursor row and with a row after it');
  // a row of the next page moved to the front, a row of the front moved into the next page
  await sql`update transactions set datetime = timestamptz '2030-01-01' where id = ${next[4]}`.execute(api.db);
  await sql`update transactions set datetime = (select datetime from transactions where id = ${next[9]}) where id = ${ids(page)[0]}`.execute(api.db);
  await check('after rows moved across the cursor');
  // the cursor's own row deleted, then moved: the cursor is its key as it was, not the row
  await sql`update transactions set deleted_at = now() where id = ${lastShown}`.execute(api.db);
  await check('after the cursor row was deleted');
  await sql`update transactions set deleted_at = null, datetime = timestamptz '2031-01-01' where id = ${lastShown}`.execute(api.db);
  const res = await list(`cursor=${cursor}&limit=${limit}`);
  t.notOk(ids(res).includes(lastShown), 'the moved cursor row is not after its old key');
  t.ok(ids(res).length === limit, 'the list goes on after the old key');
});

t.test('a changed cursor, a cursor of other filters or of another list is 422 on cursor; no token is 401', async (t) => {
  const cursor = (await list('limit=20&type=expense')).body.data.next_cursor as string;
  t.match(cursor, /^0\.\d{16,}$/, "a list cursor fits the spec's cursor pattern and is told apart from a sync cursor");
  t.equal((await list(`cursor=${cursor}&limit=20&type=expense`)).status, 200);
  const digit = cursor.length - 5;
  const changed = cursor.slice(0, digit) + String((Number(cursor[digit]) + 1) % 10) + cursor.slice(digit + 1);
  const transfers = await api.request('GET', '/api/v1/transfers?limit=1', { token: owner.token });
  t.equal(transfers.status, 200);
  const wallets = (await api.request('GET', '/api/v1/wallets?limit=1', { token: owner.token })).body.data.next_cursor as string;
  t.ok(wallets, 'another list has cursors too');
  const cases: Array<[string, string]> = [
    [`cursor=${changed}&type=expense`, 'one digit changed'],
    [`cursor=${cursor.slice(0, -1)}&type=expense`, 'cut short'],
    [`cursor=0.${'1'.repeat(40)}&type=expense`, 'made up'],
    [`cursor=${cursor}`, 'without its filter'],
    [`cursor=${cursor}&type=income`, 'with another filter'],
    [`cursor=${cursor}&type=expense&search=row`, 'with one filter more'],
    [`cursor=${cursor}&type=expense&synced_since=2020-01-01T00:00:00Z`, 'on the sync feed'],
    [`cursor=${wallets}&type=expense`, "the wallets' list's cursor"],
    ['cursor=abc', 'not a cursor at all'],
  ];
  for (const [query, why] of cases) {
    const res = await list(`${query}&limit=20`);
    t.equal(res.status, 422, why);
    t.ok(res.body.errors?.cursor, `${why}: ${JSON.stringify(res.body.errors)}`);
  }
  t.match((await list(`cursor=${cursor}&type=income&limit=20`)).body.errors.cursor[0], /other filters/);
  const wrongList = await api.request('GET', `/api/v1/wallets?cursor=${cursor}`, { token: owner.token });
  t.equal(wrongList.status, 422, "the transactions' cursor on the wallets' list");
  t.equal((await api.request('GET', `/api/v1/transactions?cursor=${cursor}&type=expense`)).status, 401);
});

t.test("another user's cursor is a position only: it lists the caller's own rows after it", async (t) => {
  const cursor = (await list('page=10&limit=50')).body.data.next_cursor as string;
  const res = await list(`cursor=${cursor}&limit=50`, stranger.token);
  t.equal(res.status, 200);
  const theirs = await api.db.selectFrom('transactions').select(['id', 'datetime']).where('user_id', '=', stranger.user.id).orderBy('datetime', 'desc').orderBy('id', 'desc').execute();
  const position = (await api.db.selectFrom('transactions').select('datetime').where('id', '=', ids(await list('page=10&limit=50')).at(-1)!).executeTakeFirstOrThrow()).datetime;
  t.ok(ids(res).length > 0, 'some of their own rows are after that position');
  t.same(ids(res), theirs.filter((row) => row.datetime < position).map((row) => Number(row.id)), "only the caller's rows, after the position");
});

t.test('the transfers list walks by cursor too', async (t) => {
  const from = (await post(stranger.token, '/api/v1/wallets', { name: 'From', type: 'bank', currency: 'USD', balance: 1000 })).id;
  const to = (await post(stranger.token, '/api/v1/wallets', { name: 'To', type: 'bank', currency: 'USD', opening_balance: '0' })).id;
  // 23 transfers, three of them at one datetime (ties decided by id)
  for (let i = 0; i < 23; i++) {
    await post(stranger.token, '/api/v1/transfer', { amount: 1 + i, from_wallet_id: from, to_wallet_id: to, datetime: `2025-03-${String(1 + Math.min(i, 20)).padStart(2, '0')}T10:00:00Z` });
  }
  const expected = (
    await api.db.selectFrom('transfers').select('id').where('user_id', '=', stranger.user.id).where('deleted_at', 'is', null).orderBy('datetime', 'desc').orderBy('id', 'desc').execute()
  ).map((row) => Number(row.id));
  const walked: number[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 10; n++) {
    const res = await api.request('GET', `/api/v1/transfers?limit=5${cursor ? `&cursor=${cursor}` : ''}`, { token: stranger.token });
    t.equal(res.status, 200);
    walked.push(...ids(res));
    cursor = res.body.data.next_cursor;
    if (!cursor) break;
  }
  t.same(walked, expected, 'every transfer once, in the list order');
});

t.test('the MCP tool list-transactions pages by cursor as the list does', async (t) => {
  const token = (await api.request('POST', '/api/v1/ai/mcp/tokens', { token: owner.token, body: { name: 'agent', scopes: ['read'] } })).body.data.token as string;
  const client = await (await mcpClients(api)).connect(t, token);
  const tool = (await client.listTools()).tools.find((row) => row.name === 'list-transactions')!;
  t.ok((tool.inputSchema.properties as Record<string, unknown>).cursor, 'the tool offers cursor');
  const expected = await live({ partyId: party });
  const walked: number[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < 20; n++) {
    const page: any = await client.callTool({ name: 'list-transactions', arguments: { party_ids: [party], limit: 100, ...(cursor ? { cursor } : {}) } });
    t.notOk(page.isError, page.content[0].text.slice(0, 200));
    walked.push(...page.structuredContent.data.map((row: { id: number }) => row.id));
    cursor = page.structuredContent.next_cursor;
    if (!cursor) break;
  }
  t.same(walked, expected, "every row of the party once, in the list's order");
  const stale: any = await client.callTool({ name: 'list-transactions', arguments: { type: 'income', cursor: (await list(`limit=10&party_ids=${party}`)).body.data.next_cursor } });
  t.ok(stale.isError, 'a cursor of other filters is refused');
  t.ok(Object.keys(JSON.parse(stale.content[0].text).errors ?? {}).includes('cursor'), stale.content[0].text.slice(0, 200));
});
