// What the assistant proposes: write tools only create proposals; confirm executes one once
// through the ledger's write paths (a second confirm returns the same result), reject
// discards, batches go together, a confirmed party resumes the request.
import t from 'tap';
import { ANSWER_CHAT_MESSAGE_JOB } from '../db/job-names.js';
import { assistantTestApp, text, toolCall } from './helpers/assistant.js';

const { api, script, received, nudges, owner, stranger, fx, newChat, getChat, runJob, balanceOf } = await assistantTestApp(t);

t.test('a write tool only proposes; confirm writes exactly one transaction, once', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '100' });
  const chat = await newChat(owner.token, 'I spent 20 on coffee');
  script.push(toolCall('record_transaction', { amount: 20, type: 'expense', wallet_id: wallet, description: 'Coffee' }), text('I prepared the expense; please confirm it.'));
  await runJob();
  const before = await api.db.selectFrom('transactions').select('id').where('user_id', '=', owner.user.id).execute();
  const reply = (await getChat(chat.id)).messages[1];
  t.equal(reply.actions.length, 1);
  const action = reply.actions[0];
  t.equal(action.status, 'proposed');
  t.equal(action.action_type, 'transaction.create');
  t.equal(action.summary, 'Log an expense of 20 USD for Coffee.');
  t.same(action.payload, { amount: 20, type: 'expense', wallet_id: wallet, description: 'Coffee' });
  t.equal(action.fields.find((f: any) => f.key === 'wallet_id').display, 'Test wallet');
  const card = reply.blocks.find((b: any) => b.type === 'proposed_action');
  t.equal(card.id, action.id);
  t.equal(card.confirm_url, `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`);
  t.equal(await balanceOf(wallet), '100.0000', 'nothing is written by a proposal');

  const url = `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`;
  t.equal((await api.request('POST', url, { token: stranger.token })).status, 404, 'another user cannot confirm');
  t.equal((await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/999999/confirm`, { token: owner.token })).body.message, 'Action not found.');

  const [first, second] = await Promise.all([api.request('POST', url, { token: owner.token }), api.request('POST', url, { token: owner.token })]);
  t.same([first.status, second.status], [200, 200]);
  t.same([first.body.message, second.body.message].sort(), ['Action already completed.', 'Action completed.'], 'concurrent confirms execute once');
  t.equal(first.body.data.action.status, 'confirmed');
  t.equal(first.body.data.resource.id, second.body.data.resource.id, 'both return the same record');
  t.equal(first.body.data.action.resource_type, 'transaction');
  const third = await api.request('POST', url, { token: owner.token });
  t.equal(third.body.message, 'Action already completed.');
  t.same(third.body.data.resource, first.body.data.resource);
  const after = await api.db.selectFrom('transactions').selectAll().where('user_id', '=', owner.user.id).execute();
  t.equal(after.length, before.length + 1, 'exactly one transaction');
  const written = after.find((row) => row.id === first.body.data.resource.id)!;
  t.equal(written.client_generated_id, action.idempotency_key, 'the idempotency key is its client id');
  t.equal(await balanceOf(wallet), '80.0000', 'the wallet balance moved once');
  const card2 = (await getChat(chat.id)).messages[1].blocks.find((b: any) => b.type === 'proposed_action');
  t.equal(card2.status, 'confirmed', 'the card follows the ledger');

  const reject = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/reject`, { token: owner.token });
  t.equal(reject.status, 409);
  t.equal(reject.body.message, 'This action was already completed.');
});

