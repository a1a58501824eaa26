// Races, in process, on whichever database the harness uses (on the embedded database requests
// are serialised; the end state is asserted all the same): double deletes of one transaction,
// one transfer and one wallet sent at once (one wins, the other is 404, money moves once), and
// two writes on different wallets that together, not alone, push a budget over its threshold
// (each write's alert check must see the other's committed spending: one alert, real numbers).
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);

const balance = async (walletId: number) => (await api.db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance;
const statuses = (responses: Array<{ status: number }>) => responses.map((r) => r.status).sort();

t.test('two deletes of one transaction at once: one 200, one 404, the balance reverted once', async (t) => {
  const { token, user } = await api.newUser();
  const wallet = await fx.wallet(user.id, { balance: '1000' });
  const ids: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const res = await api.request('POST', '/api/v1/transactions', { token, body: { type: 'expense', amount: 10 + i, wallet_id: wallet } });
    ids.push(res.body.data.id);
  }
  t.equal(await balance(wallet), '855.0000');
  const answers = await Promise.all(ids.flatMap((id) => [0, 1].map(() => api.request('DELETE', `/api/v1/transactions/${id}?type=expense`, { token }))));
  t.same(statuses(answers), [...Array(10).fill(200), ...Array(10).fill(404)], 'each transaction: one delete wins, the other finds it gone');
  t.equal(await balance(wallet), '1000.0000', 'each expense was reverted exactly once');
  t.same(await walletsOffLedger(api.db, user.id), []);
});

t.test('two deletes of one transfer at once: both legs reverted once', async (t) => {
  const { token, user } = await api.newUser();
  const from = await fx.wallet(user.id, { balance: '500' });
  const to = await fx.wallet(user.id, { balance: '0' });
  const transfer = (await api.request('POST', '/api/v1/transfer', { token, body: { amount: 120, from_wallet_id: from, to_wallet_id: to } })).body.data.id;
  const answers = await Promise.all([0, 1, 2].map(() => api.request('DELETE', `/api/v1/transfers/${transfer}`, { token })));
  t.same(statuses(answers), [200, 404, 404]);
  t.equal(await balance(from), '500.0000');
  t.equal(await balance(to), '0.0000');
  t.same(await walletsOffLedger(api.db, user.id), []);
});

t.test('transfers moved to other wallets while others are created between them: no deadlock, ledgers right', async (t) => {
  const { token, user } = await api.newUser();
  const wallets = [];
  for (let i = 0; i < 3; i += 1) wallets.push(await fx.wallet(user.id, { balance: '10000' }));
  const [a, b, c] = wallets;
  const moved: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    moved.push((await api.request('POST', '/api/v1/transfer', { token, body: { amount: 5, from_wallet_id: a, to_wallet_id: b } })).body.data.id);
  }
  // each update turns a→b into b→c (old wallets a, b; new b, c) while creates lock a then b
  const answers = await Promise.all([
    ...moved.map((id) => api.request('PUT', `/api/v1/transfers/${id}`, { token, body: { from_wallet_id: b, to_wallet_id: c } })),
    ...moved.map(() => api.request('POST', '/api/v1/transfer', { token, body: { amount: 1, from_wallet_id: a, to_wallet_id: b } })),
  ]);
  t.same(statuses(answers), [...Array(40).fill(200), ...Array(40).fill(201)].sort(), 'every update and create answered');
  t.same(await walletsOffLedger(api.db, user.id), []);
});

t.test('two deletes of one wallet at once: one 200, one 404', async (t) => {
  const { token, user } = await api.newUser();
  const doomed = await fx.wallet(user.id, { balance: '0' });
  const other = await fx.wallet(user.id, { balance: '300' });
  await api.request('POST', '/api/v1/transfer', { token, body: { amount: 100, from_wallet_id: other, to_wallet_id: doomed } });
  const answers = await Promise.all([0, 1].map(() => api.request('DELETE', `/api/v1/wallets/${doomed}`, { token })));
  t.same(statuses(answers), [200, 404]);
  const row = await api.db.selectFrom('wallets').select('deleted_at').where('id', '=', doomed).executeTakeFirstOrThrow();
  t.ok(row.deleted_at, 'the wallet is a tombstone');
  t.equal((await api.request('GET', `/api/v1/wallets/${doomed}`, { token })).status, 404);
  t.same(await walletsOffLedger(api.db, user.id), [], 'the wallets left hold their ledgers');
});

t.test('an expense and an edit on two wallets cross a budget threshold together: one alert, with the real numbers', async (t) => {
  for (let round = 0; round < 5; round += 1) {
    const { token, user } = await api.newUser();
    const cash = await fx.wallet(user.id, { balance: '10000' });
    const card = await fx.wallet(user.id, { balance: '10000' });
    const food = await fx.category(user.id);
    const budget = await api.request('POST', '/api/v1/budgets', {
      token,
      body: { name: 'Food', amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', forecast_alerts_enabled: false, targets: [{ type: 'category', id: food }] },
    });
    t.equal(budget.status, 201);
    const spent = await api.request('POST', '/api/v1/transactions', { token, body: { type: 'expense', amount: 300, wallet_id: card, categories: [food] } });
    const edited = spent.body.data;
    // 300 of 500 (60%); +60 alone is 72%, the edit to 350 alone is 70%; both together are 82% (threshold 80%)
    const [created, updated] = await Promise.all([
      api.request('POST', '/api/v1/transactions', { token, body: { type: 'expense', amount: 60, wallet_id: cash, categories: [food] } }),
      api.request('PUT', `/api/v1/transactions/${edited.id}?type=expense`, { token, body: { amount: 350, updated_at: new Date().toISOString() } }),
    ]);
    t.equal(created.status, 201);
    t.equal(updated.status, 200);
    const alerts = await api.db.selectFrom('notifications').select(['title', 'body']).where('user_id', '=', user.id).where('type', '=', 'alert').execute();
    t.equal(alerts.length, 1, `round ${round}: the crossing made together is alerted, once`);
    t.match(alerts[0]?.body ?? '', 'Food: 82% used — 410.00 of 500.00 USD', 'with the spending both writes add up to');
    t.same(await walletsOffLedger(api.db, user.id), []);
  }
});
