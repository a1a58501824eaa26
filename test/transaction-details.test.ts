// What a page of transactions shows nested, read in one statement (db/transaction-details.ts):
// the records come out exactly as the per-kind queries it replaced read them (the reference
// below is that code), so the page's JSON is byte for byte what it was, for rows with every
// nested kind; the JSON's text columns match the catalog; and a page costs the statements the
// design promises (counted at the driver).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import t from 'tap';
import { withIcon } from '../db/icons.js';
import type { Database } from '../db/schema.js';
import { selectSynced } from '../db/sync.js';
import { loadTransactionDetails, NESTED_TABLES, type TransactionDetails } from '../db/transaction-details.js';
import { selectTransactions, type FileRow, type RecurringRuleRow, type TransactionRow } from '../db/transactions.js';
import { selectWallets } from '../db/wallets.js';
import { toTransactions } from '../handlers/views/transaction.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, PNG } from './helpers/transaction-fixtures.js';

/** The loader this replaced: one query per kind (main before this change), as the reference. */
async function perKindDetails(db: Kysely<Database>, userId: number, rows: TransactionRow[]): Promise<TransactionDetails> {
  const ids = rows.map((r) => r.id);
  const idsOf = (pick: (r: TransactionRow) => number | null) => [...new Set(rows.map(pick).filter((id): id is number => id !== null))];
  const walletIds = idsOf((r) => r.wallet_id);
  const partyIds = idsOf((r) => r.party_id);
  const groupIds = idsOf((r) => r.group_id);
  const transferIds = idsOf((r) => r.transfer_id);
  const none = Promise.resolve([]);
  const [wallets, parties, groups, categories, files, rules, transfers]: any[][] = await Promise.all([
    walletIds.length ? selectWallets(db, userId).where('wallets.id', 'in', walletIds).execute() : none,
    partyIds.length ? withIcon(selectSynced(db, 'parties', userId), 'parties').where('parties.id', 'in', partyIds).where('parties.deleted_at', 'is', null).execute() : none,
    groupIds.length ? withIcon(selectSynced(db, 'groups', userId), 'groups').where('groups.id', 'in', groupIds).where('groups.deleted_at', 'is', null).execute() : none,
    ids.length
      ? withIcon(selectSynced(db, 'categories', userId), 'categories')
          .innerJoin('transaction_categories as link', 'link.category_id', 'categories.id')
          .select('link.transaction_id as linked_transaction_id')
          .where('link.transaction_id', 'in', ids)
          .where('categories.deleted_at', 'is', null)
          .orderBy('categories.id')
          .execute()
      : none,
    ids.length ? db.selectFrom('files').selectAll().where('user_id', '=', userId).where('transaction_id', 'in', ids).orderBy('created_at').orderBy('id').execute() : none,
    ids.length ? db.selectFrom('recurring_rules').selectAll().where('user_id', '=', userId).where('transaction_id', 'in', ids).execute() : none,
    transferIds.length ? selectSynced(db, 'transfers', userId).where('transfers.id', 'in', transferIds).execute() : none,
  ]);
  const grouped = <T>(items: T[], key: (item: T) => number) => {
    const out = new Map<number, T[]>();
    for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
    return out;
  };
  return {
    wallets: new Map(wallets.map((w) => [w.id, w])),
    walletTotals: new Map(wallets.map((w) => [w.id, { total_income: String(w.income_total), total_expense: String(w.expense_total) }])),
    parties: new Map(parties.map((p) => [p.id, p])),
    groups: new Map(groups.map((g) => [g.id, g])),
    categories: grouped(
      categories.map(({ linked_transaction_id, ...category }) => ({ category, linked_transaction_id })),
      (c) => c.linked_transaction_id,
    ) as any,
    files: grouped(files as FileRow[], (f) => f.transaction_id!),
    rules: new Map((rules as RecurringRuleRow[]).map((r) => [r.transaction_id, r])),
    transfers: new Map(transfers.map((x) => [x.id, { client_generated_id: x.client_generated_id, device_token: x.device_token }])),
    // the loader it replaced knew no splits (046); none of these rows is split
    splits: new Map(),
  };
}

/** The reference's categories by transaction without the link column, as the new loader gives them. */
function withoutLinks(details: TransactionDetails): TransactionDetails {
  const categories = new Map([...details.categories].map(([id, list]) => [id, (list as any[]).map((entry) => entry.category)]));
  return { ...details, categories };
}

/** Statements sent to the database (either one: the embedded one is reached through pg too) while `run` runs. */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: any[]) {
    const text = typeof args[0] === 'string' ? args[0] : args[0]?.text;
    sent.push(String(text).replace(/\s+/g, ' ').slice(0, 70));
    return (original as any).apply(this, args);
  } as any;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = original;
  }
  return sent;
}