t.test('confirm with overrides; invalid overrides change nothing; an overdraft fails the action', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '50' });
  const chat = await newChat(owner.token, 'Two expenses');
  script.push(
    toolCall('record_transaction', { amount: 10, type: 'expense', wallet_id: wallet }, 'a'),
    toolCall('record_transaction', { amount: 500, type: 'expense', wallet_id: wallet }, 'b'),
    text('Please confirm.'),
  );
  await runJob();
  const [small, big] = (await getChat(chat.id)).messages[1].actions;
  const confirm = (id: number, body?: object) => api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${id}/confirm`, { token: owner.token, body });

  const bad = await confirm(small.id, { overrides: { amount: -5 } });
  t.equal(bad.status, 422);
  t.same(bad.body.errors, { amount: ['Amount must be greater than zero.'] });
  const foreignWallet = await fx.wallet(stranger.user.id);
  const foreign = await confirm(small.id, { overrides: { wallet_id: foreignWallet } });
  t.equal(foreign.status, 422);
  t.ok(foreign.body.errors.wallet_id);
  t.equal((await getChat(chat.id)).messages[1].actions[0].status, 'proposed', 'invalid overrides change nothing');

  const ok = await confirm(small.id, { overrides: { amount: 15, user_id: stranger.user.id } });
  t.equal(ok.status, 200);
  t.equal(ok.body.data.resource.amount, 15);
  t.equal(ok.body.data.action.payload.amount, 15);
  t.equal(ok.body.data.action.summary, 'Log an expense of 15 USD.');
  t.equal(await balanceOf(wallet), '35.0000');

  const overdraft = await confirm(big.id);
  t.equal(overdraft.status, 422);
  t.ok(overdraft.body.errors.amount);
  const failed = (await getChat(chat.id)).messages[1].actions[1];
  t.equal(failed.status, 'failed');
  t.ok(failed.error);
  t.equal(await balanceOf(wallet), '35.0000', 'nothing written');
  const retried = await confirm(big.id, { overrides: { amount: 35 } });
  t.equal(retried.status, 200, 'a failed action can be confirmed again');
  t.equal(await balanceOf(wallet), '0.0000');
});

t.test('write tools take amounts and dates exactly; an impossible one goes back to the model, never to a proposal', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '10' });
  // Before: "1e3" was read as 1000, 0.1 + 0.2 as the model computed it was proposed (and only
  // refused at confirm), 2026-02-30 became March 2, and a range ending 9999-12-31 failed the reply.
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ amount: '1e3' }, 'Amount must be greater than zero.'],
    [{ amount: 0.1 + 0.2 }, 'The amount may have at most 4 decimal places.'],
    [{ amount: '12.34567' }, 'The amount may have at most 4 decimal places.'],
    [{ amount: 1e15 }, 'The amount is too large.'],
    [{ amount: -0 }, 'Amount must be greater than zero.'],
    [{ amount: 1, datetime: '2026-02-30T10:00:00Z' }, 'datetime must be an ISO 8601 date-time.'],
    [{ amount: 1, datetime: '+275760-09-13T00:00:00.000Z' }, 'datetime must be an ISO 8601 date-time.'],
  ];
  for (const [args, error] of cases) {
    const chat = await newChat(owner.token, 'Log it');
    script.push(toolCall('record_transaction', { type: 'expense', wallet_id: wallet, ...args }), text('Which amount?'));
    received.length = 0;
    await runJob();
    t.same(JSON.parse(received[1].body.messages.at(-1).content), { error }, JSON.stringify(args));
    t.same((await getChat(chat.id)).messages[1].actions, [], 'nothing proposed');
  }
  const chat = await newChat(owner.token, 'Spending ever');
  script.push(toolCall('spending_by_category', { start_date: '0001-01-01', end_date: '9999-12-31' }), text('Pick a range.'));
  received.length = 0;
  await runJob();
  t.same(JSON.parse(received[1].body.messages.at(-1).content), { error: 'start_date must be a date as YYYY-MM-DD.' });
  t.equal((await getChat(chat.id)).messages[1].status, 'completed', 'the reply is still answered');

  const exact = await newChat(owner.token, 'Log 2.50');
  script.push(toolCall('record_transaction', { type: 'expense', wallet_id: wallet, amount: '2.50' }), text('Confirm it.'));
  await runJob();
  const [action] = (await getChat(exact.id)).messages[1].actions;
  t.equal(action.payload.amount, 2.5, 'a plain decimal string is fine');
  const url = `/api/v1/ai/chats/${exact.id}/actions/${action.id}/confirm`;
  const huge = await api.request('POST', url, { token: owner.token, body: { overrides: { amount: 1e16, type: 'income' } } });
  t.equal(huge.status, 422);
  t.same(huge.body.errors, { amount: ['The amount is too large.'] });
  t.equal((await api.request('POST', url, { token: owner.token })).status, 200);
  t.equal(await balanceOf(wallet), '7.5000');
});

t.test('reject discards; a rejected action cannot be confirmed', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '10' });
  const chat = await newChat(owner.token, 'Record income');
  script.push(toolCall('record_transaction', { amount: 5, type: 'income', wallet_id: wallet }), text('Confirm?'));
  await runJob();
  const [action] = (await getChat(chat.id)).messages[1].actions;
  const url = `/api/v1/ai/chats/${chat.id}/actions/${action.id}`;
  t.equal((await api.request('POST', `${url}/reject`, { token: stranger.token })).status, 404);
  const rejected = await api.request('POST', `${url}/reject`, { token: owner.token });
  t.equal(rejected.status, 200);
  t.equal(rejected.body.message, 'Action dismissed.');
  t.equal(rejected.body.data.action.status, 'rejected');
  t.ok(rejected.body.data.action.rejected_at);
  t.equal(rejected.body.data.resource, null);
  t.equal((await api.request('POST', `${url}/reject`, { token: owner.token })).status, 200, 'rejecting again is a no-op');
  const confirm = await api.request('POST', `${url}/confirm`, { token: owner.token });
  t.equal(confirm.status, 409);
  t.equal(confirm.body.message, 'This action can no longer be confirmed.');
  t.equal(await balanceOf(wallet), '10.0000');
});

t.test('a batch is confirmed or rejected together', async (t) => {
  const wallet = await fx.wallet(owner.user.id, { balance: '30' });
  const chat = await newChat(owner.token, 'Three expenses');
  script.push(
    toolCall('record_transactions', { transactions: [{ amount: 10, type: 'expense', wallet_id: wallet }, { amount: 100, type: 'expense', wallet_id: wallet }, { amount: 5, type: 'expense', wallet_id: wallet }] }),
    text('Confirm the batch?'),
  );
  await runJob();
  const reply = (await getChat(chat.id)).messages[1];
  t.equal(reply.actions.length, 3);
  const batchId = reply.actions[0].batch_id;
  t.ok(batchId);
  t.ok(reply.actions.every((a: any) => a.batch_id === batchId));
  const card = reply.blocks.find((b: any) => b.type === 'proposed_action_batch');
  t.equal(card.batch, batchId);
  t.equal(card.actions.length, 3);

  const url = `/api/v1/ai/chats/${chat.id}/actions/${reply.actions[1].id}/confirm`;
  const withOverrides = await api.request('POST', url, { token: owner.token, body: { overrides: { amount: 1 } } });
  t.equal(withOverrides.status, 422);
  t.ok(withOverrides.body.errors.overrides);
  const confirmed = await api.request('POST', url, { token: owner.token });
  t.equal(confirmed.status, 200);
  t.equal(confirmed.body.message, '2 done, 1 could not be completed.', 'members are independent');
  t.equal(confirmed.body.data.batch.confirmed_count, 2);
  t.equal(confirmed.body.data.batch.failed_count, 1);
  t.equal(await balanceOf(wallet), '15.0000');
  const again = await api.request('POST', url, { token: owner.token });
  t.equal(again.body.data.batch.confirmed_count, 2, 'confirmed members never run twice');
  t.equal(await balanceOf(wallet), '15.0000');

  const rejected = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${reply.actions[0].id}/reject`, { token: owner.token });
  t.equal(rejected.status, 200);
  t.equal(rejected.body.message, 'Actions dismissed.');
  t.same(rejected.body.data.batch.actions.map((a: any) => a.status), ['confirmed', 'rejected', 'confirmed'], 'only members not yet confirmed are rejected');
  const batchCard = (await getChat(chat.id)).messages[1].blocks.find((b: any) => b.type === 'proposed_action_batch');
  t.equal(batchCard.status, 'confirmed');
});

