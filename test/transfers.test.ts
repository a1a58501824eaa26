// Transfers over HTTP: the maths of received amounts, balances read back from the database as
// exact decimal strings, the ledger rules (wallets, rates, overdraft), legs and sync.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { WalletType } from '../db/schema.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

/** A wallet written straight into the database, with `balance` as its opening balance. */
async function wallet(userId: number, options: { currency?: string; balance?: string; type?: WalletType } = {}): Promise<number> {
  const balance = options.balance ?? '0';
  const row = await api.db
    .insertInto('wallets')
    .values({
      user_id: userId,
      name: 'Test wallet',
      slug: `test-${randomUUID()}`,
      type: options.type ?? 'bank',
      currency: options.currency ?? 'USD',
      opening_balance: balance,
      balance,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function balanceOf(walletId: number): Promise<string> {
  const row = await api.db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow();
  return row.balance;
}

/** Everything a refused write must leave as it was. */
async function snapshot(userId: number) {
  const count = async (table: 'transfers' | 'transactions') =>
    Number((await api.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);
  const wallets = await api.db.selectFrom('wallets').select(['id', 'balance']).where('user_id', '=', userId).orderBy('id').execute();
  return { wallets, transfers: await count('transfers'), transactions: await count('transactions') };
}

async function allowNegativeBalances(userId: number) {
  await api.db
    .insertInto('configurations')
    .values({ user_id: userId, key: 'wallets-allow-negative-balance', type: 'bool', value: JSON.stringify(true) })
    .execute();
}

const post = (token: string, body: Record<string, unknown>) => api.request('POST', '/api/v1/transfer', { token, body });
const legs = (transferId: number) => api.db.selectFrom('transactions').selectAll().where('transfer_id', '=', transferId).orderBy('type').execute();

t.test('a transfer between wallets of one currency', async (t) => {
  const from = await wallet(owner.user.id, { balance: '1000' });
  const to = await wallet(owner.user.id);
  const res = await post(owner.token, { amount: 100.5, from_wallet_id: from, to_wallet_id: to, exchange_rate: 0.5, datetime: '2026-03-04T05:06:07Z' });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Transfer created successfully');
  t.match(res.body.data, {
    amount: 100.5,
    exchange_rate: 1,
    received_amount: 100.5,
    from_wallet_id: from,
    to_wallet_id: to,
    datetime: '2026-03-04T05:06:07.000Z',
    user_id: owner.user.id,
    client_generated_id: null,
    expense_transaction_client_id: null,
    income_transaction_client_id: null,
    deleted_at: null,
  });
  t.equal(res.body.data.source_wallet.balance, 899.5);
  t.same(res.body.data.source_wallet.stats, { total_income: 0, total_expense: 100.5 });
  t.equal(res.body.data.destination_wallet.balance, 100.5);
  t.equal(await balanceOf(from), '899.5000');
  t.equal(await balanceOf(to), '100.5000');

  const [expense, income] = await legs(res.body.data.id);
  t.match(expense, { id: res.body.data.expense_transaction_id, type: 'expense', wallet_id: from, amount: '100.5000', description: 'Money transfer from USD wallet to USD wallet' });
  t.match(income, { id: res.body.data.income_transaction_id, type: 'income', wallet_id: to, amount: '100.5000' });
  t.equal(expense.datetime.toISOString(), '2026-03-04T05:06:07.000Z');

  const shown = await api.request('GET', `/api/v1/transfers/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);
});

t.test('the date: datetime, else created_at (the web client sends the picked day there), else now; at whole seconds', async (t) => {
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id);
  const datedBy = async (body: Record<string, unknown>) => {
    const res = await post(owner.token, { amount: 1, from_wallet_id: from, to_wallet_id: to, ...body });
    t.equal(res.status, 201);
    const stored = await api.db.selectFrom('transfers').select(['datetime', 'created_at']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    const legDates = (await legs(res.body.data.id)).map((leg) => leg.datetime.toISOString());
    return { datetime: stored.datetime.toISOString(), created_at: stored.created_at.toISOString(), legs: legDates };
  };
  t.same(await datedBy({ created_at: '2025-03-14T00:00:00.000Z' }), {
    datetime: '2025-03-14T00:00:00.000Z',
    created_at: '2025-03-14T00:00:00.000Z',
    legs: ['2025-03-14T00:00:00.000Z', '2025-03-14T00:00:00.000Z'],
  }, 'created_at alone dates the transfer and both legs');
  t.same(await datedBy({ datetime: '2025-04-01T10:00:00.750Z', created_at: '2025-03-14T08:00:00.000Z' }), {
    datetime: '2025-04-01T10:00:00.000Z',
    created_at: '2025-03-14T08:00:00.000Z',
    legs: ['2025-04-01T10:00:00.000Z', '2025-04-01T10:00:00.000Z'],
  }, 'datetime wins when both are sent');
  const before = Date.now() - 1000;
  const undated = await datedBy({});
  t.ok(Date.parse(undated.datetime) >= before && Date.parse(undated.datetime) <= Date.now(), 'neither: the time of the request');
  t.same(undated.legs, [undated.datetime, undated.datetime]);
});

t.test('between currencies: received = amount × rate, rounded half-even to 4 decimals', async (t) => {
  const cases: Array<[number, number, string]> = [
    [100.0, 0.8333, '83.3300'],
    [0.0125, 0.5, '0.0062'], // a tie rounds to even (half-up would give 0.0063)
    [0.0135, 0.5, '0.0068'], // a tie rounds to even (truncation would give 0.0067)
    [0.01, 0.015, '0.0002'],
    [50, 0.0005, '0.0250'],
    [1234.5678, 0.123457, '152.4160'],
    // exact 26855244876.9914500002: rounded once, not first to 20 significant digits
    [39472748364.4298, 0.680349, '26855244876.9915'],
  ];
  for (const [amount, rate, received] of cases) {
    const from = await wallet(owner.user.id, { type: 'credit_card' });
    const to = await wallet(owner.user.id, { currency: 'EUR' });
    const res = await post(owner.token, { amount, exchange_rate: rate, from_wallet_id: from, to_wallet_id: to });
    t.equal(res.status, 201, `${amount} × ${rate}`);
    t.equal(res.body.data.received_amount, Number(received), `${amount} × ${rate} → ${received}`);
    t.equal(res.body.data.exchange_rate, rate);
    t.equal(await balanceOf(to), received, 'the destination receives it exactly');
    t.equal(res.body.data.destination_wallet.balance, Number(received));
    const [expense, income] = await legs(res.body.data.id);
    t.equal(income.amount, received);
    t.equal(expense.description, 'Money transfer from USD wallet to EUR wallet');
  }
});

t.test('between currencies: a missing rate or nothing received is 422 and writes nothing', async (t) => {
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id, { currency: 'EUR' });
  const before = await snapshot(owner.user.id);
  for (const [body, field] of [
    [{ amount: 10 }, 'exchange_rate'],
    [{ amount: 0.01, exchange_rate: 0.005 }, 'exchange_rate'], // 0.00005 rounds (to even) to zero
    [{ amount: 0.01, exchange_rate: 0.004 }, 'exchange_rate'],
  ] as const) {
    const res = await post(owner.token, { ...body, from_wallet_id: from, to_wallet_id: to });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field}`);
  }
  t.same(await snapshot(owner.user.id), before);
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id);
  const theirs = await wallet(stranger.user.id, { balance: '100' });
  const deleted = await wallet(owner.user.id, { balance: '100' });
  await api.db.updateTable('wallets').set({ deleted_at: new Date() }).where('id', '=', deleted).execute();
  const ok = { amount: 10, from_wallet_id: from, to_wallet_id: to };
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ from_wallet_id: from, to_wallet_id: to }, 'amount'],
    [{ ...ok, amount: 0 }, 'amount'],
    [{ ...ok, amount: -5 }, 'amount'],
    [{ ...ok, amount: 1.00001 }, 'amount'],
    [{ ...ok, amount: 1e15 }, 'amount'],
    [{ ...ok, exchange_rate: 0 }, 'exchange_rate'],
    [{ ...ok, exchange_rate: 0.1234567 }, 'exchange_rate'],
    [{ ...ok, to_wallet_id: from }, 'to_wallet_id'],
    [{ ...ok, from_wallet_id: theirs }, 'from_wallet_id'],
    [{ ...ok, to_wallet_id: theirs }, 'to_wallet_id'],
    [{ ...ok, to_wallet_id: deleted }, 'to_wallet_id'],
    [{ ...ok, from_wallet_id: 999999 }, 'from_wallet_id'],
    [{ ...ok, from_wallet_id: 'one' }, 'from_wallet_id'],
    [{ ...ok, client_id: 'not-a-client-id' }, 'client_id'],
    [{ ...ok, expense_transaction_client_id: 'nope' }, 'expense_transaction_client_id'],
    [{ ...ok, datetime: 'yesterday' }, 'datetime'],
  ];
  const before = await snapshot(owner.user.id);
  const theirsBefore = await balanceOf(theirs);
  for (const [body, field] of cases) {
    const res = await post(owner.token, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.same(await snapshot(owner.user.id), before);
  t.equal(await balanceOf(theirs), theirsBefore, "another user's wallet is untouched");
});

t.test('overdraft: refused unless allowed; an equal balance and credit cards are fine', async (t) => {
  const user = await api.newUser();
  const from = await wallet(user.user.id, { balance: '50' });
  const to = await wallet(user.user.id);
  const before = await snapshot(user.user.id);
  const over = await post(user.token, { amount: 50.01, from_wallet_id: from, to_wallet_id: to });
  t.equal(over.status, 422);
  t.ok(over.body.errors.amount);
  t.same(await snapshot(user.user.id), before);

  t.equal((await post(user.token, { amount: 50, from_wallet_id: from, to_wallet_id: to })).status, 201, 'down to exactly zero');
  t.equal(await balanceOf(from), '0.0000');

  const card = await wallet(user.user.id, { type: 'credit_card' });
  t.equal((await post(user.token, { amount: 25.25, from_wallet_id: card, to_wallet_id: to })).status, 201, 'a credit card may go negative');
  t.equal(await balanceOf(card), '-25.2500');

  await allowNegativeBalances(user.user.id);
  t.equal((await post(user.token, { amount: 10, from_wallet_id: from, to_wallet_id: to })).status, 201, 'allowed by the configuration');
  t.equal(await balanceOf(from), '-10.0000');
  t.equal(await balanceOf(to), '85.2500');
});

t.test('client ids: a replay returns the transfer and changes nothing; leg client ids', async (t) => {
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id);
  const id = clientId();
  const first = await post(owner.token, { client_id: id, amount: 10, from_wallet_id: from, to_wallet_id: to });
  t.equal(first.status, 201);
  t.equal(first.body.data.client_generated_id, id);
  const [expenseId, incomeId] = [first.body.data.expense_transaction_client_id, first.body.data.income_transaction_client_id];
  t.equal(expenseId.split(':')[0], device, 'generated leg ids keep the device');
  t.equal(incomeId.split(':')[0], device);
  t.not(expenseId, incomeId);
  t.not(expenseId, id);

  const before = await snapshot(owner.user.id);
  const again = await post(owner.token, { client_id: id, amount: 99, from_wallet_id: from, to_wallet_id: to });
  t.equal(again.status, 200);
  t.equal(again.body.data.id, first.body.data.id);
  t.equal(again.body.data.amount, 10);
  t.same(await snapshot(owner.user.id), before, 'nothing written, balances unchanged');

  const raced = clientId();
  const racing = await Promise.all([1, 2, 3].map(() => post(owner.token, { client_id: raced, amount: 1, from_wallet_id: from, to_wallet_id: to })));
  t.same(racing.map((r) => r.status).sort(), [200, 200, 201]);
  t.equal(await balanceOf(from), '89.0000', 'simultaneous replays move money once');

  const expense = clientId();
  const income = clientId();
  const given = await post(owner.token, { amount: 1, from_wallet_id: from, to_wallet_id: to, expense_transaction_client_id: expense, income_transaction_client_id: income });
  t.equal(given.status, 201);
  t.equal(given.body.data.expense_transaction_client_id, expense);
  t.equal(given.body.data.income_transaction_client_id, income);
  const [expenseLeg, incomeLeg] = await legs(given.body.data.id);
  t.equal(expenseLeg.client_generated_id, expense.split(':')[1]);
  t.equal(incomeLeg.client_generated_id, income.split(':')[1]);

  const racedLeg = clientId();
  const legRace = await Promise.all([1, 2].map(() => post(owner.token, { amount: 1, from_wallet_id: from, to_wallet_id: to, income_transaction_client_id: racedLeg })));
  t.same(legRace.map((r) => r.status).sort(), [201, 422], 'one leg client id sent in two simultaneous transfers: the later is refused');
  t.ok(legRace.find((r) => r.status === 422)?.body.errors.income_transaction_client_id);

  const before2 = await snapshot(owner.user.id);
  const reused = await post(owner.token, { amount: 1, from_wallet_id: from, to_wallet_id: to, expense_transaction_client_id: expense });
  t.equal(reused.status, 422);
  t.ok(reused.body.errors.expense_transaction_client_id);
  const same = clientId();
  const twice = await post(owner.token, { amount: 1, from_wallet_id: from, to_wallet_id: to, expense_transaction_client_id: same, income_transaction_client_id: same });
  t.equal(twice.status, 422);
  t.ok(twice.body.errors.income_transaction_client_id);
  t.same(await snapshot(owner.user.id), before2);
});

