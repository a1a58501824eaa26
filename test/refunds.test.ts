// Refunds over HTTP: marking incomes (optionally of an expense), the transaction's flags kept
// in step, replays by client id, unmarking into tombstones, the list and its sync feed.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
const clientId = () => `${randomUUID()}:${randomUUID()}`;

async function transaction(type: 'income' | 'expense', amount = 25, token = owner.token, walletId = wallet): Promise<number> {
  const res = await api.request('POST', '/api/v1/transactions', { token, body: { type, amount, wallet_id: walletId } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.id;
}
const mark = (id: number, body?: Record<string, unknown>, token = owner.token) => api.request('POST', `/api/v1/transactions/${id}/refund`, { token, body });
const unmark = (id: number, token = owner.token) => api.request('DELETE', `/api/v1/transactions/${id}/refund`, { token });
const show = async (id: number) => (await api.request('GET', `/api/v1/transactions/${id}`, { token: owner.token })).body.data;

t.test('mark an income as the refund of an expense; balances never move', async (t) => {
  const expense = await transaction('expense', 40);
  const income = await transaction('income', 15.5);
  const before = await fx.balance(wallet);
  const res = await mark(income, { original_transaction_id: expense });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Transaction marked as refund');
  t.match(res.body.data, { refund_transaction_id: income, original_transaction_id: expense, amount: 15.5, deleted_at: null, user_id: owner.user.id });
  t.match(await show(income), { is_refund: true, refund_of_transaction_id: expense });
  t.equal(await fx.balance(wallet), before);

  const again = await mark(income);
  t.equal(again.status, 200);
  t.equal(again.body.data.id, res.body.data.id, 'one record per transaction');
  t.equal(again.body.data.original_transaction_id, null, 'marking again without an expense clears the link');
  t.match(await show(income), { is_refund: true, refund_of_transaction_id: null });
});

t.test('a reference client links by the expense client id; a misspelt link is 422, never dropped', async (t) => {
  const expenseClientId = clientId();
  const made = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'expense', amount: 12, wallet_id: wallet, client_id: expenseClientId } });
  t.equal(made.status, 201);
  const income = await transaction('income', 12);
  const byClientId = await mark(income, { original_client_id: expenseClientId });
  t.equal(byClientId.status, 200);
  t.equal(byClientId.body.data.original_transaction_id, made.body.data.id);
  t.match(await show(income), { is_refund: true, refund_of_transaction_id: made.body.data.id });

  const unknownClientId = await mark(income, { original_client_id: clientId() });
  t.equal(unknownClientId.status, 422);
  t.ok(unknownClientId.body.errors.original_client_id);

  const other = await transaction('income');
  const before = await fx.count('refunds', owner.user.id);
  const misspelt = await mark(other, { refunded_transaction_id: made.body.data.id });
  t.equal(misspelt.status, 422, 'the project-era name is refused by name, not ignored');
  t.ok(misspelt.body.errors.refunded_transaction_id);
  t.equal(await fx.count('refunds', owner.user.id), before, 'nothing written');
});

t.test('only an income of the caller can be marked, only of one of its expenses', async (t) => {
  const income = await transaction('income');
  const expense = await transaction('expense');
  const deletedExpense = await transaction('expense');
  await api.request('DELETE', `/api/v1/transactions/${deletedExpense}`, { token: owner.token });
  const foreignExpense = await transaction('expense', 5, stranger.token, await fx.wallet(stranger.user.id, { balance: '50' }));
  const before = await fx.count('refunds', owner.user.id);

  const notIncome = await mark(expense);
  t.equal(notIncome.status, 422, 'an expense cannot be a refund');
  t.ok(notIncome.body.errors.type);
  for (const refunded of [foreignExpense, deletedExpense, income, await transaction('income'), 999999]) {
    const res = await mark(income, { original_transaction_id: refunded });
    t.equal(res.status, 422, `original_transaction_id ${refunded}`);
    t.ok(res.body.errors.original_transaction_id);
  }
  const badClientId = await mark(income, { client_id: 'x' });
  t.equal(badClientId.status, 422);
  t.ok(badClientId.body.errors.client_id);
  t.equal(await fx.count('refunds', owner.user.id), before, 'nothing written');
  t.match(await show(income), { is_refund: false, refund_of_transaction_id: null });

  t.equal((await mark(foreignExpense)).status, 404, "another user's transaction");
  t.equal((await mark(income, undefined, stranger.token)).status, 404);
  t.equal((await unmark(income, stranger.token)).status, 404);
  t.equal((await mark(999999)).status, 404);
  t.equal((await unmark(999999)).status, 404);
});

