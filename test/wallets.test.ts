// Wallets over HTTP: opening balances kept exactly, stats summed from live transactions,
// the balance fixed against PUT, the currency changed only while nothing is recorded, soft delete. The sync flow they share with every
// synced resource is covered by groups.test.ts.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

type Body = Record<string, unknown>;

async function createWallet(body: Body, token = owner.token) {
  const res = await api.request('POST', '/api/v1/wallets', { token, body: { name: 'Wallet', type: 'bank', currency: 'EUR', ...body } });
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function countWallets(userId: number) {
  const row = await api.db.selectFrom('wallets').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function storedBalances(id: number) {
  return api.db.selectFrom('wallets').select(['opening_balance', 'balance']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function addTransaction(userId: number, walletId: number, type: 'income' | 'expense', amount: string, extra: Body = {}) {
  await api.db.insertInto('transactions').values({ user_id: userId, wallet_id: walletId, type, amount, ...extra }).execute();
}

t.test('create and show: the opening balance is the balance, stats start at zero', async (t) => {
  const id = clientId();
  const res = await api.request('POST', '/api/v1/wallets', {
    token: owner.token,
    body: { name: 'Savings', type: 'bank', currency: 'EUR', description: 'Rainy days', balance: 1250.5, icon: '💰', icon_type: 'emoji', client_id: id, created_at: '2026-01-02T03:04:05Z' },
  });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Wallet created successfully');
  t.match(res.body.data, { name: 'Savings', type: 'bank', currency: 'EUR', description: 'Rainy days', balance: 1250.5, client_generated_id: id, user_id: owner.user.id, deleted_at: null });
  t.same(res.body.data.stats, { total_income: 0, total_expense: 0 });
  t.match(res.body.data.icon, { type: 'emoji', content: '💰' });
  t.equal(res.body.data.created_at, '2026-01-02T03:04:05.000Z');
  t.equal(res.body.data.sync_state.syncable_type, 'wallet');
  t.same(await storedBalances(res.body.data.id), { opening_balance: '1250.5000', balance: '1250.5000' });

  const shown = await api.request('GET', `/api/v1/wallets/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);

  const plain = await createWallet({ name: 'No balance given' });
  t.equal(plain.balance, 0, 'the opening balance defaults to 0');
  t.equal(plain.description, null);
  t.equal(plain.icon, null);

  // the reference's `slug`, unique per user (a second "Savings", in another currency, gets -2)
  t.equal(res.body.data.slug, 'savings');
  t.equal(plain.slug, 'no-balance-given');
  t.equal((await createWallet({ name: 'Savings', currency: 'USD' })).slug, 'savings-2');
});

t.test('opening balances are exact decimals with at most 4 places', async (t) => {
  for (const [sent, stored, shown] of [
    [0.1, '0.1000', 0.1],
    [0.2, '0.2000', 0.2],
    [1234.5678, '1234.5678', 1234.5678],
    [-25.75, '-25.7500', -25.75],
    [12345678901.1234, '12345678901.1234', 12345678901.1234],
    [999999999999999.9, '999999999999999.9000', 999999999999999.9],
  ] as const) {
    const wallet = await createWallet({ balance: sent });
    t.equal(wallet.balance, shown, `${sent} shown`);
    t.equal((await storedBalances(wallet.id)).balance, stored, `${sent} stored exactly`);
  }

  const before = await countWallets(owner.user.id);
  for (const balance of [1.23456, 0.30000000000000004, 1e-5, 1e15, -1e16]) {
    const res = await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Too precise', type: 'bank', currency: 'EUR', balance } });
    t.equal(res.status, 422, `${balance} refused`);
    t.ok(res.body.errors.balance, `errors.balance for ${balance}`);
  }
  t.equal(await countWallets(owner.user.id), before, 'nothing written');
});

t.test('a repeated client_id returns the existing wallet; names never deduplicate', async (t) => {
  const id = clientId();
  const first = await createWallet({ name: 'Travel', balance: 10, client_id: id });
  const before = await countWallets(owner.user.id);
  const again = await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Travel', type: 'cash', currency: 'USD', balance: 99, client_id: id } });
  t.equal(again.status, 200);
  t.match(again.body.data, { id: first.id, type: 'bank', currency: 'EUR', balance: 10 }, 'unchanged');
  t.equal(await countWallets(owner.user.id), before);

  const twin = await createWallet({ name: 'Travel', balance: 10 });
  t.not(twin.id, first.id, 'same name and currency without a client id is a second wallet');
  const slugs = await api.db.selectFrom('wallets').select('slug').where('id', 'in', [first.id, twin.id]).orderBy('id').execute();
  t.same(slugs.map((r) => r.slug), ['travel', 'travel-2']);
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const before = await countWallets(owner.user.id);
  const valid = { name: 'ok', type: 'bank', currency: 'EUR' };
  const cases: Array<[Body, string]> = [
    [{ type: 'bank', currency: 'EUR' }, 'name'],
    [{ ...valid, name: '' }, 'name'],
    [{ ...valid, name: 'x'.repeat(256) }, 'name'],
    [{ name: 'ok', currency: 'EUR' }, 'type'],
    [{ ...valid, type: 'savings' }, 'type'],
    [{ name: 'ok', type: 'bank' }, 'currency'],
    [{ ...valid, currency: 'eur' }, 'currency'],
    [{ ...valid, currency: 'EURO' }, 'currency'],
    [{ ...valid, balance: '12.50' }, 'balance'],
    [{ ...valid, client_id: 'not-a-client-id' }, 'client_id'],
    [{ ...valid, icon: '💰' }, 'icon_type'],
    [{ ...valid, icon: 'x', icon_type: 'sticker' }, 'icon_type'],
    [{ ...valid, created_at: 'yesterday' }, 'created_at'],
  ];
  for (const [body, field] of cases) {
    const res = await api.request('POST', '/api/v1/wallets', { token: owner.token, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.equal(await countWallets(owner.user.id), before);
});

t.test("another user's wallet is 404, as are unknown and non-numeric ids", async (t) => {
  const mine = await createWallet({ name: 'Private', balance: 5 });
  for (const [method, body] of [['GET'], ['PUT', { name: 'Taken over' }], ['DELETE']] as const) {
    const res = await api.request(method, `/api/v1/wallets/${mine.id}`, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Wallet not found.');
  }
  t.equal((await api.request('GET', '/api/v1/wallets/999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', '/api/v1/wallets/abc', { token: owner.token })).status, 404);
  const still = await api.request('GET', `/api/v1/wallets/${mine.id}`, { token: owner.token });
  t.match(still.body.data, { name: 'Private', deleted_at: null }, 'unchanged');
});

t.test('update: name, type, description, icon, currency of an empty wallet; the balance is ignored', async (t) => {
  const wallet = await createWallet({ name: 'Card', type: 'credit_card', currency: 'EUR', balance: -300.25, description: 'Visa' });
  const url = `/api/v1/wallets/${wallet.id}`;
  const res = await api.request('PUT', url, {
    token: owner.token,
    body: { name: 'Old card', type: 'bank', description: null, icon: 'card', icon_type: 'icon', balance: 1_000_000, currency: 'USD' },
  });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Wallet updated successfully');
  t.match(res.body.data, { name: 'Old card', type: 'bank', description: null, currency: 'USD', balance: -300.25 });
  t.match(res.body.data.icon, { type: 'icon', content: 'card' });
  t.same(await storedBalances(wallet.id), { opening_balance: '-300.2500', balance: '-300.2500' }, 'the balance is never set directly');

  const bad = await api.request('PUT', url, { token: owner.token, body: { name: '', type: 'savings' } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.name);
  t.ok(bad.body.errors.type);
  const early = await api.request('PUT', url, { token: owner.token, body: { name: 'Time travel', updated_at: '2000-01-01T00:00:00Z' } });
  t.equal(early.status, 422);
  t.ok(early.body.errors.updated_at);
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.name, 'Old card', 'nothing changed');

  const adopted = clientId();
  const adopt = await api.request('PUT', url, { token: owner.token, body: { client_id: adopted } });
  t.equal(adopt.body.data.client_generated_id, adopted, 'a body with only client_id adopts it');
  const replace = await api.request('PUT', url, { token: owner.token, body: { client_id: clientId(), name: 'Renamed' } });
  t.match(replace.body.data, { client_generated_id: adopted, name: 'Renamed' }, 'an existing client id is never replaced');

  const spent = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'income', amount: 1, wallet_id: wallet.id } });
  t.equal(spent.status, 201);
  const recorded = await api.request('PUT', url, { token: owner.token, body: { currency: 'EUR' } });
  t.equal(recorded.status, 422, 'once a transaction is recorded the currency is fixed');
  t.ok(recorded.body.errors.currency);
  t.equal((await api.request('PUT', url, { token: owner.token, body: { currency: 'USD', name: 'Same' } })).status, 200, 'the same currency is accepted');
});

t.test('currency: the web onboarding sets it on the new wallet; a wallet with transactions keeps its own', async (t) => {
  const user = await api.newUser();
  const main = (await api.request('GET', '/api/v1/wallets', { token: user.token })).body.data.data[0];
  const url = `/api/v1/wallets/${main.id}`;
  t.equal(main.currency, 'USD');
  const onboarded = await api.request('PUT', url, { token: user.token, body: { currency: 'EUR' } });
  t.equal(onboarded.status, 200);
  t.equal(onboarded.body.data.currency, 'EUR');

  const income = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { amount: 5, type: 'income', wallet_id: main.id } });
  t.equal(income.status, 201);
  const refused = await api.request('PUT', url, { token: user.token, body: { currency: 'GBP', name: 'Renamed' } });
  t.equal(refused.status, 422);
  t.same(Object.keys(refused.body.errors), ['currency']);
  t.match((await api.request('GET', url, { token: user.token })).body.data, { currency: 'EUR', name: main.name }, 'nothing written');
  // what the mobile app sends with every edit: its own currency and local balance
  const edit = await api.request('PUT', url, { token: user.token, body: { currency: 'EUR', balance: 999, name: 'Daily' } });
  t.equal(edit.status, 200);
  t.match(edit.body.data, { currency: 'EUR', balance: 5, name: 'Daily' });
});

t.test('stats: income and expense of live transactions, transfer legs included', async (t) => {
  const user = await api.newUser();
  const uid = user.user.id;
  const wallets = await api.request('GET', '/api/v1/wallets', { token: user.token });
  const main = wallets.body.data.data[0];
  const savings = await createWallet({ name: 'Savings', currency: 'USD', balance: 100 }, user.token);
  const empty = await createWallet({ name: 'Empty', currency: 'USD' }, user.token);

  await addTransaction(uid, main.id, 'income', '0.1');
  await addTransaction(uid, main.id, 'income', '0.2');
  await addTransaction(uid, main.id, 'income', '1000.0001');
  await addTransaction(uid, main.id, 'expense', '19.99');
  await addTransaction(uid, main.id, 'expense', '500', { deleted_at: new Date() }); // deleted: not counted
  await addTransaction(uid, savings.id, 'income', '42.4242');
  const transfer = await api.db
    .insertInto('transfers')
    .values({ user_id: uid, from_wallet_id: main.id, to_wallet_id: savings.id, amount: '250.5', received_amount: '250.5' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await addTransaction(uid, main.id, 'expense', '250.5', { transfer_id: transfer.id });
  await addTransaction(uid, savings.id, 'income', '250.5', { transfer_id: transfer.id });
  await addTransaction(owner.user.id, (await createWallet({ name: 'Elsewhere' })).id, 'income', '7'); // another user's

  const shown = await api.request('GET', `/api/v1/wallets/${main.id}`, { token: user.token });
  t.same(shown.body.data.stats, { total_income: 1000.3001, total_expense: 270.49 }, '0.1 + 0.2 + 1000.0001 exactly; the transfer out counts');

  const list = await api.request('GET', '/api/v1/wallets', { token: user.token });
  const stats = Object.fromEntries(list.body.data.data.map((w: { name: string; stats: unknown }) => [w.name, w.stats]));
  t.same(stats, {
    'Main Wallet': { total_income: 1000.3001, total_expense: 270.49 },
    Savings: { total_income: 292.9242, total_expense: 0 },
    Empty: { total_income: 0, total_expense: 0 },
  });
  t.equal(empty.stats.total_income, 0);

  const updated = await api.request('PUT', `/api/v1/wallets/${savings.id}`, { token: user.token, body: { name: 'Savings account' } });
  t.same(updated.body.data.stats, { total_income: 292.9242, total_expense: 0 }, 'update answers with stats too');
});

t.test('delete is soft: gone from lists, a tombstone in feeds, transactions and defaults kept', async (t) => {
  const user = await api.newUser();
  const since = new Date(Date.now() - 1000).toISOString();
  const main = (await api.request('GET', '/api/v1/wallets', { token: user.token })).body.data.data[0];
  await addTransaction(user.user.id, main.id, 'income', '12.34');
  const res = await api.request('DELETE', `/api/v1/wallets/${main.id}`, { token: user.token });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Wallet deleted successfully', data: null });
  t.equal((await api.request('GET', `/api/v1/wallets/${main.id}`, { token: user.token })).status, 404);
  t.equal((await api.request('PUT', `/api/v1/wallets/${main.id}`, { token: user.token, body: { name: 'Back?' } })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/wallets/${main.id}`, { token: user.token })).status, 404);

  const live = await api.request('GET', '/api/v1/wallets', { token: user.token });
  t.same(live.body.data.data, []);
  t.equal(live.body.data.total, 0);
  const feed = await api.request('GET', `/api/v1/wallets?synced_since=${encodeURIComponent(since)}`, { token: user.token });
  const tombstone = feed.body.data.data.find((w: { id: number }) => w.id === main.id);
  t.ok(tombstone?.deleted_at, 'the deleted wallet comes back with deleted_at');
  t.same(tombstone?.stats, { total_income: 12.34, total_expense: 0 });

  const kept = await api.db.selectFrom('transactions').select('deleted_at').where('wallet_id', '=', main.id).execute();
  t.same(kept, [{ deleted_at: null }], 'its transactions stay');
  const defaultWallet = await api.request('GET', '/api/v1/configurations/default-wallet', { token: user.token });
  t.equal(defaultWallet.body.data.value, main.client_generated_id, 'default-wallet is left as it is');
});

t.test('list: registration wallet, creation order, page counters', async (t) => {
  const user = await api.newUser();
  const first = await api.request('GET', '/api/v1/wallets', { token: user.token });
  t.equal(first.status, 200);
  t.equal(first.body.data.data.length, 1);
  t.match(first.body.data.data[0], { name: 'Main Wallet', type: 'cash', currency: 'USD', balance: 0, stats: { total_income: 0, total_expense: 0 } });
  t.ok(first.body.data.data[0].client_generated_id?.startsWith('00000000-0000-0000-0000-000000000000:'));

  for (const name of ['B', 'A', 'C']) await createWallet({ name }, user.token);
  const page = await api.request('GET', '/api/v1/wallets?limit=2&page=2', { token: user.token });
  t.match(page.body.data, { current_page: 2, per_page: 2, total: 4, last_page: 2 });
  t.same(page.body.data.data.map((w: { name: string }) => w.name), ['A', 'C'], 'creation order');
  const serverMade = await api.request('GET', '/api/v1/wallets?no_client_id=true', { token: user.token });
  t.same(serverMade.body.data.data.map((w: { name: string }) => w.name), ['B', 'A', 'C'], 'Main Wallet has a client id');
});

t.test('no token is 401 on every wallet operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/wallets'],
    ['POST', '/api/v1/wallets'],
    ['GET', '/api/v1/wallets/1'],
    ['PUT', '/api/v1/wallets/1'],
    ['DELETE', '/api/v1/wallets/1'],
  ]) {
    const body = method === 'POST' || method === 'PUT' ? { name: 'x', type: 'bank', currency: 'EUR' } : undefined;
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url}`);
  }
});
