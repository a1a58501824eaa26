// The assistant's chats: replies answered by the background job against a fake
// OpenAI-compatible provider on a loopback port (scripted answers), read tools, failures of
// the provider, the behaviour without one, health. Attachments and export are in
// assistant-files.test.ts, proposed actions in agent-actions.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { ANSWER_CHAT_MESSAGE_JOB } from '../db/job-names.js';
import { answerChatMessageJob } from '../jobs/answer-chat-message.js';
import { assistantTestApp, silentLog as silent, text, toolCall } from './helpers/assistant.js';
import { startApp } from './helpers/harness.js';
import { MARKUP } from './helpers/plain-text.js';

const { api, llm, script, received, nudges, owner, stranger, fx, newChat, getChat, runJob } = await assistantTestApp(t);

t.test('chats: create, list, get, delete; another user gets 404', async (t) => {
  nudges.length = 0;
  const chat = await newChat(owner.token, '  What is my balance?  ', { title: 'Balances', format_hint: 'scalar' });
  t.equal(chat.title, 'Balances');
  t.equal(chat.messages_count, 2);
  t.equal(chat.has_pending_reply, true);
  t.same(chat.messages.map((m: any) => [m.role, m.status, m.content]), [['user', null, 'What is my balance?'], ['assistant', 'pending', null]]);
  t.same(nudges, [ANSWER_CHAT_MESSAGE_JOB], 'the answering job is nudged after the commit');
  // the reference's names on the wire: the polymorphic owner, and each message's chat_session_id
  t.match(chat, { owner_type: 'App\\Models\\User', owner_id: owner.user.id, user_id: owner.user.id });
  t.same(chat.messages.map((m: any) => [m.chat_session_id, m.chat_id]), [[chat.id, chat.id], [chat.id, chat.id]]);

  const deferred = await newChat(owner.token, 'Later', { defer_processing: true });
  t.equal(nudges.length, 1, 'a held reply is not nudged');
  t.equal(deferred.title, null);

  const listed = await api.request('GET', '/api/v1/ai/chats?limit=1', { token: owner.token });
  t.equal(listed.status, 200);
  t.equal(listed.body.data.total, 2);
  t.equal(listed.body.data.last_page, 2);
  t.equal(listed.body.data.data[0].id, deferred.id, 'most recently active first');
  t.notOk('messages' in listed.body.data.data[0]);

  t.equal((await api.request('GET', '/api/v1/ai/chats', { token: stranger.token })).body.data.total, 0);
  for (const [method, url] of [
    ['GET', `/api/v1/ai/chats/${chat.id}`],
    ['DELETE', `/api/v1/ai/chats/${chat.id}`],
  ]) {
    const res = await api.request(method, url, { token: stranger.token });
    t.equal(res.status, 404, `${method} ${url} of another user`);
    t.equal(res.body.message, 'Chat session not found.');
  }
  const foreignSend = await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: stranger.token, body: { message: 'hi' } });
  t.equal(foreignSend.status, 404);

  const deleted = await api.request('DELETE', `/api/v1/ai/chats/${deferred.id}`, { token: owner.token });
  t.equal(deleted.status, 200);
  t.equal(deleted.body.message, 'Chat session deleted.');
  t.equal((await api.request('GET', `/api/v1/ai/chats/${deferred.id}`, { token: owner.token })).status, 404);
  t.equal((await api.db.selectFrom('chat_messages').select('id').where('chat_session_id', '=', deferred.id).execute()).length, 0, 'messages cascade');
  await api.request('DELETE', `/api/v1/ai/chats/${chat.id}`, { token: owner.token });
});