// Some tests count the statements that build a page: a kept answer (server/body-cache.ts) builds none.
const api = await startApp(t, { responseCacheBytes: 0 });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const device = randomUUID();
const post = async (path: string, body: Record<string, unknown>) => {
  const res = await api.request('POST', path, { token: owner.token, body });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as number;
};

// every nested kind: a EUR wallet with an icon and a client id, a wallet deleted after use,
// a party, a group, three categories (one deleted after linking), files, a recurring rule,
// transfer legs (with and without a client id), a tombstone
const euros = await post('/api/v1/wallets', { name: 'Euros', type: 'bank', currency: 'EUR', balance: 5000, icon: '💶', icon_type: 'emoji', client_id: `${device}:${randomUUID()}` });
const closed = await post('/api/v1/wallets', { name: 'Closed', type: 'cash', currency: 'USD', balance: 50 });
const [food, rent, gone] = [await fx.category(owner.user.id), await fx.category(owner.user.id), await fx.category(owner.user.id)];
const party = await fx.party(owner.user.id);
const group = await fx.group(owner.user.id);
const full = await post('/api/v1/transactions', {
  client_id: `${device}:${randomUUID()}`,
  wallet_id: euros,
  type: 'expense',
  amount: 1234.5678,
  description: 'Every nested kind',
  party_id: party,
  group_id: group,
  categories: [rent, food, gone],
  is_recurring: true,
  recurrence_period: 'monthly',
  recurrence_interval: 2,
});
for (let i = 0; i < 2; i++) {
  const upload = await api.request('POST', `/api/v1/transactions/${full}/files`, { token: owner.token, body: { files: [`data:image/png;base64,${PNG.toString('base64')}`] } });
  if (upload.status !== 200) throw new Error(`upload: ${upload.status}`);
}
const inClosed = await post('/api/v1/transactions', { wallet_id: closed, type: 'income', amount: 0.0001, categories: [gone], party_id: party });
await post('/api/v1/transactions', { wallet_id: euros, type: 'income', amount: 99999.9999, description: null, categories: [food] });
const tombstone = await post('/api/v1/transactions', { wallet_id: euros, type: 'expense', amount: 2 });
await post('/api/v1/transfers', { amount: 12.3456, exchange_rate: 1.083765, from_wallet_id: euros, to_wallet_id: closed, client_id: `${device}:${randomUUID()}` });
await fx.transfer(owner.user.id, closed, euros, '0.0005');
for (const [path, id] of [['transactions', tombstone], ['categories', gone], ['wallets', closed]] as const) {
  const res = await api.request('DELETE', `/api/v1/${path}/${id}`, { token: owner.token });
  if (res.status !== 200) throw new Error(`delete ${path}: ${res.status} ${JSON.stringify(res.body)}`);
}
// exact decimals a float cannot hold, and time stamps in microseconds (the database's own now())
await sql`update wallets set balance = '123456789012345.6789', opening_balance = '0.0001', income_total = '98765432109876.5432' where id = ${euros}`.execute(api.db);
await sql`update categories set created_at = '2025-01-02 03:04:05.678901+00', updated_at = '2025-06-07 08:09:10.999999+00' where id = ${food}`.execute(api.db);
await sql`update files set created_at = created_at + interval '0.000123 seconds' where transaction_id = ${full}`.execute(api.db);
await sql`update recurring_rules set next_scheduled_at = '2031-12-31 23:59:59.999500+00', recurrence_ends_at = '2032-02-29 12:00:00.000001+00' where transaction_id = ${full}`.execute(api.db);
await sql`update parties set last_synced_at = '1969-07-20 20:17:40.123456+00' where id = ${party}`.execute(api.db);

const publicUrl = api.config.publicUrl;
const listOrder = (q: ReturnType<typeof selectTransactions>) =>
  q.where('transactions.deleted_at', 'is', null).orderBy('transactions.datetime', 'desc').orderBy('transactions.created_at', 'desc').orderBy('transactions.id', 'desc');

t.test('the one statement reads every nested record as the per-kind queries did', async (t) => {
  const rows = await selectTransactions(api.db, owner.user.id).orderBy('id').execute();
  t.equal(rows.length, 8, 'four entries, a tombstone, two transfers of two legs');
  const details = await loadTransactionDetails(api.db, owner.user.id, rows);
  const reference = withoutLinks(await perKindDetails(api.db, owner.user.id, rows));
  t.strictSame(details, reference);
  t.strictSame(details.categories.get(full)?.map((c) => c.id), [food, rent].sort((a, b) => a - b), 'the deleted category is left out, the others by id');
  t.ok(details.wallets.get(closed)?.deleted_at instanceof Date, 'a deleted wallet is still shown');
  t.equal(details.wallets.get(euros)?.balance, '123456789012345.6789', 'numeric as exact text');
  t.equal(details.categories.get(full)?.find((c) => c.id === food)?.created_at.toISOString(), '2025-01-02T03:04:05.678Z');
  t.equal(details.files.get(full)?.length, 2);
  t.ok(details.rules.get(full));
  t.equal(details.transfers.size, 2);
  t.equal(JSON.stringify(toTransactions(rows, details, publicUrl)), JSON.stringify(toTransactions(rows, reference, publicUrl)));
  t.strictSame(await loadTransactionDetails(api.db, owner.user.id, []), await perKindDetails(api.db, owner.user.id, []), 'no rows, no records');
  const [single] = await selectTransactions(api.db, owner.user.id).where('transactions.id', '=', inClosed).execute();
  t.strictSame(await loadTransactionDetails(api.db, owner.user.id, [single]), withoutLinks(await perKindDetails(api.db, owner.user.id, [single])), 'a single row (no group, no transfer)');
});

