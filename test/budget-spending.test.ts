// Which transactions a budget counts, on a real database: records made through the create
// endpoints, then the SQL of db/budget-spending.ts called directly with the app's services.
import t from 'tap';
import {
  budgetSpending,
  countedTransactionsQuery,
  progressInWindow,
  progressOfBudget,
  ratesInto,
  rolloverInFor,
  userToday,
} from '../db/budget-spending.js';
import type { Budget } from '../db/schema.js';
import type { BudgetWindow } from '../domain/budget-periods.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

// Thursday 2026-01-15, 12:00 UTC.
let clock = new Date('2026-01-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);
const january: BudgetWindow = { start: '2026-01-01', end: '2026-01-31' };

type User = Awaited<ReturnType<typeof api.newUser>>;

async function ok(res: { status: number; body: any }, status = 201) {
  if (res.status !== status) throw new Error(`${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}
const post = (user: User, url: string, body: Record<string, unknown>, status = 201) => api.request('POST', url, { token: user.token, body }).then((res) => ok(res, status));

async function wallet(user: User, currency = 'USD'): Promise<number> {
  return (await post(user, '/api/v1/wallets', { name: `${currency} wallet`, type: 'bank', currency, balance: 100000 })).id;
}
async function category(user: User, type: 'income' | 'expense' = 'expense'): Promise<number> {
  return (await post(user, '/api/v1/categories', { name: `Category ${Math.random().toString(36).slice(2, 10)}`, type })).id;
}
async function expense(user: User, walletId: number, amount: number, datetime: string, extra: Record<string, unknown> = {}): Promise<number> {
  return (await post(user, '/api/v1/transactions', { type: 'expense', amount, wallet_id: walletId, datetime, ...extra })).id;
}
async function income(user: User, walletId: number, amount: number, datetime: string, extra: Record<string, unknown> = {}): Promise<number> {
  return (await post(user, '/api/v1/transactions', { type: 'income', amount, wallet_id: walletId, datetime, ...extra })).id;
}
async function refund(user: User, walletId: number, amount: number, datetime: string, of: number | null): Promise<number> {
  const id = await income(user, walletId, amount, datetime);
  await post(user, `/api/v1/transactions/${id}/refund`, of === null ? {} : { original_transaction_id: of }, 200);
  return id;
}
async function setting(user: User, key: string, value: string) {
  await post(user, '/api/v1/configurations', { key, type: 'string', value });
}

/** A budget row written straight to the table (the budget endpoints are another module's). */
async function budget(user: User, targets: { category?: number[]; group?: number[]; wallet?: number[] } = {}, fields: Partial<Budget> = {}): Promise<Budget> {
  const row = await api.db
    .insertInto('budgets')
    .values({
      user_id: user.user.id,
      name: 'Budget',
      slug: `budget-${Math.random().toString(36).slice(2, 10)}`,
      amount: '1000.0000',
      currency: 'USD',
      period_type: 'monthly',
      start_date: '2025-01-01',
      ...(fields as object),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const rows = [
    ...(targets.category ?? []).map((id) => ({ target_type: 'category' as const, category_id: id })),
    ...(targets.group ?? []).map((id) => ({ target_type: 'group' as const, group_id: id })),
    ...(targets.wallet ?? []).map((id) => ({ target_type: 'wallet' as const, wallet_id: id })),
  ];
  if (rows.length) await api.db.insertInto('budget_targets').values(rows.map((r) => ({ ...r, user_id: user.user.id, budget_id: row.id }))).execute();
  return row;
}

const spending = (b: Budget, window = january) => budgetSpending(api.db, b, window);

t.test('each expense counts once however many targets match; other users, transfer legs and incomes never', async (t) => {
  const owner = await api.newUser();
  const stranger = await api.newUser();
  const [usd, other] = [await wallet(owner), await wallet(owner)];
  const [food, fun, unrelated] = [await category(owner), await category(owner), await category(owner)];
  const group = await fx.group(owner.user.id);

  // Matches all four targets: counted once.
  await expense(owner, usd, 100, '2026-01-10T10:00:00Z', { categories: [food, fun], group_id: group });
  // Matches the group only, the category only, the wallet only.
  await expense(owner, other, 20, '2026-01-11T10:00:00Z', { group_id: group });
  await expense(owner, other, 3, '2026-01-11T11:00:00Z', { categories: [fun, unrelated] });
  await expense(owner, usd, 0.5, '2026-01-12T10:00:00Z');
  // Matches nothing.
  await expense(owner, other, 7000, '2026-01-12T10:00:00Z', { categories: [unrelated] });
  // Incomes never count, even matching every target.
  await income(owner, usd, 900, '2026-01-13T10:00:00Z', { group_id: group });
  // A transfer out of the target wallet: its legs never count.
  await post(owner, '/api/v1/transfer', { amount: 250, from_wallet_id: usd, to_wallet_id: other, datetime: '2026-01-14T10:00:00Z' });
  // Another user's expenses.
  const strangerWallet = await wallet(stranger);
  await expense(stranger, strangerWallet, 555, '2026-01-10T10:00:00Z');

  const targeted = await budget(owner, { category: [food, fun], group: [group], wallet: [usd] });
  t.same(await spending(targeted), [{ currency: 'USD', gross: '123.5000', refunds: '0' }]);

  const everything = await budget(owner);
  t.same(await spending(everything), [{ currency: 'USD', gross: '7123.5000', refunds: '0' }], 'no targets: all the expenses, still no legs or incomes');

  const strangersBudget = await budget(stranger);
  t.same(await spending(strangersBudget), [{ currency: 'USD', gross: '555.0000', refunds: '0' }]);

  const walletOnly = await budget(owner, { wallet: [usd] });
  t.same(await spending(walletOnly), [{ currency: 'USD', gross: '100.5000', refunds: '0' }], 'the wallet target alone');

  const listed = await (await countedTransactionsQuery(api.db, targeted, january)).execute();
  t.same(listed.map((row) => [row.type, row.amount, row.currency]), [
    ['expense', '0.5000', 'USD'],
    ['expense', '3.0000', 'USD'],
    ['expense', '20.0000', 'USD'],
    ['expense', '100.0000', 'USD'],
  ], 'the list holds the same rows, newest first, each once');
});

t.test('refunds of counted expenses are subtracted; deleted transactions are left out', async (t) => {
  const owner = await api.newUser();
  const usd = await wallet(owner);
  const food = await category(owner);
  const counted = await expense(owner, usd, 80, '2026-01-05T10:00:00Z', { categories: [food] });
  const outside = await expense(owner, usd, 60, '2026-01-05T10:00:00Z');
  const lastMonth = await expense(owner, usd, 45, '2025-12-20T10:00:00Z', { categories: [food] });
  const refunded = await refund(owner, usd, 30, '2026-01-08T10:00:00Z', counted);
  await refund(owner, usd, 10, '2026-01-08T10:00:00Z', outside); // of an expense the budget does not count
  await refund(owner, usd, 5, '2026-01-08T10:00:00Z', null); // of no expense
  await refund(owner, usd, 15, '2026-01-08T10:00:00Z', lastMonth); // of an expense of another window
  await refund(owner, usd, 12, '2026-02-02T10:00:00Z', counted); // dated after the window
  const gone = await expense(owner, usd, 999, '2026-01-06T10:00:00Z', { categories: [food] });
  t.equal((await api.request('DELETE', `/api/v1/transactions/${gone}`, { token: owner.token })).status, 200);

  const foodBudget = await budget(owner, { category: [food] });
  t.same(await spending(foodBudget), [{ currency: 'USD', gross: '80.0000', refunds: '30.0000' }]);
  const listed = await (await countedTransactionsQuery(api.db, foodBudget, january)).execute();
  t.same(listed.map((row) => [row.id, row.type]), [[refunded, 'income'], [counted, 'expense']], 'the counted refund is listed with its expense');

  const everything = await budget(owner);
  t.same(await spending(everything), [{ currency: 'USD', gross: '140.0000', refunds: '40.0000' }], 'all expenses: both refunds of January expenses');

  // A deleted refund no longer counts; a refund of a deleted expense neither.
  await api.request('DELETE', `/api/v1/transactions/${refunded}`, { token: owner.token });
  t.same(await spending(foodBudget), [{ currency: 'USD', gross: '80.0000', refunds: '0' }]);
  await api.request('DELETE', `/api/v1/transactions/${outside}`, { token: owner.token });
  t.same(await spending(everything), [{ currency: 'USD', gross: '80.0000', refunds: '0' }]);

  // Refunds larger than the spending: net_spent stays at 0.
  await refund(owner, usd, 500, '2026-01-09T10:00:00Z', counted);
  const progress = await progressInWindow(api.db, api.app.services, foodBudget, january, '2026-01-15');
  t.same([progress.gross_spent, progress.refunds, progress.net_spent], [80, 500, 0]);
});

t.test('window edges are inclusive local days in the user time zone', async (t) => {
  const utcUser = await api.newUser();
  const usdUtc = await wallet(utcUser);
  for (const [amount, at] of [
    [1, '2025-12-31T23:59:59Z'],
    [10, '2026-01-01T00:00:00Z'],
    [100, '2026-01-31T23:59:59Z'],
    [1000, '2026-02-01T00:00:00Z'],
  ] as const) {
    await expense(utcUser, usdUtc, amount, at);
  }
  t.same(await spending(await budget(utcUser)), [{ currency: 'USD', gross: '110.0000', refunds: '0' }]);

  const tokyoUser = await api.newUser();
  await setting(tokyoUser, 'timezone', 'Asia/Tokyo'); // UTC+9
  const usdTokyo = await wallet(tokyoUser);
  for (const [amount, at] of [
    [1, '2025-12-31T14:59:59Z'], // 23:59:59 on 31 Dec in Tokyo
    [10, '2025-12-31T15:00:00Z'], // midnight on 1 Jan in Tokyo
    [100, '2026-01-31T14:59:59Z'],
    [1000, '2026-01-31T15:00:00Z'], // already 1 Feb in Tokyo
  ] as const) {
    await expense(tokyoUser, usdTokyo, amount, at);
  }
  t.same(await spending(await budget(tokyoUser)), [{ currency: 'USD', gross: '110.0000', refunds: '0' }]);
  t.equal(await userToday(api.db, tokyoUser.user.id, new Date('2026-01-31T15:30:00Z')), '2026-02-01');
  t.equal(await userToday(api.db, utcUser.user.id, new Date('2026-01-31T15:30:00Z')), '2026-01-31', 'UTC when unset');
});

t.test('other currencies convert with the manual rate; one without a rate makes the progress partial', async (t) => {
  const owner = await api.newUser();
  const [usd, eur, xts] = [await wallet(owner, 'USD'), await wallet(owner, 'EUR'), await wallet(owner, 'XTS')];
  await setting(owner, 'manual-exchange-rates', '{"EUR-USD": 1.25}');
  await expense(owner, usd, 100, '2026-01-05T10:00:00Z');
  const euroExpense = await expense(owner, eur, 40, '2026-01-06T10:00:00Z');
  await refund(owner, eur, 4, '2026-01-07T10:00:00Z', euroExpense);
  const b = await budget(owner, { wallet: [usd, eur] });
  t.same(await spending(b), [
    { currency: 'EUR', gross: '40.0000', refunds: '4.0000' },
    { currency: 'USD', gross: '100.0000', refunds: '0' },
  ]);
  const rates = await ratesInto(api.db, api.app.services, owner.user.id, 'USD', ['EUR', 'USD', 'XTS']);
  t.equal(rates.get('USD'), '1');
  t.equal(rates.get('EUR'), '1.25', 'the manual rate wins over the stored one');
  t.equal(rates.get('XTS'), null, 'no rate known');

  let progress = await progressOfBudget(api.db, api.app.services, b, clock);
  t.match(progress, { period_start: '2026-01-01', period_end: '2026-01-31', gross_spent: 150, refunds: 5, net_spent: 145, partial: false, unconverted_currencies: [] });

  await expense(owner, xts, 5000, '2026-01-08T10:00:00Z');
  const all = await budget(owner);
  progress = await progressOfBudget(api.db, api.app.services, all, clock);
  t.match(progress, { gross_spent: 150, net_spent: 145, partial: true, unconverted_currencies: ['XTS'] }, 'the XTS expense is left out');

  // A euro budget: USD converts with the reverse manual rate (1 / 1.25).
  const euros = await budget(owner, { wallet: [usd, eur] }, { currency: 'EUR' });
  progress = await progressOfBudget(api.db, api.app.services, euros, clock);
  t.match(progress, { gross_spent: 120, refunds: 4, net_spent: 116, partial: false });
});

t.test('progress of the current window with rollover from the closed window before it', async (t) => {
  const owner = await api.newUser();
  const usd = await wallet(owner);
  await expense(owner, usd, 400, '2026-01-03T10:00:00Z');
  await expense(owner, usd, 999, '2025-12-03T10:00:00Z');
  const plain = await budget(owner, {}, { amount: '500' });
  const rolling = await budget(owner, {}, { amount: '500', rollover_enabled: true });
  const state = (b: Budget, period_start: string, period_end: string, rollover_out: string, closed = true) =>
    api.db
      .insertInto('budget_period_states')
      .values({ user_id: owner.user.id, budget_id: b.id, period_start, period_end, net_spent: '0', rollover_in: '0', rollover_out, closed_at: closed ? new Date() : null })
      .execute();
  await state(rolling, '2025-11-01', '2025-11-30', '75');
  t.equal(await rolloverInFor(api.db, rolling, january), '75.0000', 'the latest closed window before this one');
  await state(rolling, '2025-12-01', '2025-12-31', '-200');
  await state(plain, '2025-12-01', '2025-12-31', '300');
  t.equal(await rolloverInFor(api.db, rolling, january), '-200.0000');
  t.equal(await rolloverInFor(api.db, plain, january), '0', 'rollover disabled');
  await state(rolling, '2026-01-01', '2026-01-31', '999', false);
  t.equal(await rolloverInFor(api.db, rolling, { start: '2026-02-01', end: '2026-02-28' }), '-200.0000', 'an unclosed state does not count');

  const progress = await progressOfBudget(api.db, api.app.services, rolling, clock);
  t.match(progress, { period_start: '2026-01-01', net_spent: 400, rollover_in: -200, effective_limit: 300, remaining: -100, status: 'over_budget' });
  // 15 January: 400 / 15 × 31 = 826.6667
  t.match(await progressOfBudget(api.db, api.app.services, plain, clock), { effective_limit: 500, projected_spend: 826.6667, percent_used: 80, status: 'forecast_breach' });
  clock = new Date('2026-01-02T12:00:00Z');
  t.match(await progressOfBudget(api.db, api.app.services, plain, clock), { projected_spend: 400, status: 'near_limit' }, 'first days: projection = net');
  clock = new Date('2026-01-15T12:00:00Z');
});
