// GET /budgets computes every listed budget's progress in a constant number of SQL queries:
// 4 budgets or 60 (of every period type, with and without targets and rollover), the count is
// the same, and each listed progress equals that budget's own progress endpoint.
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);

// Counts the statements run through the app's Kysely instance outside transactions (a list is one).
let statements = 0;
const executor = api.db.getExecutor() as any;
const executeQuery = executor.executeQuery.bind(executor);
executor.executeQuery = (...args: unknown[]) => {
  statements++;
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
  const res = await api.request('GET', '/api/v1/budgets?limit=100', { token: user.token });
  t.equal(res.status, 200);
  return { count: statements, budgets: res.body.data.data };
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
