// Bank connections over HTTP against a SimpleFIN bridge on 127.0.0.1 (test/helpers/
// simplefin-bridge.ts): connect (claim once, a re-claim is 422 saying it may be compromised),
// list, link to a wallet or a new one, unlink, delete (transactions stay); syncs through the
// import pipeline: duplicates of existing transactions left out, pending lines held apart until
// posted, an edited line not imported twice, a deleted account, 402/403 and a hanging bridge
// recorded with the reason (three in a row notify), a sync killed before its commit writes
// nothing, two syncs at once import each line once, the daily request budget.
import t from 'tap';
import { syncConnection } from '../handlers/shared/bank-sync.js';
import { syncBankConnectionsJob } from '../jobs/sync-bank-connections.js';
import { loadConfig } from '../server/config.js';
import { silentLog } from './helpers/assistant.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';
import { fakeAccount, startSimpleFinBridge, type FakeLine } from './helpers/simplefin-bridge.js';
import { TEST_ENV } from './helpers/test-environment.js';

const bridge = await startSimpleFinBridge();
t.teardown(() => bridge.close());
const base = loadConfig(TEST_ENV);
const api = await startApp(t, { webhooks: { ...base.webhooks, allowedNetworks: ['127.0.0.1'] }, bankSync: { ...base.bankSync, timeoutMs: 1000, dailyRequests: 12 } });
const ctx = { db: api.db, services: api.app.services, log: silentLog };
const owner = await api.newUser();
const stranger = await api.newUser();

const DAY = 86_400;
const daysAgo = (n: number) => Math.floor(Date.now() / 1000) - n * DAY;
const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const connect = (setup_token: string, token = owner.token) => api.request('POST', '/api/v1/bank-connections', { token, body: { setup_token } });
const sync = (id: number, token = owner.token) => api.request('POST', `/api/v1/bank-connections/${id}/sync`, { token });
const link = (id: number, body: object, token = owner.token) => api.request('PUT', `/api/v1/bank-accounts/${id}/wallet`, { token, body });
const transactionsOf = (walletId: number) =>
  api.db.selectFrom('transactions').select(['id', 'amount', 'type', 'description']).where('wallet_id', '=', walletId).where('deleted_at', 'is', null).orderBy('id').execute();

const coffee: FakeLine = { id: 'L1', posted: daysAgo(10), amount: '-4.50', description: 'BLUE BOTTLE COFFEE', payee: 'Blue Bottle' };
const salary: FakeLine = { id: 'L2', posted: daysAgo(8), amount: '2500.00', description: 'PAYROLL ACME' };
const rent: FakeLine = { id: 'L3', posted: daysAgo(5), amount: '-1200.00', description: 'RENT NOVEMBER' };
const hotel: FakeLine = { id: 'P1', posted: 0, amount: '-310.20', description: 'HOTEL HOLD', pending: true, transacted_at: daysAgo(1) };
bridge.accounts = [fakeAccount('ACC-1', [coffee, salary, rent, hotel], '1295.50'), fakeAccount('ACC-2', [], '50.00')];

let connectionId = 0;
let checkingId = 0;
let walletId = 0;

t.test('connect: the token claimed once, the access URL never shown; bad and re-claimed tokens are 422 on setup_token', async (t) => {
  t.equal((await api.request('POST', '/api/v1/bank-connections', { body: { setup_token: 'x' } })).status, 401);
  const token = bridge.setupToken();
  const res = await connect(token);
  t.equal(res.status, 201);
  t.match(res.body.data, { provider: 'simplefin', name: 'First Fake Bank', status: 'active', failure_count: 0 });
  t.equal(res.body.data.accounts.length, 2);
  t.match(res.body.data.accounts[0], { name: 'Checking ACC-1', currency: 'USD', balance: '1295.5', wallet_id: null, difference: null });
  t.notMatch(JSON.stringify(res.body), /secret-password|simplefin@|demo:/, 'the access URL is not answered');
  const stored = await api.db.selectFrom('bank_connections').select('secret').where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
  t.notMatch(stored.secret, /secret-password/, 'kept encrypted');
  connectionId = res.body.data.id;
  checkingId = res.body.data.accounts[0].id;

  const again = await connect(token);
  t.equal(again.status, 422);
  t.match(again.body.errors.setup_token[0], /claimed before.*compromised/);
  t.match((await connect('not a token!')).body.errors, { setup_token: [/not a SimpleFIN setup token/] });
  t.match((await api.request('POST', '/api/v1/bank-connections', { token: owner.token, body: {} })).status, 422);
});

