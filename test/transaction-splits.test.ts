// Split transactions over HTTP (issue 44): create, show, list, update and unsplit, with the
// figures that follow the lines; bad input (sums, amounts, references, the bound, transfer
// legs), each a 422 keyed by field with nothing written; replays; no token.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

const create = (body: Record<string, unknown>, token = owner.token) => api.request('POST', '/api/v1/transactions', { token, body });
const update = (id: number, body: Record<string, unknown>, token = owner.token) => api.request('PUT', `/api/v1/transactions/${id}`, { token, body });
const show = (id: number) => api.request('GET', `/api/v1/transactions/${id}`, { token: owner.token });
const splitRows = async (id: number) =>
  (await api.db.selectFrom('transaction_splits').select(['amount', 'category_id', 'position']).where('transaction_id', '=', id).orderBy('position').execute()).map(
    (row) => [String(row.amount), row.category_id],
  );

const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
const groceries = await fx.category(owner.user.id);
const household = await fx.category(owner.user.id);
const shop = await fx.party(owner.user.id);
const theirCategory = await fx.category(stranger.user.id);
const theirParty = await fx.party(stranger.user.id);
const receipt = (extra: Record<string, unknown> = {}) => ({
  type: 'expense',
  amount: 100,
  wallet_id: wallet,
  datetime: '2026-03-10T10:00:00Z',
  splits: [
    { amount: 60, category_id: household, description: 'Soap' },
    { amount: 40, category_id: groceries, party_id: shop },
  ],
  ...extra,
});

t.test('create: the lines in order, categories in line order, parties nested, shown alike everywhere', async (t) => {
  const res = await create(receipt({ client_id: clientId() }));
  t.equal(res.status, 201);
  const tx = res.body.data;
  t.same(
    tx.splits.map((s: any) => [s.amount, s.category_id, s.party_id, s.description, s.category?.id ?? null, s.party?.id ?? null]),
    [
      [60, household, null, 'Soap', household, null],
      [40, groceries, shop, null, groceries, shop],
    ],
  );
  t.same(tx.categories.map((c: { id: number }) => c.id), [household, groceries], "the transaction's categories are the lines', in line order");
  t.equal(await fx.balance(wallet), '900.0000', 'the balance moves by the amount, once');
  t.same((await show(tx.id)).body.data, tx, 'GET shows the same record');
  const listed = await api.request('GET', '/api/v1/transactions?limit=100', { token: owner.token });
  t.same(listed.body.data.data.find((row: { id: number }) => row.id === tx.id), tx, 'the list shows the same record');
  const feed = await api.request('GET', '/api/v1/transactions?synced_since=2000-01-01T00:00:00Z&limit=100', { token: owner.token });
  t.same(feed.body.data.data.find((row: { id: number }) => row.id === tx.id).splits, tx.splits, 'the sync feed carries the lines');

  const again = await create(receipt({ client_id: tx.client_generated_id, amount: 5, splits: [{ amount: 5 }] }));
  t.equal(again.status, 200, 'a replay answers the existing record');
  t.same(again.body.data.splits, tx.splits, 'and writes nothing');
  t.same(await splitRows(tx.id), [['60.0000', household], ['40.0000', groceries]]);

  const plain = await create({ type: 'expense', amount: 3, wallet_id: wallet, categories: [groceries] });
  t.same(plain.body.data.splits, [], 'a transaction without lines shows none');
});

