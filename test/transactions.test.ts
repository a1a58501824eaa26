// Transactions over HTTP: create/show/update/delete with their balance effects (exact
// decimals), references and overdrafts, transfer legs, recurring rules, client ids.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Decimal } from '../domain/money.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

const create = (token: string, body: Record<string, unknown>) => api.request('POST', '/api/v1/transactions', { token, body });
const update = (token: string, id: number, type: string, body: Record<string, unknown>) =>
  api.request('PUT', `/api/v1/transactions/${id}?type=${type}`, { token, body: { updated_at: new Date().toISOString(), ...body } });

t.test('create: 201 with nested records, the balance moves, show returns the same', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const category = await fx.category(owner.user.id);
  const party = await fx.party(owner.user.id);
  const group = await fx.group(owner.user.id);
  const id = clientId();
  const res = await create(owner.token, {
    client_id: id,
    type: 'income',
    amount: 1250.5,
    description: 'Salary',
    datetime: '2026-03-01T09:30:15.250+01:00',
    intent: 'loan_received',
    wallet_id: wallet,
    party_id: party,
    group_id: group,
    categories: [category],
  });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Transaction created successfully');
  const tx = res.body.data;
  t.equal(tx.metadata, null, "the reference's metadata, present on the wire");
  t.match(tx, {
    type: 'income',
    amount: 1250.5,
    description: 'Salary',
    datetime: '2026-03-01T08:30:15.000Z',
    intent: 'loan_received',
    wallet_id: wallet,
    party_id: party,
    group_id: group,
    transfer_id: null,
    is_recurring: false,
    is_refund: false,
    recurring_rules: null,
    amount_in_budget_currency: null,
    client_generated_id: id,
    files: [],
  });
  t.match(tx.wallet, { id: wallet, balance: 1250.5, stats: { total_income: 1250.5, total_expense: 0 } });
  t.match(tx.party, { id: party, name: 'ACME Corp' });
  t.match(tx.group, { id: group });
  t.same(tx.categories.map((c: { id: number }) => c.id), [category]);
  t.ok(tx.last_synced_at, 'last_synced_at is never null');
  t.equal(await fx.balance(wallet), '1250.5000');

  const shown = await api.request('GET', `/api/v1/transactions/${tx.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, tx);
  t.equal((await api.request('GET', `/api/v1/transactions/${tx.id}?type=expense`, { token: owner.token })).status, 404, 'a type filter that does not match');
  t.equal((await api.request('GET', `/api/v1/transactions/${tx.id}?type=income`, { token: owner.token })).status, 200);
});

t.test('a repeated client_id returns the existing transaction and writes nothing', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const id = clientId();
  const first = await create(owner.token, { client_id: id, type: 'income', amount: 10, wallet_id: wallet });
  const before = await fx.count('transactions', owner.user.id);
  const again = await create(owner.token, { client_id: id, type: 'income', amount: 99, wallet_id: wallet });
  t.equal(again.status, 200);
  t.equal(again.body.data.id, first.body.data.id);
  t.equal(again.body.data.amount, 10);
  t.equal(await fx.count('transactions', owner.user.id), before);
  t.equal(await fx.balance(wallet), '10.0000', 'applied once');
});

t.test("the date of a create: datetime, else date, else the client's created_at, else now", async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const stored = async (body: Record<string, unknown>) => {
    const res = await create(owner.token, { type: 'income', amount: 1, wallet_id: wallet, ...body });
    t.equal(res.status, 201);
    const row = await api.db.selectFrom('transactions').select(['datetime', 'created_at']).where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    return [row.datetime.toISOString(), row.created_at.toISOString()];
  };
  t.same(await stored({ datetime: '2025-05-06T07:08:09.500Z', created_at: '2025-05-01T00:00:00.000Z' }), ['2025-05-06T07:08:09.000Z', '2025-05-01T00:00:00.000Z']);
  t.same(await stored({ date: '2025-05-06', created_at: '2025-05-01T00:00:00.000Z' }), ['2025-05-06T00:00:00.000Z', '2025-05-01T00:00:00.000Z']);
  t.same(await stored({ created_at: '2025-05-01T12:34:56.789Z' }), ['2025-05-01T12:34:56.000Z', '2025-05-01T12:34:56.789Z'], 'made offline without a date');
  const before = Date.now() - 1000;
  const [now] = await stored({});
  t.ok(Date.parse(now) >= before && Date.parse(now) <= Date.now(), 'neither: the time of the request');
});

t.test('balances are exact decimals through create, update and delete', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const a = await create(owner.token, { type: 'income', amount: 0.1, wallet_id: wallet });
  const b = await create(owner.token, { type: 'income', amount: 0.2, wallet_id: wallet });
  t.equal(await fx.balance(wallet), '0.3000', '0.1 + 0.2 = 0.3');
  t.equal(b.body.data.wallet.balance, 0.3);

  const expense = await create(owner.token, { type: 'expense', amount: 0.0001, wallet_id: wallet });
  t.equal(await fx.balance(wallet), '0.2999');

  const raised = await update(owner.token, a.body.data.id, 'income', { amount: 1.2345 });
  t.equal(raised.status, 200);
  t.equal(raised.body.message, 'Transaction updated successfully');
  t.equal(await fx.balance(wallet), '1.4344', 'the old amount is reverted, the new one applied');

  const other = await fx.wallet(owner.user.id);
  const moved = await update(owner.token, b.body.data.id, 'income', { amount: 0.2, wallet_id: other });
  t.equal(moved.body.data.wallet_id, other);
  t.equal(await fx.balance(wallet), '1.2344');
  t.equal(await fx.balance(other), '0.2000', 'the effect moves to the new wallet');

  t.equal((await api.request('DELETE', `/api/v1/transactions/${expense.body.data.id}`, { token: owner.token })).status, 200);
  t.equal(await fx.balance(wallet), '1.2345', 'a delete reverts the effect');
});

t.test('concurrent writes never lose or repeat a balance change', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '100' });
  const made = await Promise.all(Array.from({ length: 10 }, () => create(owner.token, { type: 'expense', amount: 0.01, wallet_id: wallet })));
  t.ok(made.every((r) => r.status === 201));
  t.equal(await fx.balance(wallet), '99.9000');
  const edited = (await create(owner.token, { type: 'expense', amount: 1, wallet_id: wallet })).body.data.id;
  const edits = await Promise.all([2, 3, 4, 5].map((amount) => update(owner.token, edited, 'expense', { amount })));
  t.ok(edits.every((r) => r.status === 200));
  const final = (await api.request('GET', `/api/v1/transactions/${edited}`, { token: owner.token })).body.data.amount;
  t.equal(await fx.balance(wallet), new Decimal('99.9').minus(final).toFixed(4), 'the balance matches the last amount written');
  const deletes = await Promise.all([1, 2, 3].map(() => api.request('DELETE', `/api/v1/transactions/${edited}`, { token: owner.token })));
  t.same(deletes.map((r) => r.status).sort(), [200, 404, 404]);
  t.equal(await fx.balance(wallet), '99.9000', 'reverted exactly once');
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const foreignWallet = await fx.mainWallet(stranger.user.id);
  const foreignCategory = await fx.category(stranger.user.id);
  const foreignParty = await fx.party(stranger.user.id);
  const foreignGroup = await fx.group(stranger.user.id);
  const deletedWallet = await fx.wallet(owner.user.id);
  await api.db.updateTable('wallets').set({ deleted_at: new Date() }).where('id', '=', deletedWallet).execute();
  const ok = { type: 'expense', amount: 1, wallet_id: wallet };
  await fx.setBalance(wallet, '100');
  const before = await fx.count('transactions', owner.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ amount: 1, wallet_id: wallet }, 'type'],
    [{ type: 'income', wallet_id: wallet }, 'amount'],
    [{ type: 'income', amount: 1 }, 'wallet_id'],
    [{ ...ok, amount: 0 }, 'amount'],
    [{ ...ok, amount: -5 }, 'amount'],
    [{ ...ok, amount: 1.00001 }, 'amount'],
    [{ ...ok, amount: '12' }, 'amount'],
    [{ ...ok, type: 'transfer' }, 'type'],
    [{ ...ok, intent: 'fee' }, 'intent'],
    [{ ...ok, datetime: '2026-01-01 10:00' }, 'datetime'],
    [{ ...ok, client_id: 'nope' }, 'client_id'],
    [{ ...ok, wallet_id: foreignWallet }, 'wallet_id'],
    [{ ...ok, wallet_id: deletedWallet }, 'wallet_id'],
    [{ ...ok, wallet_id: 999999 }, 'wallet_id'],
    [{ ...ok, party_id: foreignParty }, 'party_id'],
    [{ ...ok, group_id: foreignGroup }, 'group_id'],
    [{ ...ok, categories: [foreignCategory] }, 'categories'],
    [{ ...ok, is_recurring: true }, 'recurrence_period'],
    [{ ...ok, is_recurring: true, recurrence_period: 'hourly' }, 'recurrence_period'],
    [{ ...ok, is_recurring: true, recurrence_period: 'daily', recurrence_interval: 0 }, 'recurrence_interval'],
    [{ ...ok, is_recurring: true, recurrence_period: 'daily', recurrence_ends_at: '2000-01-01T00:00:00Z' }, 'recurrence_ends_at'],
  ];
  for (const [body, field] of cases) {
    const res = await create(owner.token, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(body)}: ${JSON.stringify(res.body.errors)}`);
  }
  t.equal(await fx.count('transactions', owner.user.id), before);
  t.equal(await fx.balance(wallet), '100.0000');
  const wrongOwner = await create(owner.token, { ...ok, wallet_id: foreignWallet });
  t.same(wrongOwner.body.errors, { wallet_id: ['The selected wallet is invalid.'] });
});

