// No network call inside a database transaction: the exchange-rate provider is a fake that
// records whether any database transaction of the app was open when it was called. Writes that
// convert budget spending inside their transaction (an expense alerting a budget in another
// currency, closing a budget period) resolve their rates before the transaction opens.
import t from 'tap';
import { Decimal } from '../domain/money.js';
import type { RatesProvider } from '../server/rate-providers.js';
import { createRateService } from '../server/rates.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);

// Counts the app's open database transactions (handlers and jobs share this Kysely instance).
let openTransactions = 0;
const beginTransaction = api.db.transaction.bind(api.db);
(api.db as any).transaction = () => {
  const builder = beginTransaction();
  return {
    execute: async (work: (trx: unknown) => Promise<unknown>) => {
      openTransactions++;
      try {
        return await builder.execute(work as any);
      } finally {
        openTransactions--;
      }
    },
  };
};

const calls: Array<{ base: string; insideTransaction: boolean }> = [];
const provider: RatesProvider = {
  name: 'fake',
  storesRates: true,
  async latest(base) {
    calls.push({ base, insideTransaction: openTransactions > 0 });
    return base === 'EUR' ? { base, date: '2026-03-15', rates: new Map([['USD', new Decimal('2')]]) } : undefined;
  },
};
api.app.services.rates = createRateService({ provider, ttlSeconds: 3600 });

async function userWithEuroWallet() {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { currency: 'EUR', balance: '1000' });
  const budget = async (body: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/budgets', {
      token: user.token,
      body: { name: 'Spending', amount: 100, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', forecast_alerts_enabled: false, ...body },
    });
    t.equal(res.status, 201);
    return res.body.data.id as number;
  };
  return { user, wallet, budget };
}

t.test('an expense alerting a USD budget from a EUR wallet fetches the rate before its transaction', async (t) => {
  calls.length = 0;
  await api.db.deleteFrom('exchange_rates').execute();
  const { user, wallet, budget } = await userWithEuroWallet();
  const budgetId = await budget({});
  const res = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'expense', amount: 60, wallet_id: wallet, datetime: '2026-03-10T10:00:00Z' },
  });
  t.equal(res.status, 201);
  t.ok(calls.length > 0, 'the provider was asked for the EUR rate');
  t.same(calls.filter((call) => call.insideTransaction), [], 'never while a transaction was open');
  // 60 EUR at 2 USD = 120 USD of a 100 USD budget: the alert used the fetched rate (past 100% at
  // once, the threshold crossing is recorded beside the excess)
  const alerts = await api.db.selectFrom('budget_alerts').select('kind').where('budget_id', '=', budgetId).execute();
  t.same(alerts.map((a) => a.kind).sort(), ['over_budget', 'threshold']);
});

t.test('closing a budget period converts with a rate fetched before its transaction', async (t) => {
  const { user, wallet, budget } = await userWithEuroWallet();
  const budgetId = await budget({ rollover_enabled: true });
  const spent = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'expense', amount: 10, wallet_id: wallet, datetime: '2026-03-05T10:00:00Z' },
  });
  t.equal(spent.status, 201);
  calls.length = 0;
  await api.db.deleteFrom('exchange_rates').execute();
  api.app.services.rates = createRateService({ provider, ttlSeconds: 3600 }); // nothing remembered
  const res = await api.request('POST', `/api/v1/budgets/${budgetId}/close-period`, { token: user.token });
  t.equal(res.status, 200);
  t.ok(calls.length > 0, 'the provider was asked');
  t.same(calls.filter((call) => call.insideTransaction), [], 'never while a transaction was open');
  t.equal(Number(res.body.data.net_spent), 20, '10 EUR counted as 20 USD');
});
