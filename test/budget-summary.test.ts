// The budget summary (migration 023) after every kind of write: after each step its rows equal
// a from-scratch recount over the raw rows, and each budget's spending read from it equals the
// raw scan's (the reference) for budgets of every kind of target (several categories, so the
// de-duplication, and mixed kinds), over windows of a week, a month, a year and a past range.
import t, { type Test } from 'tap';
import { Decimal } from '../domain/money.js';
import { budgetSpending, type BudgetRef } from '../db/budget-spending.js';
import type { CurrencySpending } from '../domain/budget-progress.js';
import type { BudgetWindow } from '../domain/budget-periods.js';
import { startApp } from './helpers/harness.js';
import { budgetSummaryOffRecount, budgetSummaryZone } from './helpers/budget-summary-invariant.js';
import { summaryWrites } from './helpers/summary-writes.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const NOW = new Date('2026-11-19T12:00:00Z');
const api = await startApp(t, { now: () => NOW });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const userId: number = owner.user.id;
let zone = 'UTC';

const { post, put, importCsv } = summaryWrites(api, owner.token);
const create = (body: Record<string, unknown>) => post('/api/v1/transactions', { wallet_id: usd, type: 'expense', datetime: '2026-11-10T10:00:00Z', ...body });

await post('/api/v1/configurations', { key: 'wallets-allow-negative-balance', type: 'bool', value: true });
const usd = await fx.mainWallet(userId);
const savings = (await post('/api/v1/wallets', { name: 'Savings', type: 'bank', currency: 'USD', balance: 1000 })).id as number;
const euro = (await post('/api/v1/wallets', { name: 'Euro', type: 'bank', currency: 'EUR', balance: 1000 })).id as number;
const [food, rent, fun] = [await fx.category(userId), await fx.category(userId), await fx.category(userId)];
const home = await fx.group(userId);
const trips = (await post('/api/v1/groups', { name: 'Trips' })).id as number;

