// Sync feeds that never lose a row: page marks against shifting offsets, the horizon against
// writes that commit out of order, no watermark in the future, the exact cursor, and creates
// that stay idempotent when identical ones arrive at once.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { openPartyWrite } from './helpers/open-write.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';

const api = await startApp(t);
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

interface Row {
  id: number;
  name?: string;
  deleted_at: string | null;
  last_synced_at: string;
}

/** Pages a synced_since feed as the mobile app does: while current_page < last_page. */
async function pull(token: string, list: string, since: string, between?: (page: number) => Promise<void>) {
  const rows: Row[] = [];
  let page = 1;
  let lastPage = 1;
  do {
    const res = await api.request('GET', `/api/v1/${list}?synced_since=${encodeURIComponent(since)}&limit=20&page=${page}`, { token });
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    rows.push(...res.body.data.data);
    lastPage = res.body.data.last_page;
    await between?.(page);
    page++;
  } while (page <= lastPage);
  const watermark = rows.map((r) => r.last_synced_at).sort().at(-1) ?? since;
  return { rows, watermark };
}

/** Applies pulled rows to a device's copy: upsert, tombstones remove. */
function apply(local: Map<number, Row>, rows: Row[]) {
  for (const row of rows) {
    if (row.deleted_at) local.delete(row.id);
    else local.set(row.id, row);
  }
}

async function liveParties(userId: number) {
  const rows = await api.db.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => [Number(r.id), r.name]);
}

t.test('edits and deletes while a device pages a feed shift no row past it', async (t) => {
  const user = await api.newUser();
  const made = await api.db
    .insertInto('parties')
    .values(Array.from({ length: 120 }, (_, i) => ({ user_id: user.user.id, name: `Party ${i}` })))
    .returning('id')
    .execute();
  const ids = made.map((r) => Number(r.id));
  const local = new Map<number, Row>();
  const first = await pull(user.token, 'parties', '2000-01-01T00:00:00Z', async (page) => {
    if (page !== 2) return;
    // another device renames two rows and deletes one that this device already received
    for (const id of [ids[3], ids[10]]) {
      t.equal((await api.request('PUT', `/api/v1/parties/${id}`, { token: user.token, body: { name: `Renamed ${id}` } })).status, 200);
    }
    t.equal((await api.request('DELETE', `/api/v1/parties/${ids[5]}`, { token: user.token })).status, 200);
  });
  apply(local, first.rows);
  const second = await pull(user.token, 'parties', first.watermark);
  apply(local, second.rows);
  t.same([...local.values()].map((r) => [r.id, r.name]).sort((a, b) => Number(a[0]) - Number(b[0])), await liveParties(user.user.id), 'the device holds exactly the server state');
  t.notOk(local.has(ids[5]!), 'the deletion arrived as a tombstone');
});

t.test('a write that commits late is never passed by a watermark (lock waits, slow requests)', { skip: !process.env.DATABASE_URL && 'the embedded database runs one transaction at a time' }, async (t) => {
  const user = await api.newUser();
  const slow = await openPartyWrite(t, api.connectionString, user.user.id, 'Slow');
  // the slow write is stamped now; this one commits first with a later stamp
  const fast = await api.request('POST', '/api/v1/parties', { token: user.token, body: { name: 'Fast' } });
  t.equal(fast.status, 201);
  const during = await pull(user.token, 'parties', '2000-01-01T00:00:00Z');
  t.notOk(
    during.rows.some((r) => r.name === 'Fast'),
    'a row stamped after an open write is held back until that write ends',
  );
  await slow.commit();
  const after = await pull(user.token, 'parties', during.watermark);
  t.same(after.rows.map((r) => r.name).filter((n) => n === 'Slow' || n === 'Fast').sort(), ['Fast', 'Slow'], 'both arrive on the next pull');
});

t.test('a synced_since in the future reads as now and is never echoed back', async (t) => {
  const user = await api.newUser();
  for (const since of ['9999-12-31T00:00:00Z', new Date(Date.now() + 3600_000).toISOString()]) {
    const res = await api.request('GET', `/api/v1/groups?synced_since=${encodeURIComponent(since)}`, { token: user.token });
    t.equal(res.status, 200);
    t.same(res.body.data.data, []);
    t.ok(Date.parse(res.body.data.last_sync) <= Date.now(), `last_sync is not ${since}`);
    const created = await api.request('POST', '/api/v1/groups', { token: user.token, body: { name: `After ${since}` } });
    const next = await api.request('GET', `/api/v1/groups?synced_since=${encodeURIComponent(res.body.data.last_sync)}`, { token: user.token });
    t.ok(next.body.data.data.some((g: Row) => g.id === created.body.data.id), 'a change made afterwards is in the next pull');
  }
});

