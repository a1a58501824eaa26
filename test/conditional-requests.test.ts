// Conditional requests: GETs marked x-conditional answer with an ETag, and 304 with no body
// (their handler not run) while nothing the tag covers has changed. Changes of the same user
// from another device change the tag, another user's do not, and a rolled-back write does not.
// A tag never hides a change: held-back sync rows and late commits (PostgreSQL) below; the sync
// fleet (sync-fleet.test.ts) revalidates its pulls.
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';
import { openPartyWrite } from './helpers/open-write.js';

const api = await startApp(t);
const owner = await api.newUser();
const other = await api.newUser();
// the same account on a second device
const secondDevice = (await api.request('POST', '/api/login', { body: { email: owner.email, password: owner.password } })).body.data.token as string;

const get = (token: string | undefined, url: string, headers: Record<string, string> = {}) => api.request('GET', url, { token, headers });
const revalidate = (token: string, url: string, etag: string, headers: Record<string, string> = {}) => get(token, url, { 'if-none-match': etag, ...headers });
const etagOf = (res: { headers: Record<string, unknown> }) => res.headers.etag as string;

const wallet = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Main', type: 'bank', currency: 'EUR', balance: 100 } })).body.data;
const spare = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Spare', type: 'cash', currency: 'EUR' } })).body.data;
for (const name of ['Bakery', 'Grocer', 'Landlord']) await api.request('POST', '/api/v1/parties', { token: owner.token, body: { name } });
const expense = (await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'expense', amount: 10, wallet_id: wallet.id, datetime: '2026-01-05T10:00:00Z' } })).body.data;

const PARTIES = '/api/v1/parties';
const SYNC_PAGE = '/api/v1/parties?synced_since=2000-01-01T00:00:00Z&limit=2';
const WATCHED = [PARTIES, `/api/v1/wallets/${wallet.id}`, SYNC_PAGE, '/api/v1/stats', '/api/v1/user', '/api/v1/budgets'];

/** The current tag of each watched request for the owner's first device. */
async function tags(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const url of WATCHED) {
    const res = await get(owner.token, url);
    if (res.status !== 200 || !etagOf(res)) throw new Error(`${url}: ${res.status} ${etagOf(res)}`);
    found.set(url, etagOf(res));
  }
  return found;
}

async function stillFresh(t: Test, before: Map<string, string>, why: string) {
  for (const [url, etag] of before) {
    const res = await revalidate(owner.token, url, etag);
    t.equal(res.status, 304, `${url}: ${why}`);
  }
}

t.test('a 200 carries a tag; revalidating it is a 304 with no body, and the handler does not run', async (t) => {
  const first = await get(owner.token, SYNC_PAGE);
  t.equal(first.status, 200);
  t.match(etagOf(first), /^W\/"[A-Za-z0-9_-]{22}"$/);
  t.equal(first.headers['cache-control'], 'private, no-cache');
  // the page wrote its mark (where page 2 continues); a handler that runs writes it again
  const marks = () => api.db.selectFrom('sync_page_marks').selectAll().execute();
  t.ok((await marks()).length > 0, 'the sync page wrote its page mark');
  await api.db.deleteFrom('sync_page_marks').execute();

  const again = await revalidate(owner.token, SYNC_PAGE, etagOf(first));
  t.equal(again.status, 304);
  t.equal(again.body, '', 'no body');
  t.equal(etagOf(again), etagOf(first), 'the same tag');
  t.equal(again.headers['cache-control'], 'private, no-cache');
  t.same(await marks(), [], 'no page read: no page mark written');
});

t.test('a change by the same user on another device changes every tag', async (t) => {
  const before = await tags();
  await stillFresh(t, before, 'nothing changed yet');
  await api.request('PUT', `/api/v1/wallets/${wallet.id}`, { token: secondDevice, body: { name: 'Main account' } });
  for (const [url, etag] of before) {
    const res = await revalidate(owner.token, url, etag);
    t.equal(res.status, 200, `${url}: answered again`);
    t.not(etagOf(res), etag, `${url}: a new tag`);
  }
  const shown = await get(owner.token, `/api/v1/wallets/${wallet.id}`);
  t.equal(shown.body.data.name, 'Main account', 'with the change');
  const stats = await revalidate(owner.token, '/api/v1/stats', before.get('/api/v1/stats')!);
  t.equal(stats.status, 200, 'statistics too');
});