const TARGETS: Record<string, Array<{ type: string; id: number }>> = {
  none: [],
  food: [{ type: 'category', id: food }],
  'food+rent': [{ type: 'category', id: food }, { type: 'category', id: rent }],
  'food+rent+fun': [{ type: 'category', id: food }, { type: 'category', id: rent }, { type: 'category', id: fun }],
  savings: [{ type: 'wallet', id: savings }],
  home: [{ type: 'group', id: home }],
  mixed: [{ type: 'wallet', id: euro }, { type: 'group', id: trips }, { type: 'category', id: food }, { type: 'category', id: rent }],
};
const budgets: Array<{ name: string; ref: BudgetRef }> = [];
for (const [name, targets] of Object.entries(TARGETS)) {
  const made = await post('/api/v1/budgets', { name, amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2025-01-01', targets });
  budgets.push({ name, ref: (await api.db.selectFrom('budgets').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow()) as BudgetRef });
}
const WINDOWS: Record<string, BudgetWindow> = {
  week: { start: '2026-11-16', end: '2026-11-22' },
  month: { start: '2026-11-01', end: '2026-11-30' },
  year: { start: '2026-01-01', end: '2026-12-31' },
  past: { start: '2026-09-01', end: '2026-10-31' },
};

const normalised = (rows: CurrencySpending[]) =>
  rows.map((r) => `${r.currency} ${new Decimal(r.gross).toFixed(4)} ${new Decimal(r.refunds).toFixed(4)}`).sort();

/** The summary equals its recount, and every budget's spending from it equals the raw scan's. */
async function summaryAgreesWithRows(t: Test, step: string) {
  t.same(await budgetSummaryOffRecount(api, userId, zone), [], `${step}: summary rows equal the recount`);
  t.equal(await budgetSummaryZone(api, userId), zone, `${step}: kept in ${zone}, so read`);
  for (const { name, ref } of budgets) {
    for (const [label, window] of Object.entries(WINDOWS)) {
      const summary = await budgetSpending(api.db, ref, window, zone);
      const raw = await budgetSpending(api.db, ref, window, zone, 'raw');
      t.same(normalised(summary), normalised(raw), `${step}, ${name}, ${label}`);
    }
  }
}

t.test('creates with one, two and three categories, groups and wallets', async (t) => {
  await create({ amount: 12.5, categories: [rent, food] });
  await create({ amount: 7, datetime: '2026-11-19T08:00:00Z', categories: [food] });
  await create({ amount: 3, datetime: '2026-11-19T23:30:00Z', categories: [food, rent, fun], group_id: home });
  await create({ amount: 4, datetime: '2026-11-25T10:00:00Z', group_id: trips });
  await create({ amount: 30, wallet_id: euro, datetime: '2026-11-18T23:30:00Z', categories: [food, fun] });
  await create({ amount: 8.25, wallet_id: savings, datetime: '2026-10-02T10:00:00Z', categories: [rent, fun], group_id: trips });
  await create({ type: 'income', amount: 1000, datetime: '2026-10-15T10:00:00Z' });
  await summaryAgreesWithRows(t, 'creates');
});

t.test('edits of amount, date, wallet, type, group and categories', async (t) => {
  const id = (await create({ amount: 20, categories: [food, rent] })).id as number;
  await put(id, { amount: 25.75 });
  await summaryAgreesWithRows(t, 'amount');
  await put(id, { datetime: '2026-09-02T10:00:00Z' });
  await summaryAgreesWithRows(t, 'date');
  await put(id, { wallet_id: savings });
  await summaryAgreesWithRows(t, 'wallet');
  await put(id, { group_id: home });
  await summaryAgreesWithRows(t, 'group');
  await put(id, { categories: [rent, food, fun] });
  await summaryAgreesWithRows(t, 'three categories');
  await put(id, { categories: [fun] });
  await summaryAgreesWithRows(t, 'one category');
  await put(id, { categories: [] });
  await summaryAgreesWithRows(t, 'no category');
  await put(id, { type: 'income' });
  await summaryAgreesWithRows(t, 'type');
  await put(id, { type: 'expense', categories: [food, rent] });
  const linked = (await create({ amount: 11, categories: [food] })).id as number;
  await api.db.insertInto('transaction_categories').values({ user_id: userId, transaction_id: linked, category_id: rent }).execute();
  await summaryAgreesWithRows(t, 'link added on its own');
  await api.db.deleteFrom('transaction_categories').where('transaction_id', '=', linked).where('category_id', '=', food).execute();
  await summaryAgreesWithRows(t, 'link removed on its own');
});

t.test('soft delete and restore', async (t) => {
  const id = (await create({ amount: 40, categories: [food, rent], group_id: home })).id as number;
  t.equal((await api.request('DELETE', `/api/v1/transactions/${id}`, { token: owner.token })).status, 200);
  await summaryAgreesWithRows(t, 'soft delete');
  await api.db.updateTable('transactions').set({ deleted_at: null }).where('id', '=', id).execute();
  await summaryAgreesWithRows(t, 'restore');
});

t.test('transfers stay out; refunds and imports', async (t) => {
  await post('/api/v1/transfer', { amount: 50, from_wallet_id: usd, to_wallet_id: savings, datetime: '2026-11-12T10:00:00Z' });
  await summaryAgreesWithRows(t, 'transfer');
  const expense = (await create({ amount: 60, categories: [food, rent] })).id as number;
  const income = (await create({ type: 'income', amount: 20, datetime: '2026-11-13T10:00:00Z' })).id as number;
  await post(`/api/v1/transactions/${income}/refund`, { original_transaction_id: expense });
  const earlier = (await create({ amount: 15, datetime: '2026-10-20T10:00:00Z', group_id: home })).id as number;
  const late = (await create({ type: 'income', amount: 5, datetime: '2026-11-14T10:00:00Z' })).id as number;
  await post(`/api/v1/transactions/${late}/refund`, { original_transaction_id: earlier });
  await summaryAgreesWithRows(t, 'refunds');

  await importCsv(t, userId);
  await summaryAgreesWithRows(t, 'import');
});

t.test('a time zone change rebuilds the rows in the new zone', async (t) => {
  await post('/api/v1/configurations', { key: 'timezone', type: 'string', value: 'Pacific/Kiritimati' }); // UTC+14
  zone = 'Pacific/Kiritimati';
  await summaryAgreesWithRows(t, 'UTC+14');
  await post('/api/v1/configurations', { key: 'timezone', type: 'string', value: 'America/New_York' });
  zone = 'America/New_York';
  await summaryAgreesWithRows(t, 'New York');
  await create({ amount: 5, datetime: '2026-11-01T02:00:00Z', categories: [food, rent] }); // 31 October in New York
  await summaryAgreesWithRows(t, 'a write in New York');
  t.equal((await api.request('DELETE', '/api/v1/configurations/timezone', { token: owner.token })).status, 200);
  zone = 'UTC';
  await summaryAgreesWithRows(t, 'back to UTC');
});

t.test('a summary kept in another zone is not read', async (t) => {
  const [{ ref }] = budgets;
  const tokyo = await budgetSpending(api.db, ref, WINDOWS.month, 'Asia/Tokyo');
  t.same(normalised(tokyo), normalised(await budgetSpending(api.db, ref, WINDOWS.month, 'Asia/Tokyo', 'raw')), 'the raw rows answer');
});

t.test('account deletion leaves no summary rows', async (t) => {
  const leaving = await api.newUser();
  const wallet = await fx.mainWallet(leaving.user.id);
  const [a, b] = [await fx.category(leaving.user.id), await fx.category(leaving.user.id)];
  const negative = { key: 'wallets-allow-negative-balance', type: 'bool', value: true };
  t.equal((await api.request('POST', '/api/v1/configurations', { token: leaving.token, body: negative })).status, 201);
  const res = await api.request('POST', '/api/v1/transactions', { token: leaving.token, body: { type: 'expense', amount: 5, wallet_id: wallet, categories: [a, b] } });
  t.equal(res.status, 201);
  const rowsOf = async () =>
    Number((await api.db.selectFrom('budget_day_sums' as any).select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', leaving.user.id).executeTakeFirstOrThrow()).n) +
    Number((await api.db.selectFrom('budget_multi_links' as any).select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', leaving.user.id).executeTakeFirstOrThrow()).n);
  t.equal(await rowsOf(), 5, 'category 0, two categories, two multi links');
  t.equal((await api.request('DELETE', '/api/v1/account', { token: leaving.token, body: { confirm_delete: true } })).status, 200);
  t.equal(await rowsOf(), 0);
  await summaryAgreesWithRows(t, 'another account deleted');
});