t.test('bad input: 422 keyed by field, nothing written', async (t) => {
  const before = await fx.count('transactions', owner.user.id);
  const cases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
    ['lines short of the amount', receipt({ splits: [{ amount: 60 }, { amount: 39.99 }] }), 'splits', /99\.99, 0\.01 less than the amount 100/],
    ['lines over the amount', receipt({ splits: [{ amount: 60 }, { amount: 40.5 }] }), 'splits', /0\.5 more/],
    ['a negative line', receipt({ splits: [{ amount: 110 }, { amount: -10 }] }), 'splits.1.amount'],
    ['a zero line', receipt({ splits: [{ amount: 100 }, { amount: 0 }] }), 'splits.1.amount'],
    ['five decimals', receipt({ splits: [{ amount: 50.00001 }, { amount: 49.99999 }] }), 'splits.0.amount'],
    ["another user's category", receipt({ splits: [{ amount: 60, category_id: theirCategory }, { amount: 40 }] }), 'splits.0.category_id'],
    ["another user's party", receipt({ splits: [{ amount: 60 }, { amount: 40, party_id: theirParty }] }), 'splits.1.party_id'],
    ['an unknown category', receipt({ splits: [{ amount: 100, category_id: 999999999 }] }), 'splits.0.category_id'],
    ['1,000 lines', receipt({ amount: 1000, splits: Array.from({ length: 1000 }, () => ({ amount: 1 })) }), 'splits'],
    ['categories other than the lines', receipt({ categories: [groceries] }), 'categories'],
    ['a line without an amount', receipt({ splits: [{ category_id: groceries }] }), 'splits.0.amount'],
  ];
  for (const [what, body, field, message] of cases) {
    const res = await create(body);
    t.equal(res.status, 422, what);
    t.ok(res.body.errors?.[field], `${what}: keyed ${field} (${JSON.stringify(res.body.errors)})`);
    if (message) t.match(res.body.errors[field][0], message, what);
  }
  t.equal(await fx.count('transactions', owner.user.id), before, 'nothing written');
  t.equal((await create(receipt({ categories: [groceries, household] }))).status, 201, 'categories naming the lines are accepted');
});

t.test('update: replace, keep, change the amount only with lines, unsplit; transfer legs take none', async (t) => {
  const tx = (await create(receipt())).body.data;
  const replaced = await update(tx.id, { amount: 120, splits: [{ amount: 100, category_id: groceries }, { amount: 20 }] });
  t.equal(replaced.status, 200);
  t.same(replaced.body.data.splits.map((s: any) => [s.amount, s.category_id]), [[100, groceries], [20, null]]);
  t.same(replaced.body.data.categories.map((c: { id: number }) => c.id), [groceries]);

  const amountOnly = await update(tx.id, { amount: 130 });
  t.equal(amountOnly.status, 422, 'a new amount without new lines');
  t.ok(amountOnly.body.errors.amount);
  const otherCategories = await update(tx.id, { categories: [household] });
  t.equal(otherCategories.status, 422, 'other categories without new lines');
  t.ok(otherCategories.body.errors.categories);
  const wrongSum = await update(tx.id, { splits: [{ amount: 1 }] });
  t.equal(wrongSum.status, 422);
  t.match(wrongSum.body.errors.splits[0], /119 less/);
  const theirs = await update(tx.id, { splits: [{ amount: 120, category_id: theirCategory }] });
  t.equal(theirs.status, 422);
  t.ok(theirs.body.errors['splits.0.category_id']);
  t.same(await splitRows(tx.id), [['100.0000', groceries], ['20.0000', null]], 'the failed updates wrote nothing');

  const sameBack = await update(tx.id, { description: 'Weekly shop', amount: 120, categories: [groceries] });
  t.equal(sameBack.status, 200, 'a reference client sending the record back unchanged');
  t.equal(sameBack.body.data.splits.length, 2, 'keeps the lines');

  const unsplit = await update(tx.id, { splits: null });
  t.equal(unsplit.status, 200);
  t.same(unsplit.body.data.splits, []);
  t.same(unsplit.body.data.categories.map((c: { id: number }) => c.id), [groceries], 'the categories stay');
  t.equal((await update(tx.id, { amount: 50 })).status, 200, 'an unsplit transaction changes its amount freely');
  t.same(await splitRows(tx.id), []);

  const savings = await fx.wallet(owner.user.id);
  const transfer = await api.request('POST', '/api/v1/transfers', { token: owner.token, body: { amount: 10, from_wallet_id: wallet, to_wallet_id: savings } });
  t.equal(transfer.status, 201, JSON.stringify(transfer.body));
  const leg = transfer.body.data.expense_transaction_id ?? transfer.body.data.expense_transaction?.id;
  const split = await update(leg, { splits: [{ amount: 10, category_id: groceries }] });
  t.equal(split.status, 422, 'a transfer leg cannot be split');
  t.ok(split.body.errors.splits);
});

