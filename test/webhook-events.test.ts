// The webhook event kinds beyond transactions and budgets, end to end over HTTP: transfer
// updates and deletes, an import session's confirm (small and whole-session), a CSV upload's
// completion, refund marks. Each delivery is signed and carries the record as the API shows
// it; a refused change sends nothing; an endpoint gets only the kinds it chose.
import t, { type Test } from 'tap';
import { deleteTransferLegs, liveLegs, updateTransferWithLegs } from '../db/transfers.js';
import { verifyWebhookSignature } from '../domain/webhook-events.js';
import { sessionConfirmed } from '../handlers/shared/import-confirm.js';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { runConfirm } from '../jobs/confirm-import.js';
import { deliverDueWebhooks } from '../jobs/deliver-webhooks.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { loadConfig } from '../server/config.js';
import { startApp } from './helpers/harness.js';
import { TEST_ENV } from './helpers/test-environment.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver.js';

const api = await startApp(t, {
  webhooks: { ...loadConfig(TEST_ENV).webhooks, allowedNetworks: ['127.0.0.1'], retryBaseMs: 0, maxAttempts: 3 },
});
const fixtures = ledgerFixtures(api);
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };
const run = () => deliverDueWebhooks(api.db, api.app.services);

type User = Awaited<ReturnType<typeof api.newUser>>;
interface Hook {
  id: string;
  kind: string;
  created_at: string;
  data: any;
}

async function receiverFor(t: Test, user: User, kinds: string[]): Promise<{ receiver: WebhookReceiver; hooks: () => Hook[] }> {
  const receiver = await startWebhookReceiver();
  t.teardown(() => receiver.close());
  const res = await api.request('POST', '/api/v1/webhooks', { token: user.token, body: { url: receiver.url, event_kinds: kinds } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  const secret: string = res.body.data.secret;
  // every delivery is verified by the Standard Webhooks library as it arrives, and by the
  // hand-written check of docs/webhooks.md before a test reads it
  receiver.secret = secret;
  const hooks = () =>
    receiver.received.map((hook) => {
      if (hook.verified !== true) throw new Error(`refused by the Standard Webhooks library (${hook.refusal}): ${hook.body}`);
      if (!verifyWebhookSignature(secret, String(hook.headers['webhook-id']), String(hook.headers['webhook-timestamp']), hook.body, String(hook.headers['webhook-signature']))) {
        throw new Error(`unsigned delivery: ${hook.body}`);
      }
      const body = JSON.parse(hook.body) as Hook;
      if (body.id !== hook.headers['webhook-id']) throw new Error('Webhook-Id is not the event id');
      return body;
    });
  return { receiver, hooks };
}

const get = async (user: User, path: string) => {
  const res = await api.request('GET', `/api/v1${path}`, { token: user.token });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
};

t.test('transfer.updated and transfer.deleted carry the transfer as the API shows it; its legs are not announced', async (t) => {
  const user = await api.newUser();
  const { hooks } = await receiverFor(t, user, ['transfer.updated', 'transfer.deleted']);
  const { hooks: legHooks } = await receiverFor(t, user, ['transaction.created', 'transaction.updated', 'transaction.deleted']);
  const from = await fixtures.wallet(user.user.id, { balance: '100' });
  const to = await fixtures.wallet(user.user.id);
  const made = await api.request('POST', '/api/v1/transfer', { token: user.token, body: { from_wallet_id: from, to_wallet_id: to, amount: 30 } });
  t.equal(made.status, 201);
  const id = made.body.data.id;

  const since = new Date(Date.now() - 1000).toISOString();
  t.equal((await api.request('PUT', `/api/v1/transfers/${id}`, { token: user.token, body: { amount: 40 } })).status, 200);
  await run();
  t.same(hooks().map((h) => h.kind), ['transfer.updated']);
  t.same(hooks()[0].data, await get(user, `/transfers/${id}`), 'data is the transfer as GET shows it');
  t.equal(hooks()[0].data.amount, 40);

  const refused = await api.request('PUT', `/api/v1/transfers/${id}`, { token: user.token, body: { amount: 500 } });
  t.equal(refused.status, 422, 'an overdraft is refused after the write began');
  t.equal((await api.request('DELETE', `/api/v1/transfers/${id}`, { token: user.token })).status, 200);
  await run();
  t.same(hooks().map((h) => h.kind), ['transfer.updated', 'transfer.deleted'], 'the refused update sent nothing');
  const deleted = hooks()[1].data;
  t.ok(deleted.deleted_at, 'a deleted transfer comes as its tombstone');
  const feed = await get(user, `/transfers?synced_since=${encodeURIComponent(since)}`);
  t.same(deleted, feed.data.find((row: { id: number }) => row.id === id), 'the tombstone as the sync feed shows it');
  t.same(legHooks(), [], 'the legs are not announced as transactions');
});

t.test('refund marks announce the income as transaction.updated', async (t) => {
  const user = await api.newUser();
  const { hooks } = await receiverFor(t, user, ['transaction.updated']);
  const wallet = await fixtures.wallet(user.user.id, { balance: '100' });
  const expense = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 20, wallet_id: wallet } });
  const income = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'income', amount: 20, wallet_id: wallet } });
  const incomeId = income.body.data.id;
  const mark = await api.request('POST', `/api/v1/transactions/${incomeId}/refund`, { token: user.token, body: { original_transaction_id: expense.body.data.id } });
  t.equal(mark.status, 200, JSON.stringify(mark.body));
  await run();
  t.same(hooks().map((h) => [h.kind, h.data.id]), [['transaction.updated', incomeId]]);
  t.match(hooks()[0].data, { is_refund: true, refund_of_transaction_id: expense.body.data.id });
  t.same(hooks()[0].data, await get(user, `/transactions/${incomeId}`));

  const refused = await api.request('POST', `/api/v1/transactions/${expense.body.data.id}/refund`, { token: user.token, body: {} });
  t.equal(refused.status, 422, 'an expense cannot be marked');
  t.equal((await api.request('DELETE', `/api/v1/transactions/${incomeId}/refund`, { token: user.token })).status, 200);
  await run();
  t.same(hooks().map((h) => h.kind), ['transaction.updated', 'transaction.updated'], 'the refused mark sent nothing');
  t.match(hooks()[1].data, { is_refund: false, refund_of_transaction_id: null });
});

