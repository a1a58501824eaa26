// transfer_to_wallet on a bank sync: the two accounts' lines of one move between the user's own
// accounts are booked as one transfer (the first line books it, the other account's line is
// paired with it), through the sync's import pipeline (the whole-session confirm's batch writer).
import t from 'tap';
import { loadConfig } from '../server/config.js';
import { startApp } from './helpers/harness.js';
import { fakeAccount, startSimpleFinBridge } from './helpers/simplefin-bridge.js';
import { TEST_ENV } from './helpers/test-environment.js';

const bridge = await startSimpleFinBridge();
t.teardown(() => bridge.close());
const base = loadConfig(TEST_ENV);
const api = await startApp(t, { webhooks: { ...base.webhooks, allowedNetworks: ['127.0.0.1'] } });
const user = await api.newUser();
const daysAgo = (n: number) => Math.floor(Date.now() / 1000) - n * 86_400;

t.test('a sync books a move between two linked accounts once: one transfer, both lines naming its legs', async (t) => {
  bridge.accounts = [
    fakeAccount('ACC-1', [{ id: 'T1', posted: daysAgo(3), amount: '-300.00', description: 'TRANSFER TO SAVINGS', payee: 'Own savings' }], '700.00'),
    fakeAccount('ACC-2', [{ id: 'T2', posted: daysAgo(2), amount: '300.00', description: 'TRANSFER FROM CHECKING', payee: 'Own checking' }], '300.00'),
  ];
  const connected = await api.request('POST', '/api/v1/bank-connections', { token: user.token, body: { setup_token: bridge.setupToken() } });
  t.equal(connected.status, 201, JSON.stringify(connected.body));
  const [checking, savings] = connected.body.data.accounts as Array<{ id: number }>;
  const wallets: number[] = [];
  for (const account of [checking, savings]) {
    const linked = await api.request('PUT', `/api/v1/bank-accounts/${account.id}/wallet`, { token: user.token, body: {} });
    t.equal(linked.status, 200);
    wallets.push(linked.body.data.wallet_id);
  }
  for (const [name, payee, wallet] of [['To savings', 'own savings', wallets[1]], ['To checking', 'own checking', wallets[0]]] as const) {
    const rule = await api.request('POST', '/api/v1/rules', { token: user.token, body: { name, conditions: [{ field: 'counterparty', operator: 'contains', value: payee }], actions: [{ type: 'transfer_to_wallet', wallet_id: wallet }] } });
    t.equal(rule.status, 201);
  }

  const synced = await api.request('POST', `/api/v1/bank-connections/${connected.body.data.id}/sync`, { token: user.token });
  t.equal(synced.status, 200, JSON.stringify(synced.body));
  t.match(synced.body.data, { status: 'synced', created_count: 1 });
  const transfers = await api.db.selectFrom('transfers').selectAll().where('user_id', '=', user.user.id).where('deleted_at', 'is', null).execute();
  t.equal(transfers.length, 1, 'one transfer for the two lines');
  t.match(transfers[0], { from_wallet_id: wallets[0], to_wallet_id: wallets[1] });
  t.equal(Number(transfers[0].amount), 300);
  const legs = await api.db.selectFrom('transactions').select(['id', 'wallet_id', 'type']).where('transfer_id', '=', transfers[0].id).orderBy('id').execute();
  const lines = await api.db.selectFrom('bank_lines').select(['external_id', 'transaction_id']).where('user_id', '=', user.user.id).orderBy('external_id').execute();
  t.same(
    lines.map((line) => [line.external_id, line.transaction_id]),
    [
      ['T1', legs.find((leg) => leg.type === 'expense')!.id],
      ['T2', legs.find((leg) => leg.type === 'income')!.id],
    ],
    'each line names its leg of the transfer',
  );
  const plain = await api.db.selectFrom('transactions').select('id').where('user_id', '=', user.user.id).where('transfer_id', 'is', null).where('deleted_at', 'is', null).execute();
  t.same(plain, [], 'no income or expense besides the transfer');
});