t.test('no token is 401; bad input is 422 keyed by field', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/ai/chats'],
    ['POST', '/api/v1/ai/chats'],
    ['GET', '/api/v1/ai/chats/1'],
    ['DELETE', '/api/v1/ai/chats/1'],
    ['POST', '/api/v1/ai/chats/1/messages'],
    ['GET', '/api/v1/ai/health'],
    ['POST', '/api/v1/ai/chats/1/actions/1/confirm'],
    ['POST', '/api/v1/ai/chats/1/actions/1/reject'],
  ]) {
    t.equal((await api.request(method, url, { body: method === 'POST' ? { message: 'x' } : undefined })).status, 401, `${method} ${url}`);
  }
  const blank = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message: '   ' } });
  t.equal(blank.status, 422);
  t.ok(blank.body.errors.message);
  const long = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message: 'x'.repeat(1001) } });
  t.equal(long.status, 422);
  t.ok(long.body.errors.message);
  const hint = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message: 'hi', format_hint: 'poem' } });
  t.equal(hint.status, 422);
  t.ok(hint.body.errors.format_hint);
  const chat = await newChat(owner.token);
  const missing = await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: {} });
  t.equal(missing.status, 422);
  t.ok(missing.body.errors.message);
  const page = await api.request('GET', '/api/v1/ai/chats?limit=0', { token: owner.token });
  t.equal(page.status, 422);
  t.ok(page.body.errors.limit);
  await api.request('DELETE', `/api/v1/ai/chats/${chat.id}`, { token: owner.token });
});

t.test('a plain answer: pending, then the job completes it and names the chat', async (t) => {
  const chat = await newChat(owner.token, 'Hello there assistant');
  script.push(text('Hello! How can I help with your finances?'));
  received.length = 0;
  await runJob();
  const after = await getChat(chat.id);
  const reply = after.messages[1];
  t.equal(reply.status, 'completed');
  t.equal(reply.source, 'general');
  t.equal(reply.content, 'Hello! How can I help with your finances?');
  t.equal(reply.content_markdown, 'Hello! How can I help with your finances?');
  t.same([reply.format_type, reply.rows], [null, []], 'a text answer has no figures');
  t.same(reply.blocks, []);
  t.same(reply.usage, { prompt_tokens: 11, completion_tokens: 7 });
  t.equal(reply.exportable, true);
  t.ok(reply.completed_at);
  t.equal(after.has_pending_reply, false);
  t.equal(after.title, 'Hello there assistant', 'a short question names the chat');
  t.equal(received.length, 1);
  t.equal(received[0].url, '/v1/chat/completions');
  t.equal(received[0].authorization, 'Bearer sk-test');
  t.equal(received[0].body.model, 'fake-model');
  t.equal(received[0].body.messages.at(-1).content, 'Hello there assistant');
  t.ok(received[0].body.tools.some((tool: any) => tool.function.name === 'list_wallets'), 'the tool catalog is offered');

  // a follow-up carries the conversation so far
  const sent = await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: { message: 'And again?' } });
  t.equal(sent.status, 201);
  t.equal(sent.body.message, 'Message queued.');
  t.equal(sent.body.data.assistant.status, 'pending');
  script.push(text('Again!'));
  received.length = 0;
  await runJob();
  t.same(received[0].body.messages.slice(1).map((m: any) => [m.role, m.content]), [
    ['user', 'Hello there assistant'],
    ['assistant', 'Hello! How can I help with your finances?'],
    ['user', 'And again?'],
  ]);
  t.equal((await getChat(chat.id)).messages[3].content, 'Again!');
  await runJob(); // nothing left: no request
  t.equal(received.length, 1);
});

t.test('the reply is asked for in the language of the question', async (t) => {
  const res = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message: 'Combien ai-je dépensé ?' }, headers: { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' } });
  t.same(res.body.data.messages.map((m: any) => m.language), ['fr', 'fr']);
  script.push(text('Rien.'));
  received.length = 0;
  await runJob();
  t.match(received[0].body.messages[0].content, /language with code "fr"/);
  t.equal((await getChat(res.body.data.id)).messages[1].language, 'fr');
});

t.test('a read tool answers from the user\'s records, then the model replies', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '250.5', currency: 'EUR' });
  const chat = await newChat(owner.token, 'What are my balances?');
  script.push(toolCall('list_wallets', {}), text('You have:\n\n- **250.50 EUR** in `Test wallet`'));
  received.length = 0;
  await runJob();
  const toolMessage = received[1].body.messages.at(-1);
  t.equal(toolMessage.role, 'tool');
  const output = JSON.parse(toolMessage.content);
  t.ok(output.wallets.some((w: any) => w.id === wallet && w.balance === 250.5 && w.currency === 'EUR'), 'the tool read the wallet and its balance');
  const reply = (await getChat(chat.id)).messages[1];
  t.equal(reply.status, 'completed');
  t.equal(reply.source, 'agent');
  t.same(reply.tool_calls, [{ name: 'list_wallets', arguments: {} }]);
  t.same(reply.progress, ['Checking your accounts']);
  t.equal(reply.content, 'You have:\n\n• 250.50 EUR in Test wallet', 'the Markdown reply read as plain text');
  t.equal(reply.content_markdown, 'You have:\n\n- **250.50 EUR** in `Test wallet`', 'the Markdown as the model wrote it');
  t.same(reply.blocks, [{ type: 'markdown', text: 'You have:\n\n- **250.50 EUR** in `Test wallet`' }]);
  t.equal(reply.format_type, 'table', 'the figures the tool read are the results');
  t.ok(reply.rows.some((row: any) => row.wallet === 'Test wallet' && row.balance === 250.5 && row.currency === 'EUR'));
  t.same(reply.usage, { prompt_tokens: 31, completion_tokens: 12 });
});