t.test('list, link (422 by field, 404 for another user), unlink', async (t) => {
  t.equal((await api.request('GET', '/api/v1/bank-connections')).status, 401);
  const list = await api.request('GET', '/api/v1/bank-connections', { token: owner.token });
  t.equal(list.status, 200);
  t.equal(list.body.data.data.length, 1);
  t.equal((await api.request('GET', '/api/v1/bank-connections', { token: stranger.token })).body.data.data.length, 0);

  const euros = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Euro', type: 'bank', currency: 'EUR' } })).body.data;
  t.match((await link(checkingId, { wallet_id: euros.id })).body.errors, { wallet_id: [/currency \(USD\)/] });
  t.match((await link(checkingId, { wallet_id: 999999 })).body.errors, { wallet_id: [/invalid/] });
  t.equal((await link(checkingId, {}, stranger.token)).status, 404);
  t.equal((await link(checkingId, {}, '')).status, 401);
  t.equal((await api.request('DELETE', `/api/v1/bank-accounts/${checkingId}/wallet`, { token: stranger.token })).status, 404);

  const made = await link(checkingId, {});
  t.equal(made.status, 200);
  walletId = made.body.data.wallet_id;
  const wallet = await api.db.selectFrom('wallets').select(['name', 'currency', 'type']).where('id', '=', walletId).executeTakeFirstOrThrow();
  t.same(wallet, { name: 'Checking ACC-1 (First Fake Bank)', currency: 'USD', type: 'bank' }, 'named after the account and the bank');
  const unlinked = await api.request('DELETE', `/api/v1/bank-accounts/${checkingId}/wallet`, { token: owner.token });
  t.equal(unlinked.body.data.wallet_id, null);
  t.equal((await link(checkingId, { wallet_id: walletId })).body.data.wallet_id, walletId);
});

t.test('sync: posted lines through the import pipeline, a file-imported line is a duplicate, pending held apart', async (t) => {
  // the user imported the salary by file before: same amount, day and description
  const before = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'income', amount: 2500, wallet_id: walletId, datetime: `${dayOf(salary.posted)}T12:00:00.000Z`, description: 'Payroll Acme' } });
  t.equal(before.status, 201);
  t.equal((await sync(connectionId, stranger.token)).status, 404);
  t.equal((await api.request('POST', `/api/v1/bank-connections/${connectionId}/sync`)).status, 401);
  const hook = await api.request('POST', '/api/v1/webhooks', { token: owner.token, body: { url: `${bridge.url}/hook`, event_kinds: ['transaction.created', 'import.confirmed'] } });
  t.equal(hook.status, 201);
  const res = await sync(connectionId);
  t.equal(res.status, 200);
  t.match(res.body.data, { status: 'synced', created_count: 2, duplicate_count: 1, pending_count: 1, error: null });
  t.same((await transactionsOf(walletId)).map((tx) => [tx.type, String(Number(tx.amount)), tx.description]), [
    ['income', '2500', 'Payroll Acme'],
    ['expense', '4.5', 'BLUE BOTTLE COFFEE'],
    ['expense', '1200', 'RENT NOVEMBER'],
  ]);
  const session = await api.db.selectFrom('import_sessions').selectAll().where('id', '=', res.body.data.import_session_id).executeTakeFirstOrThrow();
  t.equal(session.status, 'confirmed', 'the lines went through an import session');
  const events = await api.db.selectFrom('webhook_events').select('kind').where('user_id', '=', owner.user.id).where('created_at', '>=', session.created_at).execute();
  t.same(events.map((e) => e.kind).sort(), ['import.confirmed', 'transaction.created', 'transaction.created'], 'webhook events of the pipeline');
  await api.request('DELETE', `/api/v1/webhooks/${hook.body.data.id}`, { token: owner.token });
  const account = res.body.data.connection.accounts[0];
  t.match(account, { pending_count: 1, balance: '1295.5', wallet_balance: '1295.5000', difference: '0.0000', last_posted_date: dayOf(rent.posted) });

  const again = await sync(connectionId);
  t.match(again.body.data, { created_count: 0, duplicate_count: 0, import_session_id: null }, 'the overlap reads the lines again; none is taken twice');
  const window = bridge.requests.at(-1)!;
  t.equal(Number(window.get('start-date')), Date.parse(`${dayOf(rent.posted)}T00:00:00Z`) / 1000 - 5 * DAY, 'from the last posted day less the overlap');
});