t.test('a write tool with an unknown wallet tells the model, and proposes nothing', async (t) => {
  const chat = await newChat(owner.token, 'Spent 5 from Piggy');
  script.push(toolCall('record_transaction', { amount: 5, type: 'expense', wallet_name: 'Piggy' }), text('Which wallet?'));
  received.length = 0;
  await runJob();
  t.same(JSON.parse(received[1].body.messages.at(-1).content), { error: 'No wallet named "Piggy" was found.' });
  t.same((await getChat(chat.id)).messages[1].actions, []);
});

t.test('a transfer proposal is confirmed once through the transfer path', async (t) => {
  const user = await api.newUser();
  const cash = await fx.wallet(user.user.id, { balance: '100' });
  const bank = await fx.wallet(user.user.id, { balance: '0' });
  const euros = await fx.wallet(user.user.id, { balance: '0', currency: 'EUR' });
  await api.db.updateTable('wallets').set({ name: 'Cash' }).where('id', '=', cash).execute();
  await api.db.updateTable('wallets').set({ name: 'Bank' }).where('id', '=', bank).execute();
  const chat = await newChat(user.token, 'Move 40 from cash to the bank');
  script.push(
    toolCall('record_transfer', { amount: 40, from_wallet_name: 'cash', to_wallet_id: euros }, 'a'),
    toolCall('record_transfer', { amount: 40, from_wallet_name: 'cash', to_wallet_name: 'Bank' }, 'b'),
    text('Confirm the transfer?'),
  );
  received.length = 0;
  await runJob();
  t.match(JSON.parse(received[1].body.messages.at(-1).content).error, /exchange rate from USD to EUR is required/, 'between currencies a rate is asked for');
  const [action] = (await getChat(chat.id, user.token)).messages[1].actions;
  t.equal(action.action_type, 'transfer.create');
  t.equal(action.summary, 'Transfer 40 USD from Cash to Bank.');
  t.same(action.payload, { amount: 40, from_wallet_id: cash, to_wallet_id: bank, exchange_rate: 1 });

  const url = `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`;
  const same = await api.request('POST', url, { token: user.token, body: { overrides: { to_wallet_id: cash } } });
  t.equal(same.status, 422, 'overrides are checked again');
  t.ok(same.body.errors.to_wallet_id);
  const confirmed = await api.request('POST', url, { token: user.token, body: { overrides: { amount: 30 } } });
  t.equal(confirmed.status, 200);
  t.equal(confirmed.body.data.action.resource_type, 'transfer');
  t.equal(confirmed.body.data.resource.amount, 30);
  t.equal(confirmed.body.data.resource.source_wallet.name, 'Cash');
  t.equal((await api.request('POST', url, { token: user.token })).body.message, 'Action already completed.');
  t.same([await balanceOf(cash), await balanceOf(bank)], ['70.0000', '30.0000'], 'money moved once');
  const transfers = await api.db.selectFrom('transfers').selectAll().where('user_id', '=', user.user.id).execute();
  t.equal(transfers.length, 1);
  t.equal(transfers[0].client_generated_id, action.idempotency_key);
  const listed = await api.request('GET', '/api/v1/transfers', { token: user.token });
  t.equal(listed.body.data.data.length, 1, 'an ordinary transfer');
});