t.test('a balance that would leave numeric(19, 4) is 422 on amount and changes nothing', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.mainWallet(user.user.id);
  t.equal((await create(user.token, { type: 'income', amount: 999999999999999, wallet_id: wallet })).status, 201);
  const beyond = await create(user.token, { type: 'income', amount: 1, wallet_id: wallet });
  t.equal(beyond.status, 422);
  t.match(beyond.body.errors.amount, [/balance would become too large/]);
  t.equal(await fx.balance(wallet), '999999999999999.0000');
});

t.test('overdraft: refused unless negative balances are allowed or the wallet is a credit card', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.mainWallet(user.user.id);
  await create(user.token, { type: 'income', amount: 50, wallet_id: wallet });
  const exact = await create(user.token, { type: 'expense', amount: 50, wallet_id: wallet });
  t.equal(exact.status, 201, 'down to exactly zero is allowed');
  const over = await create(user.token, { type: 'expense', amount: 0.01, wallet_id: wallet });
  t.equal(over.status, 422);
  t.ok(over.body.errors.amount);
  t.equal(await fx.balance(wallet), '0.0000');

  const raise = await update(user.token, exact.body.data.id, 'expense', { amount: 50.5 });
  t.equal(raise.status, 422, 'an edit that would overdraw is refused too');
  t.ok(raise.body.errors.amount);
  t.equal((await api.request('GET', `/api/v1/transactions/${exact.body.data.id}`, { token: user.token })).body.data.amount, 50);

  await fx.allowNegative(user.user.id, true);
  t.equal((await create(user.token, { type: 'expense', amount: 20, wallet_id: wallet })).status, 201);
  t.equal(await fx.balance(wallet), '-20.0000');
  await fx.allowNegative(user.user.id, false);
  t.equal((await create(user.token, { type: 'expense', amount: 1, wallet_id: wallet })).status, 422);
  t.equal((await create(user.token, { type: 'income', amount: 5, wallet_id: wallet })).status, 201, 'raising a negative balance is fine');

  const card = await fx.wallet(user.user.id, { type: 'credit_card' });
  t.equal((await create(user.token, { type: 'expense', amount: 999.99, wallet_id: card })).status, 201);
  t.equal(await fx.balance(card), '-999.9900');
});