t.test('the page and the sync feed send the bytes the per-kind queries made', async (t) => {
  const headers = { authorization: `Bearer ${owner.token}` };
  const plain = await api.app.inject({ method: 'GET', url: '/api/v1/transactions?limit=100', headers });
  t.equal(plain.statusCode, 200);
  const listed = await listOrder(selectTransactions(api.db, owner.user.id)).execute();
  const expected = JSON.stringify(toTransactions(listed, withoutLinks(await perKindDetails(api.db, owner.user.id, listed)), publicUrl));
  t.ok(plain.body.includes(`"data":${expected}`), 'the plain page');
  t.equal(JSON.parse(plain.body).data.data.length, 7);

  const feed = await api.app.inject({ method: 'GET', url: `/api/v1/transactions?limit=100&synced_since=${encodeURIComponent('2020-01-01T00:00:00Z')}`, headers });
  t.equal(feed.statusCode, 200);
  const changed = await selectTransactions(api.db, owner.user.id).orderBy('transactions.last_synced_at').orderBy('transactions.id').execute();
  const expectedFeed = JSON.stringify(toTransactions(changed, withoutLinks(await perKindDetails(api.db, owner.user.id, changed)), publicUrl));
  t.ok(feed.body.includes(`"data":${expectedFeed}`), 'the sync page, tombstone included');
});

t.test("each nested table's numeric and time stamp columns travel as text", async (t) => {
  const { rows } = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select table_name, column_name, data_type from information_schema.columns
     where table_schema = current_schema() and table_name = any(${Object.keys(NESTED_TABLES)}::text[])
       and data_type not in ('bigint', 'integer', 'smallint', 'text', 'boolean', 'jsonb', 'uuid', 'character varying', 'character')`.execute(api.db);
  for (const [table, columns] of Object.entries(NESTED_TABLES)) {
    const of = (type: string) => rows.filter((r) => r.table_name === table && r.data_type === type).map((r) => r.column_name).sort();
    t.strictSame(of('numeric'), [...columns.numeric].sort(), `${table}: numeric`);
    t.strictSame(of('timestamp with time zone'), [...columns.timestamps].sort(), `${table}: timestamptz`);
    t.strictSame(rows.filter((r) => r.table_name === table && !['numeric', 'timestamp with time zone'].includes(r.data_type)), [], `${table}: no other type`);
  }
});

t.test('statements per page: a first page in 5, a sync page in 6, a date window in 6 (the horizon beside the totals)', async (t) => {
  const get = async (url: string) => {
    const res = await api.request('GET', url, { token: owner.token });
    t.equal(res.status, 200);
    return res.body.data;
  };
  await get('/api/v1/transactions?limit=100'); // the token's first use is written once
  const first = await statementsOf(() => get('/api/v1/transactions?limit=100'));
  t.equal(first.length, 5, `the token, the horizon, the totals, the rows, the nested records:\n${first.join('\n')}`);
  const started = await get(`/api/v1/transactions?limit=3&synced_since=${encodeURIComponent('2020-01-01T00:00:00Z')}`);
  const next = await statementsOf(() => get(`/api/v1/transactions?limit=3&cursor=${started.next_cursor}`));
  t.equal(next.length, 6, `the token, the horizon, the totals, the rows, the count, the nested records:\n${next.join('\n')}`);
  const windowed = await statementsOf(() => get('/api/v1/transactions?limit=100&date_from=2020-01-01'));
  t.equal(windowed.length, 6, `the token, the horizon, the time zone, the window's totals, the rows, the nested records:\n${windowed.join('\n')}`);
  // a synced_since page writes its mark in the statement that counts what follows it
  const since = `/api/v1/transactions?limit=3&synced_since=${encodeURIComponent('2020-01-01T00:00:00Z')}`;
  const paged = await statementsOf(() => get(since));
  t.equal(paged.length, 6, `the token, the horizon, the totals, the rows, the count with the page mark, the nested records:\n${paged.join('\n')}`);
  t.ok(paged.some((text) => /^with "saved_mark" as \(insert into "sync_page_marks"/.test(text)), `the mark is written with the count:\n${paged.join('\n')}`);
});