t.test('update: both legs and both balances follow, in one transaction', async (t) => {
  const user = await api.newUser();
  const a = await wallet(user.user.id, { balance: '100' });
  const b = await wallet(user.user.id);
  const c = await wallet(user.user.id);
  const eur = await wallet(user.user.id, { currency: 'EUR' });
  const made = await post(user.token, { amount: 40, from_wallet_id: a, to_wallet_id: b });
  const url = `/api/v1/transfers/${made.body.data.id}`;
  const put = (body: Record<string, unknown>) => api.request('PUT', url, { token: user.token, body });

  const more = await put({ amount: 60.25 });
  t.equal(more.status, 200);
  t.equal(more.body.message, 'Transfer updated successfully');
  t.match(more.body.data, { amount: 60.25, received_amount: 60.25 });
  t.same([await balanceOf(a), await balanceOf(b)], ['39.7500', '60.2500']);

  const moved = await put({ to_wallet_id: c });
  t.same([await balanceOf(a), await balanceOf(b), await balanceOf(c)], ['39.7500', '0.0000', '60.2500'], 'the income moves to the new wallet');
  t.equal(moved.body.data.destination_wallet.id, c);
  const [expense, income] = await legs(made.body.data.id);
  t.match(income, { wallet_id: c, amount: '60.2500' });
  t.match(expense, { wallet_id: a, amount: '60.2500' });

  const before = await snapshot(user.user.id);
  const noRate = await put({ to_wallet_id: eur });
  t.equal(noRate.status, 422, 'a pair of currencies needs a rate');
  t.ok(noRate.body.errors.exchange_rate);
  const overdraft = await put({ amount: 100.01 });
  t.equal(overdraft.status, 422);
  t.ok(overdraft.body.errors.amount);
  const same = await put({ from_wallet_id: c });
  t.equal(same.status, 422);
  t.ok(same.body.errors.to_wallet_id);
  const early = await put({ amount: 1, updated_at: '2000-01-01T00:00:00Z' });
  t.equal(early.status, 422);
  t.ok(early.body.errors.updated_at);
  t.same(await snapshot(user.user.id), before, 'refused updates change nothing');

  const converted = await put({ to_wallet_id: eur, exchange_rate: 0.9 });
  t.match(converted.body.data, { exchange_rate: 0.9, received_amount: 54.225 });
  t.same([await balanceOf(c), await balanceOf(eur)], ['0.0000', '54.2250']);
  const kept = await put({ amount: 10 });
  t.match(kept.body.data, { exchange_rate: 0.9, received_amount: 9 }, 'the stored rate is kept with the same wallets');
  t.same([await balanceOf(a), await balanceOf(eur)], ['90.0000', '9.0000']);
  const back = await put({ to_wallet_id: b });
  t.match(back.body.data, { exchange_rate: 1, received_amount: 10 }, 'one currency again: rate 1');

  const dated = await put({ datetime: '2026-02-02T02:02:02Z' });
  t.equal(dated.body.data.datetime, '2026-02-02T02:02:02.000Z');
  t.ok((await legs(made.body.data.id)).every((leg) => leg.datetime.toISOString() === '2026-02-02T02:02:02.000Z'), 'both legs are re-dated');
  t.same([await balanceOf(a), await balanceOf(b)], ['90.0000', '10.0000']);

  const adopted = clientId();
  t.equal((await put({ client_id: adopted })).body.data.client_generated_id, adopted, 'a body with only client_id adopts one');
  t.equal((await put({ client_id: clientId() })).body.data.client_generated_id, adopted, 'and never replaces it');
});