t.test('update: type selects, fields change, links replace, client id adoption, updated_at check', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '500' });
  const [food, fuel] = [await fx.category(owner.user.id), await fx.category(owner.user.id)];
  const party = await fx.party(owner.user.id);
  const made = await create(owner.token, { type: 'expense', amount: 20, wallet_id: wallet, categories: [food], party_id: party, description: 'Lunch' });
  const id = made.body.data.id;

  const mismatch = await update(owner.token, id, 'income', { amount: 20 });
  t.equal(mismatch.status, 422);
  t.ok(mismatch.body.errors.type);
  // The reference clients never send the type query: without it nothing is selected by type.
  t.equal((await api.request('PUT', `/api/v1/transactions/${id}`, { token: owner.token, body: { amount: 10, updated_at: new Date().toISOString() } })).status, 200, 'the type query may be omitted');

  const changed = await update(owner.token, id, 'expense', { amount: 20, categories: [fuel, food], description: null, party_id: null, intent: 'gift', date: '2026-02-03' });
  t.equal(changed.status, 200);
  t.match(changed.body.data, { description: null, party_id: null, party: null, intent: 'gift', datetime: '2026-02-03T00:00:00.000Z', type: 'expense' });
  t.same(changed.body.data.categories.map((c: { id: number }) => c.id).sort(), [food, fuel].sort());
  const cleared = await update(owner.token, id, 'expense', { amount: 20, categories: [] });
  t.same(cleared.body.data.categories, []);
  t.equal(cleared.body.data.intent, 'gift', 'absent fields stay');

  const adopted = clientId();
  t.equal((await update(owner.token, id, 'expense', { amount: 20, client_id: adopted })).body.data.client_generated_id, adopted);
  t.equal((await update(owner.token, id, 'expense', { amount: 20, client_id: clientId() })).body.data.client_generated_id, adopted, 'never replaced');

  const early = await update(owner.token, id, 'expense', { amount: 25, updated_at: '2000-01-01T00:00:00Z' });
  t.equal(early.status, 422);
  t.ok(early.body.errors.updated_at);
  const foreign = await update(owner.token, id, 'expense', { amount: 25, wallet_id: await fx.mainWallet(stranger.user.id) });
  t.equal(foreign.status, 422);
  t.ok(foreign.body.errors.wallet_id);
  t.equal(await fx.balance(wallet), '480.0000', 'refused updates change nothing');
});