const CSV_HEADER = 'Date,Amount,Currency,Type,Payee,Account,Category,Memo';

async function uploadCsv(user: User, content: string): Promise<number> {
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'march.csv', contentType: 'text/csv', data: Buffer.from(content) }]);
  const res = await api.request('POST', '/api/v1/import', { token: user.token, payload, headers });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.id;
}

t.test('import.completed: a CSV upload announces its rows, then itself once every row is handled', async (t) => {
  const user = await api.newUser();
  const { hooks } = await receiverFor(t, user, ['transaction.created', 'transfer.created', 'import.completed']);
  const { hooks: unsubscribed } = await receiverFor(t, user, ['import.confirmed', 'transfer.updated']);
  const { hooks: second } = await receiverFor(t, user, ['transaction.created']);
  const importId = await uploadCsv(
    user,
    [
      CSV_HEADER,
      '2026-03-01,1000,USD,income,Employer,Main Wallet,Salary,March pay',
      '2026-03-02,12.5,USD,expense,Cafe,Main Wallet,Coffee,Latte',
      '2026-03-05,100,USD,+Transfer,,Main Wallet,,',
      '2026-03-05,100,USD,-Transfer,,Savings,,',
      '2026-03-07,abc,USD,expense,,Main Wallet,,',
    ].join('\n'),
  );
  await run();
  t.same(hooks(), [], 'nothing before the job imports');
  await processCsvImportJob.run(jobCtx, { importId });
  await run();

  const received = hooks();
  t.same(received.map((h) => h.kind).sort(), ['import.completed', 'transaction.created', 'transaction.created', 'transfer.created']);
  t.equal(received.at(-1)!.kind, 'import.completed', 'the import comes after its rows');
  const listed = (await get(user, '/imports')).data.find((row: { id: number }) => row.id === importId);
  t.same(received.at(-1)!.data, listed, 'data is the import as GET /imports lists it');
  t.match(listed, { status: 'completed', failed_imports_count: 1 });
  for (const hook of received.filter((h) => h.kind === 'transaction.created')) {
    t.same(hook.data, await get(user, `/transactions/${hook.data.id}`), `transaction ${hook.data.id} as GET shows it`);
  }
  t.same(unsubscribed(), [], 'an endpoint that chose other kinds gets nothing');
  const rowEvents = (list: Hook[]) => list.filter((h) => h.kind === 'transaction.created').map((h) => h.id).sort();
  t.same(rowEvents(second()), rowEvents(received), 'a second endpoint gets the same row events');
});

async function analysedSession(user: User, csv: string): Promise<number> {
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'bank.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const res = await api.request('POST', '/api/v1/import/analyze', { token: user.token, payload, headers });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  return res.body.data.id;
}