t.test('pending to posted, an edited line, a deleted account', async (t) => {
  const [acc] = bridge.accounts;
  acc.transactions = [coffee, salary, rent, { ...hotel, pending: false, posted: daysAgo(0), amount: '-305.20' }, { ...coffee, description: 'BLUE BOTTLE COFFEE SF', amount: '-4.75' }];
  acc.balance = '990.30';
  bridge.accounts = [acc];
  const res = await sync(connectionId);
  t.match(res.body.data, { status: 'synced', created_count: 1, pending_count: 0 });
  const lines = await transactionsOf(walletId);
  t.equal(lines.length, 4, 'the posted hotel line once; the edited coffee line (same id) not again');
  t.equal(lines.filter((tx) => Number(tx.amount) === 305.2).length, 1);
  t.equal(lines.filter((tx) => Number(tx.amount) === 310.2).length, 0, 'the pending amount never booked');
  const accounts = res.body.data.connection.accounts;
  t.equal(accounts[0].difference, '0.0000');
  t.ok(accounts[1].missing_since, 'the account gone from the bridge is marked, not deleted');
});

t.test('a bank line is filed by the user\'s rules, as a statement line is', async (t) => {
  const groceries = await ledgerFixtures(api).category(owner.user.id);
  const rule = await api.request('POST', '/api/v1/rules', {
    token: owner.token,
    body: { name: 'REWE', conditions: [{ field: 'description', operator: 'contains', value: 'rewe' }], actions: [{ type: 'set_categories', category_ids: [groceries] }, { type: 'set_party', party_name: 'REWE', create_party: true }] },
  });
  t.equal(rule.status, 201);
  const [acc] = bridge.accounts;
  acc.transactions = [...acc.transactions, { id: 'R1', posted: daysAgo(0), amount: '-23.10', description: 'REWE MARKT 1234 SAGT DANKE' }];
  acc.balance = '967.20';
  const res = await sync(connectionId);
  t.match(res.body.data, { status: 'synced', created_count: 1 });
  const line = await api.db.selectFrom('transactions').select(['id', 'party_id']).where('wallet_id', '=', walletId).where('description', '=', 'REWE MARKT 1234 SAGT DANKE').executeTakeFirstOrThrow();
  const categories = await api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', line.id).execute();
  t.same(categories.map((c) => c.category_id), [groceries], 'the rule set the category');
  const party = await api.db.selectFrom('parties').select('name').where('id', '=', line.party_id!).executeTakeFirstOrThrow();
  t.equal(party.name, 'REWE', 'and the party, made by name');
});