t.test('spending by category and recent transactions are computed in SQL', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '1000' });
  const food = await fx.category(user.user.id);
  for (const amount of [12.5, 7.5]) {
    const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet, categories: [food], description: 'Lunch' } });
    t.equal(res.status, 201);
  }
  const chat = await newChat(user.token, 'Where does my money go?');
  script.push(toolCall('spending_by_category', {}, 'a'), toolCall('recent_transactions', { limit: 1 }, 'b'), text('Mostly food.'));
  received.length = 0;
  await runJob();
  const spending = JSON.parse(received[1].body.messages.at(-1).content);
  t.equal(spending.type, 'expense');
  t.equal(spending.categories.length, 1);
  t.equal(spending.categories[0].total, 20);
  t.equal(spending.categories[0].count, 2);
  const recent = JSON.parse(received[2].body.messages.at(-1).content);
  t.equal(recent.transactions.length, 1);
  t.equal(recent.transactions[0].description, 'Lunch');
  t.equal(recent.transactions[0].currency, 'USD');
  const answered = (await getChat(chat.id, user.token)).messages[1];
  t.equal(answered.format_type, 'table', "the last read tool's figures");
  t.equal(answered.rows.length, 1);
  t.same(Object.keys(answered.rows[0]), ['date', 'description', 'amount', 'currency', 'wallet'], 'columns in display order');
  t.match(answered.rows[0], { date: recent.transactions[0].datetime.slice(0, 10), description: /^Lunch · Category /, amount: -7.5, currency: 'USD', wallet: 'Test wallet' }, 'an expense is negative');
  const bad = await newChat(user.token, 'Spending in a bad month');
  script.push(toolCall('spending_by_category', { start_date: 'March' }), text('Sorry.'));
  received.length = 0;
  await runJob();
  t.same(JSON.parse(received[1].body.messages.at(-1).content), { error: 'start_date must be a date as YYYY-MM-DD.' }, 'a bad argument goes back to the model');
  t.equal((await getChat(bad.id, user.token)).messages[1].status, 'completed');
});

t.test("POST /ai/chat: the model's Markdown as plain text, its figures in results, the Markdown only when asked", async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '500' });
  const food = await fx.category(user.user.id);
  const spent = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 20.25, wallet_id: wallet, categories: [food] } });
  t.equal(spent.status, 201);
  const markdown = '## Spending\n\n| Category | Total |\n| --- | --- |\n| **Food** | 20.25 USD |\n\n- mostly `food`';
  script.push(toolCall('spending_by_category', {}), text(markdown));
  const asked = await api.request('POST', '/api/v1/ai/chat', { token: user.token, body: { message: 'Where does my money go?', answer_format: 'markdown' } });
  t.equal(asked.status, 200);
  const answer = asked.body.data;
  t.equal(answer.answer, 'Spending\n\nCategory · Total\nFood · 20.25 USD\n\n• mostly food');
  t.notMatch(answer.answer, MARKUP, 'no Markdown marks');
  t.equal(answer.answer_markdown, markdown, 'asked for: the Markdown as the model wrote it');
  t.equal(answer.format_type, 'pair_list', 'category -> total');
  t.equal(answer.results.length, 1);
  t.match(answer.results[0], { category: /^Category /, total: 20.25 });
  const stored = (await getChat(answer.chat_id, user.token)).messages.find((m: any) => m.id === answer.message_id);
  t.same([stored.content, stored.content_markdown, stored.format_type, stored.rows], [answer.answer, answer.answer_markdown, answer.format_type, answer.results], 'the chat shows what the answer said');

  // not asked: no Markdown; a reply that proposes a change has its card, not figures
  script.push(toolCall('list_wallets', {}), toolCall('record_transaction', { amount: 5, type: 'expense', wallet_id: wallet }, 'call_2'), text('I prepared an expense of **5 USD**.'));
  const proposed = await api.request('POST', '/api/v1/ai/chat', { token: user.token, body: { message: 'I spent 5 on coffee' } });
  t.equal(proposed.status, 200);
  t.same([proposed.body.data.answer, proposed.body.data.format_type, proposed.body.data.results], ['I prepared an expense of 5 USD.', 'raw', []]);
  t.notOk('answer_markdown' in proposed.body.data, 'Markdown only when asked');

  const bad = await api.request('POST', '/api/v1/ai/chat', { token: user.token, body: { message: 'Hi', answer_format: 'html' } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.answer_format);
});