const SESSION_CSV = ['Date,Description,Amount,Currency,Account', '2026-03-01,Groceries,-12.50,USD,Main Wallet', '2026-03-03,Books,-20,USD,Main Wallet', '2026-03-05,Salary,1000,USD,Main Wallet'].join(
  '\n',
);

t.test('import.confirmed: a small confirm that creates transactions announces the session once, with its counts', async (t) => {
  const user = await api.newUser();
  const wallet = await fixtures.mainWallet(user.user.id);
  await fixtures.setBalance(wallet, '100');
  const { hooks } = await receiverFor(t, user, ['import.confirmed']);
  const sessionId = await analysedSession(user, SESSION_CSV);

  const nothing = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: sessionId, accepted: [{ index: 0, wallet_id: 999999999 }] } });
  t.equal(nothing.status, 422, 'a refused confirm');
  const failing = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: sessionId, accepted: [{ index: 0, amount: 5000 }] } });
  t.equal(failing.status, 200);
  t.equal(failing.body.data.created_count, 0, 'an overdraft: nothing created');
  await run();
  t.same(hooks(), [], 'a confirm that created nothing announces nothing');

  const confirmed = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: sessionId, accepted: [{ index: 0 }, { index: 1 }] } });
  t.equal(confirmed.body.data.created_count, 2, JSON.stringify(confirmed.body));
  await run();
  t.same(hooks().map((h) => h.kind), ['import.confirmed']);
  const shown = await get(user, `/import/sessions/${sessionId}?suggestions_limit=0`);
  t.same(hooks()[0].data, shown, 'data is the session as GET shows it, without its suggestions');
  t.match(shown, { id: sessionId, status: 'confirmed', progress: 2, total_suggestions: 3, suggestions: [] });
});

t.test('import.confirmed: a whole-session confirm announces the session once, when its last batch commits', async (t) => {
  const user = await api.newUser();
  const wallet = await fixtures.mainWallet(user.user.id);
  await fixtures.setBalance(wallet, '100');
  const { hooks } = await receiverFor(t, user, ['import.confirmed', 'transaction.created']);
  const sessionId = await analysedSession(user, SESSION_CSV);
  const started = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: sessionId, accept_all: true } });
  t.equal(started.status, 202);
  await run();
  t.same(hooks(), [], 'nothing while the run has not started');
  await runConfirm(jobCtx, sessionId);
  await run();

  const received = hooks();
  t.same(received.map((h) => h.kind), ['transaction.created', 'transaction.created', 'transaction.created', 'import.confirmed'], 'the rows one by one (a batch), then the session');
  const shown = await get(user, `/import/sessions/${sessionId}?suggestions_limit=0`);
  t.same(received[3].data, shown);
  t.match(shown.metadata.confirm, { state: 'done', created_count: 3 });

  const again = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: sessionId, accept_all: true } });
  t.equal(again.status, 202);
  await runConfirm(jobCtx, sessionId);
  await run();
  t.equal(hooks().length, 4, 'a second run that creates nothing announces nothing');
});

t.test('the new kinds are recorded in the change’s own database transaction: a rollback leaves no event', async (t) => {
  const user = await api.newUser();
  await receiverFor(t, user, ['transfer.updated', 'transfer.deleted', 'import.confirmed']);
  const from = await fixtures.wallet(user.user.id, { balance: '100' });
  const to = await fixtures.wallet(user.user.id);
  const { transferId } = await fixtures.transfer(user.user.id, from, to, '10');
  const sessionId = await analysedSession(user, SESSION_CSV);
  const session = await api.db.selectFrom('import_sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
  const now = new Date();
  const aborted = api.db.transaction().execute(async (trx) => {
    await updateTransferWithLegs(trx, user.user.id, transferId, { updated_at: now, last_synced_at: now }, { datetime: now });
    await deleteTransferLegs(trx, user.user.id, transferId, await liveLegs(trx, user.user.id, transferId), now);
    await sessionConfirmed(trx, session, now);
    t.equal((await trx.selectFrom('webhook_events').select('kind').where('user_id', '=', user.user.id).execute()).length, 3, 'recorded inside');
    throw new Error('the change fails after its events were recorded');
  });
  await t.rejects(aborted);
  t.same(await api.db.selectFrom('webhook_events').select('kind').where('user_id', '=', user.user.id).execute(), [], 'none survives the rollback');
  t.same(await run(), { attempts: 0, succeeded: 0 });
});