t.test('a confirmed expense alerts budgets like any other expense', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '1000' });
  const budget = await api.request('POST', '/api/v1/budgets', {
    token: user.token,
    body: { name: 'Everything', amount: 100, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', forecast_alerts_enabled: false },
  });
  t.equal(budget.status, 201, JSON.stringify(budget.body));
  const chat = await newChat(user.token, 'I spent 95 on shoes');
  script.push(toolCall('record_transaction', { amount: 95, type: 'expense', wallet_id: wallet, description: 'Shoes' }), text('Confirm?'));
  await runJob();
  const [action] = (await getChat(chat.id, user.token)).messages[1].actions;
  const alerts = () => api.db.selectFrom('notifications').select('type').where('user_id', '=', user.user.id).where('reminder_id', 'is not', null).execute();
  t.same(await alerts(), [], 'no alert before the confirm');
  nudges.length = 0;
  const confirmed = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`, { token: user.token });
  t.equal(confirmed.status, 200);
  t.equal((await alerts()).length, 1, 'the budget threshold alert was raised');
});

t.test('confirming a created party resumes the request (at most 5 replies per question)', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '100' });
  const chat = await newChat(user.token, 'Paid 12 to Bob');
  script.push(toolCall('create_party', { name: 'Bob', type: 'individual' }), text('Bob is not a party yet: confirm creating him first.'));
  await runJob();
  const [action] = (await getChat(chat.id, user.token)).messages[1].actions;
  t.same([action.action_type, action.risk, action.summary], ['party.create', 'low', 'Create a party "Bob".']);
  const bad = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`, { token: user.token, body: { overrides: { type: 'alien' } } });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.type);

  nudges.length = 0;
  const confirmed = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`, { token: user.token });
  t.equal(confirmed.status, 200);
  t.equal(confirmed.body.data.resource.name, 'Bob');
  t.equal(confirmed.body.data.action.resource_type, 'party');
  const continuation = confirmed.body.data.continuation_message_id;
  t.type(continuation, 'number');
  t.same(nudges, [ANSWER_CHAT_MESSAGE_JOB]);
  const pending = (await getChat(chat.id, user.token)).messages.at(-1);
  t.same([pending.id, pending.role, pending.status], [continuation, 'assistant', 'pending']);

  script.push(toolCall('record_transaction', { amount: 12, type: 'expense', wallet_id: wallet, party_name: 'bob' }), toolCall('create_party', { name: 'Alice' }, 'c2'), text('Now confirm the expense.'));
  received.length = 0;
  await runJob();
  const sent = received[0].body.messages;
  t.same(sent.slice(1).map((m: any) => m.role), ['user', 'assistant', 'user'], 'the question, the reply that proposed, and the resume note');
  t.equal(sent.at(-1).content, '(Confirmed: Create a party "Bob". Please continue with my request.)');
  const resumed = (await getChat(chat.id, user.token)).messages.at(-1);
  t.equal(resumed.status, 'completed');
  const expense = resumed.actions.find((a: any) => a.action_type === 'transaction.create');
  t.equal(expense.payload.party_id, confirmed.body.data.resource.id, 'the new party is used');

  // three more replies to the same question: the fifth reply is the limit
  for (let i = 0; i < 3; i++) {
    await api.db.insertInto('chat_messages').values({ user_id: user.user.id, chat_session_id: chat.id, role: 'assistant', status: 'completed', content: `filler ${i}` }).execute();
  }
  const alice = resumed.actions.find((a: any) => a.action_type === 'party.create');
  const capped = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${alice.id}/confirm`, { token: user.token });
  t.equal(capped.status, 200);
  t.equal(capped.body.data.continuation_message_id, null, 'no sixth reply');
  const again = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`, { token: user.token });
  t.equal(again.body.data.continuation_message_id, null, 'a repeated confirm resumes nothing');
});