t.test('update: the body type converts an expense into an income (and back); balances and budgets follow', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '100' });
  const currency = (await api.request('GET', `/api/v1/wallets/${wallet}`, { token: user.token })).body.data.currency;
  const budget = await api.request('POST', '/api/v1/budgets', { token: user.token, body: { name: 'All', amount: 100, currency, period_type: 'monthly', start_date: '2026-01-01' } });
  t.equal(budget.status, 201);
  const spent = async () => (await api.request('GET', `/api/v1/budgets/${budget.body.data.id}`, { token: user.token })).body.data.progress.gross_spent;
  const made = await create(user.token, { type: 'expense', amount: 30, wallet_id: wallet, datetime: new Date().toISOString() });
  const id = made.body.data.id;
  t.equal(await fx.balance(wallet), '70.0000');
  t.equal(await spent(), 30);

  const converted = await update(user.token, id, 'expense', { amount: 30, type: 'income' });
  t.equal(converted.status, 200);
  t.equal(converted.body.data.type, 'income');
  t.equal(await fx.balance(wallet), '130.0000', 'the expense is reverted and the income applied');
  t.equal(await spent(), 0, 'an income is no spending');
  t.equal((await api.request('GET', `/api/v1/transactions/${id}?type=income`, { token: user.token })).status, 200);
  t.equal((await update(user.token, id, 'expense', { amount: 30 })).status, 422, 'the query now selects it as an income');

  const back = await update(user.token, id, 'income', { amount: 45, type: 'expense' });
  t.equal(back.status, 200);
  t.equal(await fx.balance(wallet), '55.0000', 'type and amount change together');
  t.equal(await spent(), 45);

  const overdraw = await update(user.token, (await create(user.token, { type: 'income', amount: 500, wallet_id: wallet })).body.data.id, 'income', { amount: 500, type: 'expense' });
  t.equal(overdraw.status, 422, 'a conversion that would overdraw is refused');
  t.equal(await fx.balance(wallet), '555.0000');

  const income = (await create(user.token, { type: 'income', amount: 5, wallet_id: wallet })).body.data.id;
  t.equal((await api.request('POST', `/api/v1/transactions/${income}/refund`, { token: user.token, body: { original_transaction_id: id } })).status, 200);
  for (const [linked, type, to] of [[income, 'income', 'expense'], [id, 'expense', 'income']] as const) {
    const refused = await update(user.token, linked, type, { amount: linked === id ? 45 : 5, type: to });
    t.equal(refused.status, 422, `a transaction in a refund link keeps its type (${type})`);
    t.ok(refused.body.errors.type);
  }
  t.equal(await fx.balance(wallet), '560.0000', 'refused conversions change nothing');
});

