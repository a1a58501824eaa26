// The assistant with no language model configured: the local engine answers through the
// job, proposes writes that are confirmed once or rejected, answers questions from the
// ledger, and reads relative dates in the user's time zone on the injectable clock.
import t from 'tap';
import { answerChatMessageJob } from '../jobs/answer-chat-message.js';
import { silentLog } from './helpers/assistant.js';
import { MARKUP } from './helpers/plain-text.js';
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
  t.notMatch(reply.content, MARKUP);
  t.same([reply.format_type, reply.rows], [null, []], 'a proposal: its card, no figures');
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

t.test('questions are answered in plain text, with the figures as results in the reference shapes', async (t) => {
  const balance = await ask('how much is in my wallets?');
  t.equal(balance.reply.content, 'You have 2 wallets. Total: 960 USD.');
  t.same([balance.reply.format_type, balance.reply.rows], ['table', [
    { wallet: 'Main Wallet', balance: 960, currency: 'USD' },
    { wallet: 'Savings', balance: 0, currency: 'USD' },
  ]]);
  t.equal(balance.reply.content_markdown, 'Your wallets:\n\n- Main Wallet: 960 USD\n- Savings: 0 USD\n- **Total: 960 USD**', 'the Markdown keeps its list');
  t.same(balance.reply.actions, [], 'a question proposes nothing');

  const spent = await ask('how much did I spend on restaurants this month?');
  t.same(spent.reply.tool_calls.at(-1), { name: 'spending_by_category', arguments: { start_date: '2026-03-01', end_date: '2026-03-17', type: 'expense' } }, "the user's month, not UTC's");
  t.equal(spent.reply.content, 'You spent 40 USD on Restaurants from 2026-03-01 to 2026-03-17.');
  t.same([spent.reply.format_type, spent.reply.rows], ['scalar', [{ total: 40 }]], 'a single amount');
  t.match(spent.reply.content_markdown, /Restaurants: \*\*40 USD\*\*/);

  const top = await ask('top categories this year');
  t.equal(top.reply.content, 'Top categories from 2026-01-01 to 2026-03-17:');
  t.same([top.reply.format_type, top.reply.rows], ['pair_list', [{ category: 'Restaurants', total: 40 }]], 'category -> amount');

  const latest = await ask('show my last 3 transactions');
  t.equal(latest.reply.content, 'Your latest transactions:');
  t.same([latest.reply.format_type, latest.reply.rows], ['table', [{ date: '2026-03-16', description: "dinner at Mama's · Mama's · Restaurants", amount: -40, currency: 'USD', wallet: 'Main Wallet' }]]);
  t.match(latest.reply.content_markdown, /^- 2026-03-16 -40 USD \(Main Wallet\) dinner at Mama's/m);

  const none = await ask('am I over budget?');
  t.match(none.reply.content, /no budget yet/);
  t.same([none.reply.format_type, none.reply.rows], [null, []], 'nothing to show: a text answer');
  const budget = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { name: 'Eating out', amount: 50, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', targets: [{ type: 'category', id: restaurants }] } });
  t.equal(budget.status, 201);
  const budgets = await ask('am I over budget?');
  t.equal(budgets.reply.tool_calls.at(-1).name, 'budget_status');
  t.equal(budgets.reply.content, 'Your budgets this period:');
  t.same([budgets.reply.format_type, budgets.reply.rows], ['table', [{ budget: 'Eating out', spent: 40, limit: 50, currency: 'USD', percent_used: 80, status: 'heading over' }]]);
  await api.request('DELETE', `/api/v1/budgets/${budget.body.data.id}`, { token: owner.token });

  const unknown = await ask('what is the meaning of life');
  t.equal(unknown.reply.status, 'completed', 'never a failed reply');
  t.match(unknown.reply.content, /^• move money: "move 200 from Checking to Savings"$/m, 'the list of what it can do, as lines of text');
  t.match(unknown.reply.content_markdown, /^- move money: "move 200 from Checking to Savings"$/m, 'a Markdown list when asked');
  t.same([unknown.reply.format_type, unknown.reply.rows], [null, []]);

  for (const { reply } of [balance, spent, top, latest, none, budgets, unknown]) t.notMatch(reply.content, MARKUP, `no Markdown in "${reply.content.slice(0, 30)}"`);
});

t.test('a currency the wallet does not hold is not proposed', async (t) => {
  const { reply } = await ask('spent 30 EUR on dinner');
  t.same(reply.actions, []);
  t.match(reply.content, /EUR.*USD/);
});

t.test("the web client's one-shot question (POST /ai/chat): plain text, the figures in results, the Markdown when asked", async (t) => {
  const asked = await api.request('POST', '/api/v1/ai/chat', { token: owner.token, body: { message: 'how much is in my wallets?', answer_format: 'markdown' } });
  t.equal(asked.status, 200);
  const answer = asked.body.data;
  t.same([answer.answer, answer.format_type, answer.results], ['You have 2 wallets. Total: 960 USD.', 'table', [
    { wallet: 'Main Wallet', balance: 960, currency: 'USD' },
    { wallet: 'Savings', balance: 0, currency: 'USD' },
  ]]);
  t.match(answer.answer_markdown, /^- \*\*Total: 960 USD\*\*$/m);
  const stored = (await getChat(answer.chat_id)).messages[1];
  t.same([stored.id, stored.content, stored.content_markdown, stored.format_type, stored.rows], [answer.message_id, answer.answer, answer.answer_markdown, answer.format_type, answer.results], 'the chat holds the same answer');

  const french = await api.request('POST', '/api/v1/ai/chat', { token: owner.token, body: { message: "combien j'ai sur mes comptes ?" }, headers: { 'accept-language': 'fr-FR' } });
  t.equal(french.body.data.answer, 'Vous avez 2 portefeuilles. Total : 960 USD.');
  t.notOk('answer_markdown' in french.body.data, 'no Markdown unless asked');

  // spending in two currencies: a currency -> total list, largest first
  const euros = await fx.wallet(ownerId, { balance: '100', currency: 'EUR' });
  const lunch = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'expense', amount: 12.5, wallet_id: euros, datetime: '2026-03-10T12:00:00.000Z' } });
  t.equal(lunch.status, 201);
  const spent = (await api.request('POST', '/api/v1/ai/chat', { token: owner.token, body: { message: 'how much did I spend this month?' } })).body.data;
  t.equal(spent.answer, 'You spent 40 USD, 12.5 EUR from 2026-03-01 to 2026-03-17.');
  t.same([spent.format_type, spent.results], ['pair_list', [{ currency: 'USD', total: 40 }, { currency: 'EUR', total: 12.5 }]]);

  const proposal = (await api.request('POST', '/api/v1/ai/chat', { token: owner.token, body: { message: 'spent 8 on coffee' } })).body.data;
  t.match(proposal.answer, /^I prepared an expense of 8 USD\./);
  t.same([proposal.format_type, proposal.results], ['raw', []], 'a text answer: raw, no results (the reference shape)');
});