t.test('delete: soft, reverts both balances, tombstones for the transfer and its legs', async (t) => {
  const since = new Date(Date.now() - 1000).toISOString();
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id, { currency: 'EUR' });
  const made = await post(owner.token, { client_id: clientId(), amount: 30, exchange_rate: 1.5, from_wallet_id: from, to_wallet_id: to });
  const id = made.body.data.id;
  const res = await api.request('DELETE', `/api/v1/transfers/${id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Transfer deleted successfully', data: null });
  t.same([await balanceOf(from), await balanceOf(to)], ['100.0000', '0.0000']);
  t.equal((await api.request('GET', `/api/v1/transfers/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/transfers/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('PUT', `/api/v1/transfers/${id}`, { token: owner.token, body: { amount: 1 } })).status, 404);
  t.same([await balanceOf(from), await balanceOf(to)], ['100.0000', '0.0000'], 'reverted once');

  const live = await api.request('GET', '/api/v1/transfers?limit=100', { token: owner.token });
  t.notOk(live.body.data.data.some((x: { id: number }) => x.id === id));
  const feed = await api.request('GET', `/api/v1/transfers?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  const tombstone = feed.body.data.data.find((x: { id: number }) => x.id === id);
  t.ok(tombstone?.deleted_at, 'the transfer comes back with deleted_at');
  t.equal(tombstone.expense_transaction_id, made.body.data.expense_transaction_id);
  t.equal(tombstone.income_transaction_client_id, made.body.data.income_transaction_client_id);

  for (const leg of await legs(id)) {
    t.ok(leg.deleted_at, `the ${leg.type} leg is soft-deleted`);
    t.ok(leg.updated_at >= new Date(since), `the ${leg.type} leg is in the sync window`);
  }
  const legFeed = await api.request('GET', `/api/v1/transactions?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  const legIds = [made.body.data.expense_transaction_id, made.body.data.income_transaction_id];
  const tombstones = legFeed.body.data.data.filter((x: { id: number }) => legIds.includes(x.id));
  t.equal(tombstones.length, 2, 'both legs are tombstones in the transactions feed');
  t.ok(tombstones.every((x: { deleted_at: string | null }) => x.deleted_at));
});