t.test('failures keep state and say why; 402, 403, a hanging bridge; the third notifies', async (t) => {
  const count = (await transactionsOf(walletId)).length;
  bridge.failWith = 402;
  t.match((await sync(connectionId)).body.data, { status: 'failed', error: /payment/, connection: { status: 'failing', failure_count: 1 } });
  bridge.failWith = 403;
  t.match((await sync(connectionId)).body.data, { error: /new setup token/, connection: { failure_count: 2 } });
  bridge.failWith = 'hang';
  const hung = await sync(connectionId);
  t.match(hung.body.data, { status: 'failed', error: /did not answer within 1 seconds/, connection: { failure_count: 3, last_error: /did not answer/ } });
  bridge.failWith = null;
  t.equal((await transactionsOf(walletId)).length, count, 'nothing written');
  const notes = await api.db.selectFrom('notifications').select(['title', 'body']).where('user_id', '=', owner.user.id).execute();
  t.equal(notes.filter((n) => /Bank sync of First Fake Bank is failing/.test(n.title)).length, 1, 'told once, at the third failure');
  t.match((await sync(connectionId)).body.data, { status: 'synced', connection: { status: 'active', failure_count: 0, last_error: null } });
});

t.test('a sync killed before its commit writes nothing; two syncs at once import each line once', async (t) => {
  const [acc] = bridge.accounts;
  acc.transactions = [...acc.transactions, { id: 'L9', posted: daysAgo(0), amount: '-9.99', description: 'BOOKS' }, { id: 'L10', posted: daysAgo(0), amount: '-19.99', description: 'MORE BOOKS' }];
  const count = (await transactionsOf(walletId)).length;
  await t.rejects(syncConnection(ctx, connectionId, { beforeCommit: () => Promise.reject(new Error('killed')) }), /killed/);
  t.equal((await transactionsOf(walletId)).length, count, 'nothing half-written');
  t.equal((await api.db.selectFrom('bank_lines').select('id').where('external_id', 'in', ['L9', 'L10']).execute()).length, 0);
  const both = await Promise.all([syncConnection(ctx, connectionId), syncConnection(ctx, connectionId)]);
  t.same(both.map((o) => (o.status === 'synced' ? o.created : -1)).sort(), [0, 2], 'one sync took both lines, the other none');
  t.equal((await transactionsOf(walletId)).length, count + 2);
});

t.test('the schedule syncs due connections; the daily budget bounds requests; delete keeps transactions', async (t) => {
  await api.db.updateTable('bank_connections').set({ next_sync_at: new Date(Date.now() - 1000) }).where('id', '=', connectionId).execute();
  const seen = bridge.requests.length;
  await syncBankConnectionsJob.run(ctx as any, {});
  t.equal(bridge.requests.length, seen + 1, 'the due connection synced');
  const row = await api.db.selectFrom('bank_connections').select(['next_sync_at', 'requests_count']).where('id', '=', connectionId).executeTakeFirstOrThrow();
  t.ok(row.next_sync_at.getTime() > Date.now() + 5 * 3_600_000, 'next in about 6 hours');
  await syncBankConnectionsJob.run(ctx as any, {});
  t.equal(bridge.requests.length, seen + 1, 'not due: not asked');
  await api.db.updateTable('bank_connections').set({ requests_count: 12 }).where('id', '=', connectionId).execute();
  const limited = await sync(connectionId);
  t.equal(limited.status, 429);
  t.equal(bridge.requests.length, seen + 1, 'the bridge was not asked');

  const count = (await transactionsOf(walletId)).length;
  t.equal((await api.request('DELETE', `/api/v1/bank-connections/${connectionId}`, { token: stranger.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/bank-connections/${connectionId}`)).status, 401);
  t.equal((await api.request('DELETE', `/api/v1/bank-connections/${connectionId}`, { token: owner.token })).status, 200);
  t.equal((await transactionsOf(walletId)).length, count, 'its transactions stay');
  t.equal((await sync(connectionId)).status, 404);
});