t.test('the provider down, failing or too slow: the local engine answers instead, and the reply says so', async (t) => {
  const fellBack = (reply: any) => [reply.status, reply.engine, reply.model_fallback, reply.error];
  const chat = await newChat(owner.token, 'How much is in my wallets?');
  script.push({ status: 500, body: { error: 'internal' } });
  await runJob();
  const reply = (await getChat(chat.id)).messages[1];
  t.same(fellBack(reply), ['completed', 'local', true, null], 'a 500 falls back');
  t.same([reply.format_type, reply.rows[0]], ['table', { wallet: 'Main Wallet', balance: 0, currency: 'USD' }], 'the balance comes from the list_wallets tool');
  t.same(reply.tool_calls.map((c: any) => c.name), ['list_wallets', 'list_categories', 'list_parties']);

  // the model calls a tool, then fails: its half-done work is dropped, the local engine proposes
  script.push(toolCall('list_wallets', {}), { body: 'not a completion' });
  await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: { message: 'I spent 12.50 on lunch' } });
  await runJob();
  const second = (await getChat(chat.id)).messages[3];
  t.same(fellBack(second), ['completed', 'local', true, null]);
  t.equal(second.actions.length, 1);
  t.same([second.actions[0].action_type, second.actions[0].payload.amount, second.actions[0].payload.type], ['transaction.create', 12.5, 'expense']);

  // nothing listens on this port
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: { message: 'Still there?' } });
  const services = { ...api.app.services, config: { ...api.app.services.config, llmBaseUrl: deadUrl } };
  await answerChatMessageJob.run({ db: api.db, services, log: silent }, {});
  const last = (await getChat(chat.id)).messages[5];
  t.same(fellBack(last), ['completed', 'local', true, null], 'an unreachable model falls back');
  t.match(last.content, /record an expense/, 'what it does not understand gets the list of what it can do');

  // slower than LLM_TIMEOUT
  await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: { message: 'Slowly?' } });
  script.push({ ...text('too late'), delayMs: 1500 });
  const impatient = { ...api.app.services, config: { ...api.app.services.config, llmTimeoutSeconds: 1 } };
  await answerChatMessageJob.run({ db: api.db, services: impatient, log: silent }, {});
  const slow = (await getChat(chat.id)).messages[7];
  t.same(fellBack(slow), ['completed', 'local', true, null], 'a timeout falls back');

  // a working model still answers, and says so
  await api.request('POST', `/api/v1/ai/chats/${chat.id}/messages`, { token: owner.token, body: { message: 'And now?' } });
  script.push(text('All good.'));
  await runJob();
  const model = (await getChat(chat.id)).messages[9];
  t.same([model.content, model.engine, model.model_fallback], ['All good.', 'model', false]);
});

t.test('a deleted chat drops its pending reply; a held reply is not answered', async (t) => {
  const held = await newChat(owner.token, 'Wait for my file', { defer_processing: true });
  received.length = 0;
  await runJob();
  t.equal(received.length, 0, 'the held reply is not answered');
  t.equal((await getChat(held.id)).messages[1].status, 'pending');
  await api.request('DELETE', `/api/v1/ai/chats/${held.id}`, { token: owner.token });
});