t.test('list: newest first, paging, no_client_id', async (t) => {
  const user = await api.newUser();
  const from = await wallet(user.user.id, { balance: '100' });
  const to = await wallet(user.user.id);
  const dates = ['2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z', '2026-01-01T00:00:00Z'];
  for (const [i, datetime] of dates.entries()) {
    await post(user.token, { amount: i + 1, from_wallet_id: from, to_wallet_id: to, datetime, ...(i === 0 ? { client_id: clientId() } : {}) });
  }
  const list = await api.request('GET', '/api/v1/transfers', { token: user.token });
  t.equal(list.status, 200);
  t.same(list.body.data.data.map((x: { amount: number }) => x.amount), [2, 1, 3]);
  t.match(list.body.data, { current_page: 1, per_page: 20, total: 3, last_page: 1 });
  const page = await api.request('GET', '/api/v1/transfers?limit=2&page=2', { token: user.token });
  t.same(page.body.data.data.map((x: { amount: number }) => x.amount), [3]);
  t.equal(page.body.data.last_page, 2);
  const serverMade = await api.request('GET', '/api/v1/transfers?no_client_id=true', { token: user.token });
  t.same(serverMade.body.data.data.map((x: { amount: number }) => x.amount), [2, 3]);
  const theirs = await api.request('GET', '/api/v1/transfers', { token: stranger.token });
  t.same(theirs.body.data.data, [], "never another user's transfers");
});