t.test('an update that sends back references deleted since keeps them (clients send the whole record)', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '10' });
  const category = await fx.category(owner.user.id);
  const made = await create(owner.token, { type: 'expense', amount: 2, wallet_id: wallet, categories: [category] });
  await api.db.updateTable('categories').set({ deleted_at: new Date() }).where('id', '=', category).execute();
  await api.db.updateTable('wallets').set({ deleted_at: new Date() }).where('id', '=', wallet).execute();
  const res = await update(owner.token, made.body.data.id, 'expense', { amount: 2, wallet_id: wallet, categories: [category], description: 'Edited offline' });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.data.description, 'Edited offline');
  t.ok(res.body.data.wallet.deleted_at, 'the deleted wallet is still shown');
  t.same(res.body.data.categories, [], 'a deleted category is not shown');
  const balance = await fx.balance(wallet);
  const corrected = await update(owner.token, made.body.data.id, 'expense', { amount: 3, wallet_id: wallet });
  t.equal(corrected.status, 200, 'an entry that stays in its deleted wallet can be corrected');
  t.equal(corrected.body.data.amount, 3);
  t.equal(await fx.balance(wallet), balance, 'a deleted wallet keeps no balance: nothing moves there');
  const live = await fx.wallet(owner.user.id, { balance: '10' });
  const other = await create(owner.token, { type: 'expense', amount: 1, wallet_id: live });
  const moved = await update(owner.token, other.body.data.id, 'expense', { amount: 1, wallet_id: wallet });
  t.equal(moved.status, 422, 'but no entry moves into a deleted wallet');
  t.ok(moved.body.errors.wallet_id);
});