t.test("another user's changes, and a write that rolls back, leave the tags as they are", async (t) => {
  const before = await tags();
  await api.request('POST', '/api/v1/parties', { token: other.token, body: { name: 'Their party' } });
  await api.request('POST', '/api/v1/transactions', { token: other.token, body: { type: 'income', amount: 5, wallet_id: (await api.request('POST', '/api/v1/wallets', { token: other.token, body: { name: 'W', type: 'cash', currency: 'EUR' } })).body.data.id } });
  await stillFresh(t, before, "another user's changes do not count");

  // moving the expense to the empty wallet gives its 10 back to Main first, then overdraws Spare: 422, all rolled back
  const refused = await api.request('PUT', `/api/v1/transactions/${expense.id}?type=expense`, { token: secondDevice, body: { wallet_id: spare.id, updated_at: new Date().toISOString() } });
  t.equal(refused.status, 422);
  t.ok(refused.body.errors.amount, 'refused for the overdraft, after the first wallet was written');
  await stillFresh(t, before, 'a rolled-back write does not count');
});

t.test('coarse by design: a change to any of the user\'s records changes every tag', async (t) => {
  const before = await get(owner.token, PARTIES);
  await api.request('POST', '/api/v1/groups', { token: secondDevice, body: { name: 'Holidays' } });
  const after = await revalidate(owner.token, PARTIES, etagOf(before));
  t.equal(after.status, 200, 'a new group changes the party list\'s tag, though the list shows no group');
  t.same(after.body.data.data, before.body.data.data, 'with the same parties');
});

t.test('the tag covers the request: path, query string, language, token', async (t) => {
  const variants = [
    get(owner.token, PARTIES),
    get(owner.token, `${PARTIES}?limit=2`),
    get(owner.token, `${PARTIES}?limit=2&page=2`),
    get(owner.token, '/api/v1/stats', { 'accept-language': 'fr' }),
    get(owner.token, '/api/v1/stats', { 'accept-language': 'de' }),
    get(secondDevice, PARTIES),
  ];
  const found = (await Promise.all(variants)).map(etagOf);
  t.equal(new Set(found).size, found.length, 'every variant has a tag of its own');
  const french = await revalidate(owner.token, '/api/v1/stats', found[3], { 'accept-language': 'de' });
  t.equal(french.status, 200, 'the French answer is no German one');
});

t.test('If-None-Match: stale tags, lists, *, garbage; no token; another user\'s tag', async (t) => {
  const current = etagOf(await get(owner.token, PARTIES));
  const stale = 'W/"AAAAAAAAAAAAAAAAAAAAAA"';
  t.equal((await revalidate(owner.token, PARTIES, stale)).status, 200, 'a stale tag: the answer');
  t.equal((await revalidate(owner.token, PARTIES, `${stale}, ${current}`)).status, 304, 'a list naming the current tag');
  t.equal((await revalidate(owner.token, PARTIES, `${stale},"nope"`)).status, 200, 'a list without it');
  t.equal((await revalidate(owner.token, PARTIES, current.slice(2))).status, 304, 'weak comparison: the strong form matches too');
  t.equal((await revalidate(owner.token, PARTIES, '*')).status, 304, '* matches an existing answer');
  t.equal((await revalidate(owner.token, '/api/v1/parties/999999999', '*')).status, 404, '* matches no missing record');
  for (const garbage of ['garbage', 'W/', '"', ',,,', 'W/"unterminated']) {
    const res = await revalidate(owner.token, PARTIES, garbage);
    t.equal(res.status, 200, `garbage ${JSON.stringify(garbage)}: the answer`);
  }
  const anonymous = await get(undefined, PARTIES, { 'if-none-match': current });
  t.equal(anonymous.status, 401, 'no token: 401, never 304');
  const theirs = await revalidate(other.token, PARTIES, current);
  t.equal(theirs.status, 200, "another user's tag is not theirs");
  t.not(etagOf(theirs), current);
  const invalid = await revalidate(owner.token, `${PARTIES}?limit=0`, current);
  t.equal(invalid.status, 422, 'bad input is 422 whatever the tag');
});

