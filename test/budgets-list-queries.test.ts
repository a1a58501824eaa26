// GET /budgets computes every listed budget's progress in a constant number of SQL queries:
// 4 budgets or 60 (of every period type, with and without targets and rollover), the count is
// the same, and each listed progress equals that budget's own progress endpoint. The manual
// exchange rates are read with the time zone (not once per currency pair), and the rollovers by
// the spending statement.
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
// These tests count the statements that build a page: a kept answer (server/body-cache.ts) builds none.
const api = await startApp(t, { now: () => clock, responseCacheBytes: 0 });
const fx = ledgerFixtures(api);

// Counts the statements run through the app's Kysely instance outside transactions (a list is one).
let statements = 0;
let texts: string[] = [];
const executor = api.db.getExecutor() as any;
const executeQuery = executor.executeQuery.bind(executor);
executor.executeQuery = (...args: unknown[]) => {
  statements++;
  texts.push((args[0] as { sql: string }).sql);
  return executeQuery(...args);
};

const user = await api.newUser();
const dollars = await fx.wallet(user.user.id, { currency: 'USD', balance: '100000' });
const euros = await fx.wallet(user.user.id, { currency: 'EUR', balance: '100000' });
const food = await fx.category(user.user.id);
const PERIODS = [
  { period_type: 'weekly' },
  { period_type: 'monthly', rollover_enabled: true },
  { period_type: 'yearly' },
  { period_type: 'custom', end_date: '2026-06-30' },
] as const;

let made = 0;
async function makeBudgets(count: number) {
  for (let i = 0; i < count; i++, made++) {
    const terms = PERIODS[made % PERIODS.length];
    const targets = [[], [{ type: 'category', id: food }], [{ type: 'wallet', id: euros }]][made % 3];
    const res = await api.request('POST', '/api/v1/budgets', {
      token: user.token,
      body: { name: `Budget ${made}`, amount: 100 + made, currency: made % 2 ? 'EUR' : 'USD', start_date: '2026-01-01', targets, ...terms },
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  }
}

async function spend(amount: number, wallet: number, categories: number[] = []) {
  const res = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'expense', amount, wallet_id: wallet, datetime: '2026-03-14T10:00:00Z', categories },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
}

async function listStatements(t: Test) {
  statements = 0;
  texts = [];
  const res = await api.request('GET', '/api/v1/budgets?limit=100', { token: user.token });
  t.equal(res.status, 200);
  return { count: statements, texts, budgets: res.body.data.data };
}

t.test('4 budgets or 60: the same statements, each progress its own endpoint answer', async (t) => {
  await spend(40, dollars, [food]);
  await spend(25, euros);
  await makeBudgets(4);
  const few = await listStatements(t);
  await makeBudgets(56);
  const many = await listStatements(t);
  t.equal(many.budgets.length, 60);
  t.equal(many.count, few.count, `${few.count} statements for 4 budgets and for 60`);
  for (const budget of many.budgets.slice(0, 8)) {
    const own = await api.request('GET', `/api/v1/budgets/${budget.id}/progress`, { token: user.token });
    t.same(budget.progress, own.body.data, `budget ${budget.name}`);
  }
  const spent = many.budgets.map((b: any) => Number(b.progress.net_spent));
  t.ok(spent.some((value: number) => value > 0), 'some budgets counted spending');
});

t.test('manual rates read once with the time zone, rollovers by the spending statement', async (t) => {
  const before = await listStatements(t);
  const conf = await api.request('POST', '/api/v1/configurations', {
    token: user.token,
    body: { key: 'manual-exchange-rates', type: 'string', value: '{"EUR-USD": 1.25}' },
  });
  t.equal(conf.status, 201);
  const rolling = before.budgets.find((b: any) => b.rollover_enabled && b.period_type === 'monthly');
  await api.db
    .insertInto('budget_period_states')
    .values({ user_id: user.user.id, budget_id: rolling.id, period_start: '2026-02-01', period_end: '2026-02-28', net_spent: '30', rollover_out: '42.5', closed_at: clock })
    .execute();
  const after = await listStatements(t);
  const reading = (table: string) => after.texts.filter((text) => text.includes(`"${table}"`) || new RegExp(`\\b${table}\\b`).test(text));
  t.equal(reading('configurations').length, 1, 'the configuration read once');
  t.equal(reading('exchange_rates').length, 0, 'no rate read: the manual rates cover both pairs');
  t.equal(reading('budget_period_states').length, 1, 'rollovers read by one statement');
  t.match(reading('budget_period_states')[0], /budget_day_sums/, 'the spending statement');
  t.ok(after.count < before.count, `${after.count} statements, ${before.count} without manual rates`);
  const listed = after.budgets.find((b: any) => b.id === rolling.id);
  t.not(Number(listed.progress.rollover_in), 0, 'the closed window rolls over');
  for (const budget of [listed, ...after.budgets.slice(0, 8)]) {
    const own = await api.request('GET', `/api/v1/budgets/${budget.id}/progress`, { token: user.token });
    t.same(budget.progress, own.body.data, `budget ${budget.name}`);
  }
});