t.test('client ids: a replay changes nothing, one used by another refund is 422', async (t) => {
  const [first, second] = [await transaction('income'), await transaction('income')];
  const expense = await transaction('expense');
  const id = clientId();
  const made = await mark(first, { client_id: id, original_transaction_id: expense });
  t.equal(made.body.data.client_generated_id, id);
  const replay = await mark(first, { client_id: id });
  t.equal(replay.status, 200);
  t.same(replay.body.data, made.body.data, 'a replay: the link is not cleared');
  const taken = await mark(second, { client_id: id });
  t.equal(taken.status, 422);
  t.ok(taken.body.errors.client_id);
  t.match(await show(second), { is_refund: false });
});

t.test('unmark: a tombstone in the feed, flags cleared, idempotent; marking again restores', async (t) => {
  const since = new Date(Date.now() - 1000).toISOString();
  const income = await transaction('income');
  const made = await mark(income);
  const res = await unmark(income);
  t.same(res.body, { success: true, message: 'Refund flag removed', data: null });
  t.match(await show(income), { is_refund: false, refund_of_transaction_id: null });
  t.same(await unmark(income).then((r) => r.status), 200, 'not marked: 200, nothing changes');
  t.equal((await unmark(await transaction('income'))).status, 200);

  const list = await api.request('GET', '/api/v1/refunds?limit=100', { token: owner.token });
  t.notOk(list.body.data.data.some((r: { id: number }) => r.id === made.body.data.id));
  const feed = await api.request('GET', `/api/v1/refunds?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  t.ok(feed.body.data.data.find((r: { id: number }) => r.id === made.body.data.id)?.deleted_at, 'a tombstone');

  const restored = await mark(income);
  t.equal(restored.body.data.id, made.body.data.id, 'the same record comes back');
  t.equal(restored.body.data.deleted_at, null);
});

t.test('list: refunds of live incomes in creation order; a deleted income leaves a tombstone', async (t) => {
  const user = await api.newUser();
  const userWallet = await fx.mainWallet(user.user.id);
  const incomes = [await transaction('income', 10, user.token, userWallet), await transaction('income', 20, user.token, userWallet)];
  for (const id of incomes) await mark(id, undefined, user.token);
  const list = await api.request('GET', '/api/v1/refunds', { token: user.token });
  t.equal(list.status, 200);
  t.same(list.body.data.data.map((r: { refund_transaction_id: number }) => r.refund_transaction_id), incomes);
  t.same(list.body.data.data.map((r: { amount: number }) => r.amount), [10, 20]);
  t.match(list.body.data, { current_page: 1, total: 2, last_page: 1 });
  t.equal((await api.request('GET', '/api/v1/refunds?no_client_id=true', { token: user.token })).body.data.total, 2);

  const since = new Date(Date.now() - 1000).toISOString();
  await api.request('DELETE', `/api/v1/transactions/${incomes[0]}`, { token: user.token });
  const after = await api.request('GET', '/api/v1/refunds', { token: user.token });
  t.same(after.body.data.data.map((r: { refund_transaction_id: number }) => r.refund_transaction_id), [incomes[1]]);
  const feed = await api.request('GET', `/api/v1/refunds?synced_since=${encodeURIComponent(since)}`, { token: user.token });
  t.ok(feed.body.data.data.find((r: { refund_transaction_id: number }) => r.refund_transaction_id === incomes[0])?.deleted_at);
  t.equal((await api.request('GET', '/api/v1/refunds', { token: stranger.token })).body.data.total, 0, "never another user's");
  t.equal((await api.request('GET', '/api/v1/refunds?synced_since=soon', { token: user.token })).status, 422);
});

t.test('multipart mark body', async (t) => {
  const income = await transaction('income');
  const expense = await transaction('expense');
  const boundary = 'refundboundary';
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="original_transaction_id"\r\n\r\n${expense}\r\n--${boundary}--\r\n`;
  const res = await api.request('POST', `/api/v1/transactions/${income}/refund`, { token: owner.token, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  t.equal(res.status, 200);
  t.equal(res.body.data.original_transaction_id, expense);
});

t.test('no token is 401 on every refund operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/refunds'],
    ['POST', '/api/v1/transactions/1/refund'],
    ['DELETE', '/api/v1/transactions/1/refund'],
  ]) {
    t.equal((await api.request(method, url)).status, 401, `${method} ${url}`);
  }
});
