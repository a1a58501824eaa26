// GET /stats over a known ledger, checked against totals computed by hand.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const NOW = new Date('2026-11-19T12:00:00Z'); // a Thursday
const api = await startApp(t, { now: () => NOW });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const userId: number = owner.user.id;

async function category(user: number, name: string, type: 'income' | 'expense') {
  const slug = name.toLowerCase();
  return (await api.db.insertInto('categories').values({ user_id: user, name, slug, type }).returning('id').executeTakeFirstOrThrow()).id;
}
async function party(user: number, name: string) {
  return (await api.db.insertInto('parties').values({ user_id: user, name }).returning('id').executeTakeFirstOrThrow()).id;
}
interface Entry {
  wallet: number;
  type: 'income' | 'expense';
  amount: string;
  at: string;
  category?: number;
  party?: number;
  intent?: 'regular' | 'fee' | 'gift' | 'loan_received';
  deleted?: boolean;
}
async function record(user: number, e: Entry) {
  const row = await api.db
    .insertInto('transactions')
    .values({
      user_id: user,
      wallet_id: e.wallet,
      type: e.type,
      amount: e.amount,
      datetime: new Date(e.at),
      party_id: e.party ?? null,
      intent: e.intent ?? 'regular',
      description: `${e.type} ${e.amount}`,
      deleted_at: e.deleted ? new Date(e.at) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (e.category) await api.db.insertInto('transaction_categories').values({ user_id: user, transaction_id: row.id, category_id: e.category }).execute();
  return row.id;
}

// The ledger: one USD wallet holding everything, a second that only receives a transfer.
const wallet = await fx.wallet(userId, { balance: '1234.5' });
const savings = await fx.wallet(userId);
const salary = await category(userId, 'Salary', 'income');
const rent = await category(userId, 'Rent', 'expense');
const food = await category(userId, 'Food', 'expense');
const employer = await party(userId, 'Employer');
const landlord = await party(userId, 'Landlord');
await record(userId, { wallet, type: 'income', amount: '1000', at: '2026-11-02T10:00:00Z', category: salary, party: employer });
const rentId = await record(userId, { wallet, type: 'expense', amount: '300.50', at: '2026-11-03T10:00:00Z', category: rent, party: landlord });
await record(userId, { wallet, type: 'expense', amount: '49.25', at: '2026-11-03T18:00:00Z', category: food, party: landlord });
await record(userId, { wallet, type: 'expense', amount: '0.25', at: '2026-11-05T09:00:00Z', intent: 'fee' });
// the previous window (2026-10-13 … 2026-10-31), outside both windows, deleted, transfer legs
await record(userId, { wallet, type: 'income', amount: '500', at: '2026-10-20T10:00:00Z' });
await record(userId, { wallet, type: 'expense', amount: '100', at: '2026-10-25T10:00:00Z' });
await record(userId, { wallet, type: 'expense', amount: '999', at: '2026-09-01T10:00:00Z' });
await record(userId, { wallet, type: 'expense', amount: '77', at: '2026-11-04T10:00:00Z', deleted: true });
const transfer = await fx.transfer(userId, wallet, savings, '20');
await api.db.updateTable('transactions').set({ datetime: new Date('2026-11-04T10:00:00Z') }).where('transfer_id', '=', transfer.transferId).execute();

const RANGE = 'start_date=2026-11-01&end_date=2026-11-19';
const stats = (query: string, token = owner.token) => api.request('GET', `/api/v1/stats?${query}`, { token });

t.test('overview and period summary of the range, in USD', async (t) => {
  const res = await stats(RANGE);
  t.equal(res.status, 200);
  const data = res.body.data;
  t.match(data, { currency: 'USD', partial: false, unconverted_currencies: [] });
  t.same(data.overview, {
    total_balance: 1234.5, // 1234.5 − 20 + 20 (transfer) + Main Wallet 0
    net_worth: 1234.5,
    total_income: 1000,
    total_expenses: 350, // 300.50 + 49.25 + 0.25: not the deleted row, nor the transfer leg
    net_cash_flow: 650,
    avg_monthly_income: 1000,
    avg_monthly_expenses: 350,
    savings_rate: 65,
  });
  // 19 days, 18.5 elapsed: 1000 / 18.5 × 19 and 350 / 18.5 × 19
  t.same(data.period_summary, { start_date: '2026-11-01', end_date: '2026-11-19', days_remaining: 0.5, projected_income: 1027.03, projected_expenses: 359.46 });
});

t.test('activity and comparisons', async (t) => {
  const { data } = (await stats(RANGE)).body;
  t.same(data.activity, {
    transaction_count: 4,
    unique_parties: 2,
    average_income_transaction: 1000,
    average_expense_transaction: 116.67, // 350 / 3
    frequency: { per_day: 0.21, per_week: 1.47, per_month: 4 }, // 4/19, 4/(19/7), 4/max(1, 19/30)
    busiest_day: 'Tuesday',
    most_frequent_party: { id: landlord, name: 'Landlord', transaction_count: 2 },
    most_used_category: { id: salary, name: 'Salary', transaction_count: 1 },
  });
  // previous window: income 500, expenses 100, savings rate 80 (now 65)
  t.same(data.comparisons.previous_period, { income_change_percent: 100, expense_change_percent: 250, savings_rate_change: -18.75 });
});

t.test('categories, parties and cash flow', async (t) => {
  const { data } = (await stats(RANGE)).body;
  t.same(data.top_categories.expenses, [
    { id: rent, name: 'Rent', amount: 300.5, transaction_count: 1, percentage: 85.86 },
    { id: food, name: 'Food', amount: 49.25, transaction_count: 1, percentage: 14.07 },
    { id: null, name: 'Uncategorized', amount: 0.25, transaction_count: 1, percentage: 0.07 },
  ]);
  t.same(data.top_categories.income, [{ id: salary, name: 'Salary', amount: 1000, transaction_count: 1, percentage: 100 }]);
  t.same(data.category_distribution, { essential: 99.93, non_essential: 0.07, savings: 0, investments: 0 });
  t.same(data.charts.party_spending, [
    { id: landlord, name: 'Landlord', amount: 349.75, transaction_count: 2, percentage: 99.93 },
    { id: null, name: 'No party', amount: 0.25, transaction_count: 1, percentage: 0.07 },
  ]);
  t.same(data.largest_transactions.expense, { id: rentId, amount: 300.5, description: 'expense 300.50', date: '2026-11-03', category: 'Rent' });
  t.same(data.spending_trends, { current_period: [{ date: '2026-11-01', amount: 350 }], previous_period: [{ date: '2026-10-01', amount: 100 }] });
  t.same(data.charts.monthly_cash_flow, [{ period: '2026-11', income: 1000, expense: 350, net: 650 }]);
  t.same(data.charts.expense_by_wallet, [{ wallet_id: wallet, wallet_name: 'Test wallet', amount: 350, transaction_count: 3, percentage: 100 }]);
  t.match(data.position, { earned_income: 1000, discretionary_spend: 350, cash_balance: 1234.5, total_net_worth: 1234.5, net_worth_delta: 650, gifts_received: 0 });

  const daily = (await stats(`${RANGE}&period=day&section=cashflow`)).body.data;
  t.same(daily.spending_trends.current_period, [
    { date: '2026-11-03', amount: 349.75 },
    { date: '2026-11-05', amount: 0.25 },
  ]);
});

t.test('income without a party is the "No party" bucket of the party charts, in the language asked for', async (t) => {
  const earner = await api.newUser();
  const account = await fx.wallet(earner.user.id);
  await record(earner.user.id, { wallet: account, type: 'income', amount: '2500', at: '2026-11-10T09:00:00Z', category: await category(earner.user.id, 'Salary', 'income') });
  const named: Record<string, string> = {
    '': 'No party',
    en: 'No party',
    'fr-FR,fr;q=0.9,en;q=0.5': 'Sans tiers',
    es: 'Sin contraparte',
    'de-DE': 'Ohne Gegenpartei',
    'pt-BR': 'Sem contraparte',
    it: 'Senza controparte',
    ja: 'No party',
  };
  for (const [language, name] of Object.entries(named)) {
    const res = await api.request('GET', `/api/v1/stats?${RANGE}`, { token: earner.token, headers: language ? { 'accept-language': language } : {} });
    t.same(res.body.data.charts.party_income, [{ id: null, name, amount: 2500, transaction_count: 1, percentage: 100 }], `Accept-Language ${language || '(none)'}`);
    t.same(res.body.data.charts.income_sources.map((c: { name: string }) => c.name), ['Salary'], 'the category chart names the category');
  }
  // without a language in the request (the mobile app sends none), the user's default-lang setting
  t.equal((await api.request('POST', '/api/v1/configurations', { token: earner.token, body: { key: 'default-lang', type: 'string', value: 'fr' } })).status, 201);
  for (const [language, name] of Object.entries({ '': 'Sans tiers', ja: 'Sans tiers', 'de-DE': 'Ohne Gegenpartei' })) {
    const res = await api.request('GET', `/api/v1/stats?${RANGE}&section=parties`, { token: earner.token, headers: language ? { 'accept-language': language } : {} });
    t.equal(res.body.data.charts.party_income[0].name, name, `default-lang fr, Accept-Language ${language || '(none)'}`);
  }
});

t.test('a section computes only its keys; wallet filter and presets', async (t) => {
  const overview = (await stats(`${RANGE}&section=overview`)).body.data;
  t.same(Object.keys(overview).sort(), ['currency', 'overview', 'partial', 'period_summary', 'unconverted_currencies']);
  const parties = (await stats(`${RANGE}&section=parties`)).body.data;
  t.same(Object.keys(parties.charts).sort(), ['party_income', 'party_spending']);

  const onlySavings = (await stats(`${RANGE}&wallet_ids=${savings}&section=overview`)).body.data;
  t.match(onlySavings.overview, { total_balance: 20, total_income: 0, total_expenses: 0, savings_rate: 0 });

  const month = (await stats('preset=current_month&start_date=2020-01-01')).body.data;
  t.match(month.period_summary, { start_date: '2026-11-01', end_date: '2026-11-19' });
  const allTime = (await stats('preset=all_time&section=overview')).body.data;
  t.match(allTime.overview, { total_income: 1500, total_expenses: 1449 }); // + 500, + 100 and 999
});

t.test('bad input is 422, no token is 401', async (t) => {
  const backwards = await stats('start_date=2026-11-10&end_date=2026-11-09');
  t.equal(backwards.status, 422);
  t.ok(backwards.body.errors.end_date);
  const strangersWallet = await fx.wallet(stranger.user.id);
  for (const ids of [`${strangersWallet}`, `${wallet},999999`]) {
    const res = await stats(`wallet_ids=${ids}`);
    t.equal(res.status, 422, ids);
    t.ok(res.body.errors.wallet_ids);
  }
  t.equal((await stats('section=nothing')).status, 422);
  t.equal((await stats('preset=yesterday')).status, 422);
  t.equal((await api.request('GET', '/api/v1/stats')).status, 401);
  const empty = (await stats('', stranger.token)).body.data;
  t.match(empty.overview, { total_income: 0, total_expenses: 0 });
  t.match(empty.activity, { transaction_count: 0, busiest_day: null, most_frequent_party: null });
});

t.test('two currencies: converted with the manual rate, an unknown currency makes the result partial', async (t) => {
  const user = await api.newUser();
  const id: number = user.user.id;
  await api.db
    .insertInto('configurations')
    .values({ user_id: id, key: 'manual-exchange-rates', type: 'string', value: JSON.stringify(JSON.stringify({ 'EUR-USD': 1.1 })) })
    .execute();
  const dollars = await fx.wallet(id, { currency: 'USD', balance: '10' });
  const euros = await fx.wallet(id, { currency: 'EUR', balance: '100' });
  await record(id, { wallet: dollars, type: 'income', amount: '100', at: '2026-11-10T10:00:00Z' });
  await record(id, { wallet: euros, type: 'expense', amount: '50', at: '2026-11-11T10:00:00Z' });
  await record(id, { wallet: euros, type: 'expense', amount: '12.3456', at: '2026-11-12T10:00:00Z' });

  const res = await stats(`${RANGE}&section=overview`, user.token);
  // 10 USD + 100 EUR × 1.1; expenses (50 + 12.3456) EUR × 1.1 = 68.58016 → 68.5802
  t.match(res.body.data, { currency: 'USD', partial: false, unconverted_currencies: [] });
  t.match(res.body.data.overview, { total_balance: 120, total_income: 100, total_expenses: 68.5802, net_cash_flow: 31.4198 });

  // in euros: the reverse of the manual rate (100 / 1.1 = 90.909090…)
  await api.db.insertInto('configurations').values({ user_id: id, key: 'default-currency', type: 'string', value: JSON.stringify('EUR') }).execute();
  const inEuros = (await stats(`${RANGE}&section=overview`, user.token)).body.data;
  t.match(inEuros, { currency: 'EUR', partial: false });
  t.match(inEuros.overview, { total_income: 90.9091, total_expenses: 62.3456 });

  // a wallet in a currency nobody knows a rate for
  const unknown = await fx.wallet(id, { currency: 'XXX', balance: '5' });
  await record(id, { wallet: unknown, type: 'expense', amount: '7', at: '2026-11-12T10:00:00Z' });
  const partial = (await stats(`${RANGE}&section=overview`, user.token)).body.data;
  t.match(partial, { currency: 'EUR', partial: true, unconverted_currencies: ['XXX'] });
  t.match(partial.overview, { total_expenses: 62.3456 });
});