t.test('health reports the configured provider', async (t) => {
  llm.state.modelsStatus = 200;
  const up = await api.request('GET', '/api/v1/ai/health', { token: owner.token });
  t.equal(up.status, 200);
  t.same(up.body.data, { provider: 'openai-compatible', model: 'fake-model', configured: true, available: true, status: 'ok', document_processor_configured: false });
  llm.state.modelsStatus = 503;
  const down = await api.request('GET', '/api/v1/ai/health', { token: owner.token });
  t.equal(down.status, 200, 'always 200, in the envelope');
  t.equal(down.body.success, true);
  t.same([down.body.data.available, down.body.data.status], [false, 'unavailable']);
  llm.state.modelsStatus = 200;
  const integrations = await api.request('GET', '/api/v1/integrations', { token: owner.token });
  const model = integrations.body.data.find((i: any) => i.key === 'language-model');
  t.equal(model.configured, true, 'GET /integrations reports the language model configured');
});

t.test('without a provider: health says so, and the local engine answers', async (t) => {
  const bare = await startApp(t);
  const user = await bare.newUser();
  const health = await bare.request('GET', '/api/v1/ai/health', { token: user.token });
  t.same(health.body.data, { provider: 'local', model: null, configured: false, available: false, status: 'unavailable', document_processor_configured: false });
  const created = await bare.request('POST', '/api/v1/ai/chats', { token: user.token, body: { message: 'Hello there' } });
  t.equal(created.status, 201);
  await answerChatMessageJob.run({ db: bare.db, services: bare.app.services, log: silent }, {});
  const chat = (await bare.request('GET', `/api/v1/ai/chats/${created.body.data.id}`, { token: user.token })).body.data;
  t.same([chat.messages[1].status, chat.messages[1].engine, chat.messages[1].model_fallback], ['completed', 'local', false]);
  t.match(chat.messages[1].content, /without a language model/);
  t.same([chat.messages[0].engine, chat.messages[0].model_fallback], [null, false], 'a user message has no engine');
  t.equal(chat.has_pending_reply, false);
  t.equal(chat.title, 'Hello there', 'a chat is named after its first completed reply');
  const integrations = await bare.request('GET', '/api/v1/integrations', { token: user.token });
  t.equal(integrations.body.data.find((i: any) => i.key === 'language-model').configured, false);
});

t.test('two workers answer each pending reply exactly once; an abandoned one is taken up again', async (t) => {
  const chats = await Promise.all([1, 2, 3].map((n) => newChat(owner.token, `Question ${n}`)));
  script.push(text('A'), text('B'), text('C'));
  received.length = 0;
  await Promise.all([runJob(), runJob()]);
  t.equal(received.length, 3, 'one model call per reply');
  const replies = await Promise.all(chats.map(async (chat) => (await getChat(chat.id)).messages[1]));
  t.same(replies.map((r) => r.status), ['completed', 'completed', 'completed']);
  t.same(replies.map((r) => r.content).sort(), ['A', 'B', 'C']);

  // a worker died while processing: after 5 minutes the reply is claimed again
  const stuck = await newChat(owner.token, 'Stuck?');
  const replyId = stuck.messages[1].id;
  await api.db.updateTable('chat_messages').set({ status: 'processing' }).where('id', '=', replyId).execute();
  received.length = 0;
  await runJob();
  t.equal(received.length, 0, 'a reply being processed is left alone');
  script.push(text('Back again.'));
  const later = { ...api.app.services, now: () => new Date(Date.now() + 6 * 60_000) };
  await answerChatMessageJob.run({ db: api.db, services: later, log: silent }, {});
  t.equal((await getChat(stuck.id)).messages[1].content, 'Back again.');
});

t.test('a chat deleted while its reply is worked on stores nothing', async (t) => {
  const chat = await newChat(owner.token, 'Slow one');
  script.push({ ...toolCall('record_transaction', { amount: 1, type: 'expense', wallet_id: await fx.wallet(owner.user.id) }), delayMs: 300 }, text('done'));
  const running = runJob();
  const replyId = chat.messages[1].id;
  while ((await api.db.selectFrom('chat_messages').select('status').where('id', '=', replyId).executeTakeFirstOrThrow()).status !== 'processing') {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  t.equal((await api.request('DELETE', `/api/v1/ai/chats/${chat.id}`, { token: owner.token })).status, 200);
  await running;
  t.equal(script.length, 0, 'the model was still asked to finish');
  t.equal((await api.db.selectFrom('agent_actions').select('id').where('chat_session_id', '=', chat.id).execute()).length, 0);
  t.equal((await api.db.selectFrom('chat_messages').select('id').where('chat_session_id', '=', chat.id).execute()).length, 0);
});
