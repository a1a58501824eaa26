// The assistant with no language model configured: the local engine answers through the
// job, proposes writes that are confirmed once or rejected, answers questions from the
// ledger, and reads relative dates in the user's time zone on the injectable clock.
import t from 'tap';
import { answerChatMessageJob } from '../jobs/answer-chat-message.js';
import { silentLog } from './helpers/assistant.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

// 02:30 UTC on the 18th is still the 17th in New York: "yesterday" there is the 16th.
const NOW = new Date('2026-03-18T02:30:00Z');
const api = await startApp(t, { now: () => NOW });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const ownerId = owner.user.id as number;
await fx.setTimeZone(ownerId, 'America/New_York');
const main = await fx.mainWallet(ownerId);
await fx.setBalance(main, '1000');
const savings = await fx.wallet(ownerId, { balance: '0' });
await api.db.updateTable('wallets').set({ name: 'Savings' }).where('id', '=', savings).execute();
const restaurants = await fx.category(ownerId);
await api.db.updateTable('categories').set({ name: 'Restaurants' }).where('id', '=', restaurants).execute();
const mamas = await api.db.insertInto('parties').values({ user_id: ownerId, name: "Mama's", type: 'business' }).returning('id').executeTakeFirstOrThrow();

const runJob = () => answerChatMessageJob.run({ db: api.db, services: api.app.services, log: silentLog }, {});
const getChat = async (id: number, token = owner.token) => (await api.request('GET', `/api/v1/ai/chats/${id}`, { token })).body.data;

/** Asks in a new chat, checks the reply is pending, runs the job; the completed reply. */
async function ask(message: string, headers: Record<string, string> = {}) {
  const created = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message }, headers });
  t.equal(created.status, 201);
  const chat = created.body.data;
  t.equal(chat.messages[1].status, 'pending');
  await runJob();
  return { chat, reply: (await getChat(chat.id)).messages[1] };
}

const transactionsOf = (userId: number) => api.db.selectFrom('transactions').selectAll().where('user_id', '=', userId).where('deleted_at', 'is', null).execute();

t.test('an expense: pending, completed with a proposal, confirmed once into exactly one transaction', async (t) => {
  const { chat, reply } = await ask("I spent 40 USD on dinner at Mama's yesterday");
  t.same([reply.status, reply.engine, reply.model_fallback, reply.error], ['completed', 'local', false, null]);
  t.match(reply.content, /expense of 40 USD/);
  t.equal(reply.actions.length, 1);
  const action = reply.actions[0];
  t.same(
    [action.action_type, action.status, action.payload],
    ['transaction.create', 'proposed', { amount: 40, type: 'expense', wallet_id: main, party_id: mamas.id, description: "dinner at Mama's", categories: [restaurants], datetime: '2026-03-16T16:00:00.000Z' }],
    'noon of the user\'s yesterday in New York',
  );
  t.ok(reply.blocks.some((b: any) => b.type === 'proposed_action'), 'the proposal card is in the blocks');
  t.same(await transactionsOf(ownerId), [], 'nothing is written before the confirmation');

  const url = `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`;
  t.equal((await api.request('POST', url)).status, 401, 'no token');
  t.equal((await api.request('POST', url, { token: stranger.token })).status, 404, "another user's action");
  const first = await api.request('POST', url, { token: owner.token });
  t.equal(first.status, 200);
  t.equal(first.body.message, 'Action completed.');
  const second = await api.request('POST', url, { token: owner.token });
  t.equal(second.status, 200);
  t.equal(second.body.message, 'Action already completed.');
  t.equal(second.body.data.resource.id, first.body.data.resource.id, 'a second confirm returns the same result');
  const written = await transactionsOf(ownerId);
  t.equal(written.length, 1, 'exactly one transaction');
  t.same([written[0].amount, written[0].wallet_id, written[0].party_id, written[0].datetime.toISOString()], ['40.0000', main, mamas.id, '2026-03-16T16:00:00.000Z']);
  t.equal(await fx.balance(main), '960.0000');
});

t.test('a French transfer proposal; rejected stays rejected and writes nothing', async (t) => {
  const { chat, reply } = await ask('vire 200 de Main Wallet vers Savigns', { 'accept-language': 'fr' });
  t.equal(reply.engine, 'local');
  t.match(reply.content, /virement de 200 USD de Main Wallet vers Savings/);
  const action = reply.actions[0];
  t.same([action.action_type, action.payload.from_wallet_id, action.payload.to_wallet_id, action.payload.amount], ['transfer.create', main, savings, 200]);
  const base = `/api/v1/ai/chats/${chat.id}/actions/${action.id}`;
  t.equal((await api.request('POST', `${base}/reject`, { token: owner.token })).status, 200);
  const again = await api.request('POST', `${base}/confirm`, { token: owner.token });
  t.not(again.status, 200, 'a rejected action cannot be confirmed');
  t.equal((await getChat(chat.id)).messages[1].actions[0].status, 'rejected');
  t.equal(await fx.balance(savings), '0.0000');
});

t.test('questions are answered from the ledger through the read tools', async (t) => {
  const balance = await ask('how much is in my wallets?');
  t.match(balance.reply.content, /Main Wallet: 960 USD/);
  t.match(balance.reply.content, /Total: 960 USD/);
  t.same(balance.reply.actions, [], 'a question proposes nothing');

  const spent = await ask('how much did I spend on restaurants this month?');
  t.same(spent.reply.tool_calls.at(-1), { name: 'spending_by_category', arguments: { start_date: '2026-03-01', end_date: '2026-03-17', type: 'expense' } }, "the user's month, not UTC's");
  t.match(spent.reply.content, /Restaurants: \*\*40 USD\*\*/);

  const latest = await ask('show my last 3 transactions');
  t.match(latest.reply.content, /-40 USD \(Main Wallet\) dinner at Mama's/);

  const budgets = await ask('am I over budget?');
  t.match(budgets.reply.content, /no budget yet/);
  t.equal(budgets.reply.tool_calls.at(-1).name, 'budget_status');

  const unknown = await ask('what is the meaning of life');
  t.equal(unknown.reply.status, 'completed', 'never a failed reply');
  t.match(unknown.reply.content, /move 200 from Checking to Savings/, 'the list of what it can do');
});

t.test('a currency the wallet does not hold is not proposed', async (t) => {
  const { reply } = await ask('spent 30 EUR on dinner');
  t.same(reply.actions, []);
  t.match(reply.content, /EUR.*USD/);
});