t.test('statistics also follow the exchange rates', async (t) => {
  const before = await get(owner.token, '/api/v1/stats');
  await api.db.insertInto('exchange_rates').values({ base_currency: 'USD', target_currency: 'EUR', rate: '0.9' }).execute();
  t.equal((await revalidate(owner.token, '/api/v1/stats', etagOf(before))).status, 200, 'a stored rate changes the tag');
  t.equal((await revalidate(owner.token, PARTIES, etagOf(await get(owner.token, PARTIES)))).status, 304, 'lists do not convert: theirs stays');
});

t.test('operations that are not conditional carry no tag', async (t) => {
  const rates = await get(owner.token, '/api/v1/exchange-rates');
  t.equal(rates.headers.etag, undefined, 'global data: no tag');
  const created = await api.request('POST', '/api/v1/groups', { token: owner.token, body: { name: 'Trips' } });
  t.equal(created.headers.etag, undefined, 'writes: no tag');
});

t.test('the versions: once per transaction, not for reads, none for a deleted account', async (t) => {
  const version = async (userId: number) => (await api.db.selectFrom('user_versions').select('version').where('user_id', '=', userId).executeTakeFirst())?.version;
  const start = await version(owner.user.id);
  await api.db.transaction().execute(async (trx) => {
    await trx.insertInto('parties').values(Array.from({ length: 50 }, (_, i) => ({ user_id: owner.user.id, name: `Bulk ${i}` }))).execute();
    await trx.updateTable('parties').set({ description: 'bulk' }).where('user_id', '=', owner.user.id).execute();
  });
  t.equal(await version(owner.user.id), start! + 1, 'one transaction of 100 row changes: one bump');
  await get(owner.token, SYNC_PAGE);
  await get(owner.token, `${SYNC_PAGE}&page=2`);
  t.equal(await version(owner.user.id), start! + 1, 'reading sync pages (which write page marks) bumps nothing');

  const leaving = await api.newUser();
  await api.request('POST', '/api/v1/parties', { token: leaving.token, body: { name: 'Gone soon' } });
  const deleted = await api.request('DELETE', '/api/v1/account', { token: leaving.token, body: { confirm_delete: true } });
  t.equal(deleted.status, 200, 'the account and its rows are deleted in one transaction');
  t.equal(await version(leaving.user.id), undefined, 'with its version');
});

t.test('a sync page held back by an open write is not tagged, so it never hides the row', { skip: !process.env.DATABASE_URL && 'the embedded database runs one transaction at a time' }, async (t) => {
  const user = await api.newUser();
  const someoneElse = await api.newUser();
  const open = await openPartyWrite(t, api.connectionString, someoneElse.user.id, 'Elsewhere');
  // committed after the open write began: stamped past the horizon, held back until it ends
  await api.request('POST', '/api/v1/parties', { token: user.token, body: { name: 'Mine' } });
  const feed = '/api/v1/parties?synced_since=2000-01-01T00:00:00Z';
  const during = await get(user.token, feed);
  t.notOk(during.body.data.data.some((p: { name: string }) => p.name === 'Mine'), 'held back while the other write is open');
  t.equal(during.headers.etag, undefined, 'so the answer carries no tag');
  await open.commit();
  const after = await get(user.token, feed);
  t.ok(after.body.data.data.some((p: { name: string }) => p.name === 'Mine'), 'shown once it ended');
  t.ok(etagOf(after), 'and tagged again');
});

t.test('a late commit is never hidden behind a tag read while it was open', { skip: !process.env.DATABASE_URL && 'the embedded database runs one transaction at a time' }, async (t) => {
  const user = await api.newUser();
  const slow = await openPartyWrite(t, api.connectionString, user.user.id, 'Slow');
  const urls = ['/api/v1/parties', '/api/v1/parties?synced_since=2000-01-01T00:00:00Z'];
  const during = await Promise.all(urls.map((url) => get(user.token, url)));
  for (const res of during) t.ok(etagOf(res), 'tagged while the write is open');
  await slow.commit();
  for (const [i, url] of urls.entries()) {
    const res = await revalidate(user.token, url, etagOf(during[i]));
    t.equal(res.status, 200, `${url}: the commit changed the tag`);
    t.ok(res.body.data.data.some((p: { name: string }) => p.name === 'Slow'), `${url}: with the row`);
  }
});