t.test('delete is soft: reverted, gone from lists and show, a tombstone in the feed', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const since = new Date(Date.now() - 1000).toISOString();
  const made = await create(owner.token, { type: 'income', amount: 7, wallet_id: wallet, is_recurring: true, recurrence_period: 'weekly' });
  const id = made.body.data.id;
  const res = await api.request('DELETE', `/api/v1/transactions/${id}`, { token: owner.token });
  t.same(res.body, { success: true, message: 'Transaction deleted successfully', data: null });
  t.equal(await fx.balance(wallet), '0.0000');
  t.equal(await api.db.selectFrom('recurring_rules').select('id').where('transaction_id', '=', id).executeTakeFirst(), undefined, 'its rule is removed');
  t.equal((await api.request('GET', `/api/v1/transactions/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/transactions/${id}`, { token: owner.token })).status, 404);
  t.equal(await fx.balance(wallet), '0.0000', 'a second delete reverts nothing');
  const feed = await api.request('GET', `/api/v1/transactions?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  t.ok(feed.body.data.data.find((tx: { id: number }) => tx.id === id)?.deleted_at, 'a tombstone');
});

t.test('transfer legs are changed only through their transfer', async (t) => {
  const from = await fx.wallet(owner.user.id, { balance: '100' });
  const to = await fx.wallet(owner.user.id);
  const { expenseLegId, transferId } = await fx.transfer(owner.user.id, from, to, '30');
  const shown = await api.request('GET', `/api/v1/transactions/${expenseLegId}`, { token: owner.token });
  t.equal(shown.body.data.transfer_id, transferId);
  t.equal((await update(owner.token, expenseLegId, 'expense', { amount: 31 })).status, 409);
  t.equal((await update(owner.token, expenseLegId, 'expense', { amount: 30, wallet_id: to })).status, 409);
  t.equal((await update(owner.token, expenseLegId, 'expense', { amount: 30, type: 'income' })).status, 409, 'a leg is never converted');
  const described = await update(owner.token, expenseLegId, 'expense', { amount: 30, description: 'Savings' });
  t.equal(described.status, 200, 'other fields of a leg may change');
  t.equal(described.body.data.description, 'Savings');
  t.equal((await api.request('DELETE', `/api/v1/transactions/${expenseLegId}`, { token: owner.token })).status, 409);
  t.equal(await fx.balance(from), '70.0000');
  t.equal(await fx.balance(to), '30.0000');
});

t.test('recurring rules: created, kept, rescheduled, removed', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
  const made = await create(owner.token, {
    type: 'expense',
    amount: 9.99,
    wallet_id: wallet,
    datetime: '2020-01-31T10:00:00Z',
    is_recurring: true,
    recurrence_period: 'monthly',
    recurrence_ends_at: '2099-01-01T00:00:00Z',
  });
  t.equal(made.status, 201);
  const rule = made.body.data.recurring_rules;
  t.match(rule, { transaction_id: made.body.data.id, recurrence_period: 'monthly', recurrence_interval: 1, recurrence_ends_at: '2099-01-01T00:00:00.000Z' });
  t.equal(made.body.data.is_recurring, true);
  const next = new Date(rule.next_scheduled_at);
  t.ok(next.getTime() > Date.now() && next.getTime() < Date.now() + 32 * 86400000, 'the first occurrence after now, not a back-fill');
  t.equal(next.getUTCHours(), 10, 'on the anchor schedule');
  const id = made.body.data.id;

  const kept = await update(owner.token, id, 'expense', { amount: 12 });
  t.same(kept.body.data.recurring_rules, rule, 'an update without recurrence keeps the rule');

  const weekly = await update(owner.token, id, 'expense', { amount: 12, is_recurring: true, recurrence_period: 'weekly', recurrence_interval: 2 });
  t.match(weekly.body.data.recurring_rules, { id: rule.id, recurrence_period: 'weekly', recurrence_interval: 2, recurrence_ends_at: '2099-01-01T00:00:00.000Z' });
  const weeklyNext = new Date(weekly.body.data.recurring_rules.next_scheduled_at);
  t.ok(weeklyNext.getTime() > Date.now() && weeklyNext.getTime() <= Date.now() + 14 * 86400000, 'rescheduled');
  t.equal(weeklyNext.getUTCDay(), new Date('2020-01-31T10:00:00Z').getUTCDay(), 'on the anchor weekday');

  const noEnd = await update(owner.token, id, 'expense', { amount: 12, is_recurring: true, recurrence_ends_at: null });
  t.equal(noEnd.body.data.recurring_rules.recurrence_ends_at, null);
  t.equal(noEnd.body.data.recurring_rules.next_scheduled_at, weekly.body.data.recurring_rules.next_scheduled_at, 'the schedule did not change');

  const removed = await update(owner.token, id, 'expense', { amount: 12, is_recurring: false });
  t.equal(removed.body.data.recurring_rules, null);
  t.equal(removed.body.data.is_recurring, false);

  const plain = await create(owner.token, { type: 'expense', amount: 1, wallet_id: wallet });
  const missing = await update(owner.token, plain.body.data.id, 'expense', { amount: 1, is_recurring: true });
  t.equal(missing.status, 422, 'a new rule needs its period');
  t.ok(missing.body.errors.recurrence_period);
  const daily = await update(owner.token, plain.body.data.id, 'expense', { amount: 1, is_recurring: true, recurrence_period: 'daily' });
  t.match(daily.body.data.recurring_rules, { recurrence_period: 'daily', recurrence_interval: 1, recurrence_ends_at: null });
});

t.test('list: newest first, filters, totals over every matching row', async (t) => {
  const user = await api.newUser();
  const main = await fx.mainWallet(user.user.id);
  const bank = await fx.wallet(user.user.id, { balance: '1000' });
  const [food, rent] = [await fx.category(user.user.id), await fx.category(user.user.id)];
  const add = async (body: Record<string, unknown>) => (await create(user.token, { wallet_id: main, ...body })).body.data.id as number;
  const salary = await add({ type: 'income', amount: 1000.1, datetime: '2026-01-05T10:00:00Z', description: 'January salary' });
  const groceries = await add({ type: 'expense', amount: 45.25, datetime: '2026-01-10T18:00:00Z', description: 'Groceries', categories: [food] });
  const flat = await add({ type: 'expense', amount: 500, datetime: '2026-02-01T00:30:00Z', description: 'Rent 100% paid', categories: [rent], wallet_id: bank });
  const loan = await add({ type: 'income', amount: 200, datetime: '2026-02-01T00:00:00Z', intent: 'loan_received', wallet_id: bank });
  await fx.transfer(user.user.id, bank, main, '10');
  const list = (query: string) => api.request('GET', `/api/v1/transactions?${query}`, { token: user.token });
  const ids = (res: { body: any }) => res.body.data.data.map((tx: { id: number }) => tx.id);

  const all = await list('limit=100');
  t.equal(all.status, 200);
  t.equal(all.body.data.total, 6);
  t.same(ids(all).slice(2), [flat, loan, groceries, salary], 'newest first (the transfer legs are dated now)');
  t.same(all.body.data.totals, { income: 1210.1, expenses: 555.25, net: 654.85 }, 'transfer legs count by default');

  const page = await list('limit=2&page=2&exclude_transfers=true');
  t.match(page.body.data, { current_page: 2, per_page: 2, total: 4, last_page: 2 });
  t.same(ids(page), [groceries, salary]);
  t.same(page.body.data.totals, { income: 1200.1, expenses: 545.25, net: 654.85 }, 'totals cover every page');

  t.same(ids(await list('type=expense&exclude_transfers=true')), [flat, groceries]);
  t.same(ids(await list('date_from=2026-01-06&date_to=2026-01-31')), [groceries]);
  t.same(ids(await list('date_to=2026-01-31&date_from=2026-01-31')), []);
  t.same(ids(await list(`wallet_ids=${bank}&exclude_transfers=true`)), [flat, loan]);
  t.same(ids(await list(`wallet_ids=${main}&wallet_ids=${bank}&exclude_transfers=true`)).length, 4, 'repeated keys');
  t.same(ids(await list(`category_ids=${food},${rent}`)), [flat, groceries], 'comma list');
  // explode: false in the spec, but openapi-fetch sends arrays exploded: both forms must select the same rows
  t.same(ids(await list(`category_ids=${food}&category_ids=${rent}`)), [flat, groceries], 'exploded list');
  t.same(ids(await list(`wallet_ids=${main},${bank}&exclude_transfers=true`)), ids(await list(`wallet_ids=${main}&wallet_ids=${bank}&exclude_transfers=true`)), 'comma-joined = exploded');
  t.same(ids(await list('intent=loan_received,gift')), [loan]);
  t.same(ids(await list('search=GROCER')), [groceries], 'case-insensitive');
  t.same(ids(await list('search=100%25')), [flat], 'a % is literal');
  t.same(ids(await list('search=$45.25')), [groceries], 'an amount');
  const totals = await list('type=income&search=salary');
  t.same(totals.body.data.totals, { income: 1000.1, expenses: 0, net: 1000.1 });

  await fx.setTimeZone(user.user.id, 'America/New_York');
  t.same(ids(await list('date_from=2026-02-01&exclude_transfers=true&date_to=2026-02-01')), [], "Feb 1 00:30 UTC is Jan 31 in New York");
  t.same(ids(await list('date_from=2026-01-31&date_to=2026-01-31')), [flat, loan]);

  for (const [query, field] of [['type=transfer', 'type'], ['date_from=01/02/2026', 'date_from'], ['wallet_ids=a', 'wallet_ids.0'], ['intent=fee', 'intent.0'], ['limit=0', 'limit']]) {
    const bad = await list(query);
    t.equal(bad.status, 422, query);
    t.ok(bad.body.errors[field], `${query}: ${JSON.stringify(bad.body.errors)}`);
  }

  const since = new Date(Date.now() - 1000).toISOString();
  await api.request('DELETE', `/api/v1/transactions/${groceries}`, { token: user.token });
  const feed = await list(`synced_since=${encodeURIComponent(since)}`);
  t.ok(feed.body.data.data.find((tx: { id: number }) => tx.id === groceries)?.deleted_at, 'the feed carries the tombstone');
  t.equal(feed.body.data.totals.expenses, 510, 'totals never count deleted rows and ignore synced_since');
  t.same(ids(await list('no_client_id=true&exclude_transfers=true')), [flat, loan, salary]);
});

t.test("another user's transaction is 404 on every operation", async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const made = await create(owner.token, { type: 'income', amount: 5, wallet_id: wallet });
  const id = made.body.data.id;
  t.equal((await api.request('GET', `/api/v1/transactions/${id}`, { token: stranger.token })).status, 404);
  const put = await update(stranger.token, id, 'income', { amount: 500 });
  t.equal(put.status, 404);
  t.equal(put.body.message, 'Transaction not found.');
  t.equal((await api.request('DELETE', `/api/v1/transactions/${id}`, { token: stranger.token })).status, 404);
  t.equal((await api.request('GET', '/api/v1/transactions/abc', { token: owner.token })).status, 404);
  t.equal(await fx.balance(wallet), '5.0000');
  const list = await api.request('GET', '/api/v1/transactions?limit=100', { token: stranger.token });
  t.notOk(list.body.data.data.some((tx: { id: number }) => tx.id === id));
});

t.test('no token is 401 on every transaction operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/transactions'],
    ['POST', '/api/v1/transactions'],
    ['GET', '/api/v1/transactions/1'],
    ['PUT', '/api/v1/transactions/1?type=income'],
    ['DELETE', '/api/v1/transactions/1'],
    ['POST', '/api/v1/transactions/1/files'],
    ['DELETE', '/api/v1/transactions/1/files/1'],
  ]) {
    const body = method === 'PUT' || (method === 'POST' && !url.endsWith('files')) ? { amount: 1 } : undefined;
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url}`);
  }
});