t.test("another user's transaction, no token", async (t) => {
  const tx = (await create(receipt())).body.data;
  t.equal((await update(tx.id, { splits: null }, stranger.token)).status, 404);
  t.equal((await api.request('POST', '/api/v1/transactions', { body: receipt() })).status, 401);
  t.equal((await api.request('PUT', `/api/v1/transactions/${tx.id}`, { body: { splits: null } })).status, 401);
});

t.test('figures: budgets count each line under its category, a refund in proportion; statistics alike', async (t) => {
  const user = await api.newUser();
  const userWallet = await fx.wallet(user.user.id, { balance: '1000' });
  const food = await fx.category(user.user.id);
  const home = await fx.category(user.user.id);
  const budget = async (name: string, targets: unknown[]) =>
    (await api.request('POST', '/api/v1/budgets', { token: user.token, body: { name, amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', targets } })).body.data.id;
  const foodBudget = await budget('Food', [{ type: 'category', id: food }]);
  const homeBudget = await budget('Home', [{ type: 'category', id: home }]);
  const bothBudget = await budget('Both', [{ type: 'category', id: food }, { type: 'category', id: home }]);
  const expense = await create({ type: 'expense', amount: 100, wallet_id: userWallet, datetime: '2026-03-10T10:00:00Z', splits: [{ amount: 60, category_id: food }, { amount: 40, category_id: home }] }, user.token);
  const refund = await create({ type: 'income', amount: 10, wallet_id: userWallet, datetime: '2026-03-11T10:00:00Z' }, user.token);
  await api.request('POST', `/api/v1/transactions/${refund.body.data.id}/refund`, { token: user.token, body: { original_transaction_id: expense.body.data.id } });
  const progress = async (id: number) => (await api.request('GET', `/api/v1/budgets/${id}`, { token: user.token })).body.data.progress;
  t.match(await progress(foodBudget), { gross_spent: 60, refunds: 6, net_spent: 54 });
  t.match(await progress(homeBudget), { gross_spent: 40, refunds: 4, net_spent: 36 });
  t.match(await progress(bothBudget), { gross_spent: 100, refunds: 10, net_spent: 90 }, 'several targeted lines count once each');
  const listed = await api.request('GET', `/api/v1/budgets/${foodBudget}/transactions`, { token: user.token });
  t.same(listed.body.data.data.map((row: any) => [row.id, row.amount_in_budget_currency]), [[refund.body.data.id, '6.0000'], [expense.body.data.id, '60.0000']], 'the budget lists what it counts of each');

  const stats = await api.request('GET', '/api/v1/stats?start_date=2026-03-01&end_date=2026-03-15', { token: user.token });
  const spending = stats.body.data.charts.category_spending.map((row: any) => [row.id, row.amount, row.transaction_count]);
  t.same(spending, [[food, 60, 1], [home, 40, 1]], 'each line under its own category');
});

t.test('a recurring split transaction: each occurrence has its lines', async (t) => {
  const tx = (
    await create(receipt({ datetime: '2026-03-01T09:00:00Z', is_recurring: true, recurrence_period: 'daily' }))
  ).body.data;
  t.ok(tx.is_recurring);
  t.ok((await materialiseDueOccurrences(api.db, api.app.services, new Date('2026-03-18T12:00:00Z'))) >= 1);
  const made = await api.db.selectFrom('transactions').select('id').where('recurring_parent_id', '=', tx.id).execute();
  t.ok(made.length >= 1);
  for (const { id } of made) {
    t.same(await splitRows(id), [['60.0000', household], ['40.0000', groceries]], `occurrence ${id}`);
    t.same((await show(id)).body.data.categories.map((c: { id: number }) => c.id), [household, groceries]);
  }
});