t.test("another user's transfer is 404 and stays as it was", async (t) => {
  const from = await wallet(owner.user.id, { balance: '100' });
  const to = await wallet(owner.user.id);
  const made = await post(owner.token, { amount: 5, from_wallet_id: from, to_wallet_id: to });
  const url = `/api/v1/transfers/${made.body.data.id}`;
  for (const [method, body] of [['GET'], ['PUT', { amount: 1 }], ['DELETE']] as const) {
    const res = await api.request(method, url, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Transfer not found.');
  }
  t.equal((await api.request('GET', '/api/v1/transfers/999999', { token: owner.token })).status, 404);
  t.same([await balanceOf(from), await balanceOf(to)], ['95.0000', '5.0000']);
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.amount, 5);
});

t.test('no token is 401 on every transfer operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/transfers'],
    ['POST', '/api/v1/transfer'],
    ['GET', '/api/v1/transfers/1'],
    ['PUT', '/api/v1/transfers/1'],
    ['DELETE', '/api/v1/transfers/1'],
  ]) {
    const body = method === 'POST' || method === 'PUT' ? { amount: 1, from_wallet_id: 1, to_wallet_id: 2 } : undefined;
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url}`);
  }
});

t.test('deleting a transfer whose money was spent since is not refused; the destination goes below zero', async (t) => {
  const from = await wallet(owner.user.id, { balance: '100.0000' });
  const to = await wallet(owner.user.id, { balance: '0.0000' });
  const sent = await post(owner.token, { amount: 60, from_wallet_id: from, to_wallet_id: to });
  t.equal(sent.status, 201);
  const spendAll = await post(owner.token, { amount: 60, from_wallet_id: to, to_wallet_id: from });
  t.equal(spendAll.status, 201, 'the destination spends what it received');
  const removed = await api.request('DELETE', `/api/v1/transfers/${sent.body.data.id}`, { token: owner.token });
  t.equal(removed.status, 200);
  t.equal(await balanceOf(to), '-60.0000', 'undoing the record leaves the destination negative');
  t.equal(await balanceOf(from), '160.0000', 'and gives the source its 60 back');
});

t.test('POST /transfers: the path the web client calls is the same operation', async (t) => {
  const from = await wallet(owner.user.id, { balance: '50' });
  const to = await wallet(owner.user.id);
  const webBody = { amount: 20, from_wallet_id: from, to_wallet_id: to, created_at: '2026-03-04T05:06:07Z' };
  const res = await api.request('POST', '/api/v1/transfers', { token: owner.token, body: webBody });
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.match(res.body.data, { amount: 20, received_amount: 20, from_wallet_id: from, to_wallet_id: to });
  t.equal(await balanceOf(from), '30.0000');
  t.equal(await balanceOf(to), '20.0000');
  const id = clientId();
  const first = await api.request('POST', '/api/v1/transfers', { token: owner.token, body: { ...webBody, client_id: id } });
  const again = await api.request('POST', '/api/v1/transfers', { token: owner.token, body: { ...webBody, client_id: id } });
  t.same([first.status, again.status], [201, 200], 'a replay moves no money');
  t.equal(await balanceOf(from), '10.0000');
  const bad = await api.request('POST', '/api/v1/transfers', { token: owner.token, body: { ...webBody, amount: 'lots' } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.amount);
  const foreign = await api.request('POST', '/api/v1/transfers', { token: stranger.token, body: webBody });
  t.equal(foreign.status, 422, "another user's wallets are not the caller's");
  t.equal(await balanceOf(from), '10.0000', 'nothing moved');
  t.equal((await api.request('POST', '/api/v1/transfers', { body: webBody })).status, 401);
});