t.test('the exact cursor: continues after each page, re-sends nothing, carries tombstones', async (t) => {
  const user = await api.newUser();
  for (let i = 0; i < 25; i++) await api.request('POST', '/api/v1/parties', { token: user.token, body: { name: `P${i}` } });
  const seen: Row[] = [];
  let cursor = '';
  for (;;) {
    const res = await api.request('GET', `/api/v1/parties?limit=10${cursor ? `&cursor=${cursor}` : '&synced_since=2000-01-01T00:00:00Z'}`, { token: user.token });
    t.equal(res.status, 200);
    seen.push(...res.body.data.data);
    cursor = res.body.data.next_cursor;
    t.match(cursor, /^\d+\.\d+$/);
    if (res.body.data.data.length < 10) break;
  }
  t.equal(new Set(seen.map((r) => r.id)).size, seen.length, 'no row twice');
  const deleted = seen.find((r) => r.name === 'P3')!;
  await api.request('DELETE', `/api/v1/parties/${deleted.id}`, { token: user.token });
  const tail = await api.request('GET', `/api/v1/parties?cursor=${cursor}`, { token: user.token });
  t.same(tail.body.data.data.map((r: Row) => [r.id, r.deleted_at !== null]), [[deleted.id, true]], 'only the change since, as a tombstone');
  const bad = await api.request('GET', '/api/v1/parties?cursor=yesterday', { token: user.token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.cursor);
});

t.test('rows never show updated_at before created_at', async (t) => {
  const user = await api.newUser();
  const wallet = await api.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'Cash', type: 'cash', currency: 'EUR', balance: 100 } });
  const tx = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 5, wallet_id: wallet.body.data.id } });
  t.equal(tx.status, 201);
  for (const row of [wallet.body.data, tx.body.data]) t.ok(row.updated_at >= row.created_at, `${row.updated_at} >= ${row.created_at}`);
});

t.test('an update validates only what it changes: the amount of an entry in a deleted wallet', async (t) => {
  const user = await api.newUser();
  const wallet = await api.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'Old card', type: 'cash', currency: 'EUR', balance: 100 } });
  const tx = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 5, wallet_id: wallet.body.data.id } });
  await api.request('DELETE', `/api/v1/wallets/${wallet.body.data.id}`, { token: user.token });
  const edit = await api.request('PUT', `/api/v1/transactions/${tx.body.data.id}?type=expense`, { token: user.token, body: { amount: 7, updated_at: new Date().toISOString() } });
  t.equal(edit.status, 200, JSON.stringify(edit.body));
  t.equal(edit.body.data.amount, 7);
  const other = await api.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'New', type: 'cash', currency: 'EUR', balance: 100 } });
  const tx2 = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 5, wallet_id: other.body.data.id } });
  const moveIn = await api.request('PUT', `/api/v1/transactions/${tx2.body.data.id}?type=expense`, { token: user.token, body: { amount: 5, wallet_id: wallet.body.data.id, updated_at: new Date().toISOString() } });
  t.equal(moveIn.status, 422, 'moving an entry into a deleted wallet is still refused');
  t.ok(moveIn.body.errors.wallet_id);
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});

t.test('five identical creates at once make one record, for every synced resource', async (t) => {
  const user = await api.newUser();
  const token = user.token;
  const wallet = (await api.request('POST', '/api/v1/wallets', { token, body: { name: 'Main', type: 'cash', currency: 'EUR', balance: 1000 } })).body.data.id;
  const savings = (await api.request('POST', '/api/v1/wallets', { token, body: { name: 'Savings', type: 'cash', currency: 'EUR', balance: 0 } })).body.data.id;
  const income = (await api.request('POST', '/api/v1/transactions', { token, body: { type: 'income', amount: 20, wallet_id: wallet } })).body.data.id;
  const creates: Array<[string, string, string, Record<string, unknown>]> = [
    ['wallets', 'wallets', '/api/v1/wallets', { name: 'Same', type: 'cash', currency: 'EUR', balance: 5 }],
    ['groups', 'groups', '/api/v1/groups', { name: 'Same' }],
    ['parties', 'parties', '/api/v1/parties', { name: 'Same' }],
    ['categories', 'categories', '/api/v1/categories', { name: 'Same', type: 'expense' }],
    ['transactions', 'transactions', '/api/v1/transactions', { type: 'expense', amount: 3, wallet_id: wallet }],
    ['transfers', 'transfers', '/api/v1/transfer', { amount: 4, from_wallet_id: wallet, to_wallet_id: savings }],
    ['budgets', 'budgets', '/api/v1/budgets', { name: 'Same', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01' }],
    ['reminders', 'reminders', '/api/v1/reminders', { title: 'Same' }],
    ['configurations', 'configurations', '/api/v1/configurations', { key: 'theme', type: 'string', value: 'dark' }],
    ['refunds', 'refunds', `/api/v1/transactions/${income}/refund`, {}],
  ];
  for (const [label, table, url, body] of creates) {
    const id = clientId();
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.request('POST', url, { token, body: { ...body, client_id: id } })));
    const statuses = answers.map((a) => a.status);
    t.ok(
      statuses.every((s) => s === 200 || s === 201),
      `${label}: every answer is a success (${statuses.join(', ')}) ${JSON.stringify(answers.find((a) => a.status >= 300)?.body ?? '')}`,
    );
    t.equal(new Set(answers.map((a) => a.body.data?.id)).size, 1, `${label}: all name one record`);
    const stored = await api.db
      .selectFrom(table as 'groups')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.user.id)
      .where('client_generated_id', '=', id.split(':')[1]!)
      .executeTakeFirstOrThrow();
    t.equal(Number(stored.n), 1, `${label}: one row`);
  }
  t.same(await walletsOffLedger(api.db, user.user.id), [], 'money moved once');
});
