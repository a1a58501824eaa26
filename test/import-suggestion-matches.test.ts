// The records an import suggestion was matched to, when they are hard-deleted after analysis
// (migration 030: the matches carry no foreign keys). No route hard-deletes a wallet, party or
// category (they are soft-deleted; an account's deletion takes its sessions too), so the rows
// are deleted here by hand. The session still shows the ids analysis matched, as it does for a
// soft-deleted record, and a confirm treats them as unmatched: a party or category is left
// out (or created by name when asked), a wallet must be chosen, as for a soft-deleted one.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { runConfirm } from '../jobs/confirm-import.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };

const wallet = await fx.mainWallet(owner.user.id);
const partyId = await fx.party(owner.user.id); // "ACME Corp"
const categoryId = await fx.category(owner.user.id, 'expense');
const categoryName = (await api.db.selectFrom('categories').select('name').where('id', '=', categoryId).executeTakeFirstOrThrow()).name;
// a wallet no transaction uses, so it can be deleted outright
const spare = await api.db
  .insertInto('wallets')
  .values({ user_id: owner.user.id, name: 'Spare', slug: `spare-${randomUUID()}`, type: 'bank', currency: 'USD', opening_balance: '0', balance: '0' })
  .returning('id')
  .executeTakeFirstOrThrow();

const CSV = [
  'Date,Description,Amount,Currency,Account,Payee,Category',
  `2026-04-01,Tools,-12.50,USD,Main Wallet,ACME Corp,${categoryName}`,
  '2026-04-02,Paper,-3.00,USD,Spare,,',
].join('\n');

async function analysedSession(): Promise<number> {
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'april.csv', contentType: 'text/csv', data: Buffer.from(CSV) }]);
  const res = await api.request('POST', '/api/v1/import/analyze', { token: owner.token, payload, headers });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  return res.body.data.id;
}
const get = async (id: number) => (await api.request('GET', `/api/v1/import/sessions/${id}`, { token: owner.token })).body.data;

const small = await analysedSession();
const whole = await analysedSession();

t.test('analysis matched the records, which are then deleted outright', async (t) => {
  t.match((await get(small)).suggestions, [{ wallet_id: wallet, party_id: partyId, category_id: categoryId }, { wallet_id: spare.id, party_id: null, category_id: null }]);
  await api.db.deleteFrom('parties').where('id', '=', partyId).execute();
  await api.db.deleteFrom('categories').where('id', '=', categoryId).execute();
  await api.db.deleteFrom('wallets').where('id', '=', spare.id).execute();
});

t.test('the session still shows the ids analysis matched', async (t) => {
  const session = await get(small);
  t.match(session, { status: 'ready', total_suggestions: 2 });
  t.match(session.suggestions, [
    { index: 0, wallet_id: wallet, party_id: partyId, category_id: categoryId, party: 'ACME Corp' },
    { index: 1, wallet_id: spare.id, wallet: 'Spare' },
  ]);
});

t.test('a small confirm treats them as unmatched', async (t) => {
  const res = await api.request('POST', '/api/v1/import/confirm', { token: owner.token, body: { session_id: small, accepted: [{ index: 0 }, { index: 1 }], auto_create_parties: true } });
  t.equal(res.status, 200);
  const [tools, paper] = res.body.data.results;
  t.match(tools, { index: 0, status: 'created', wallet_id: wallet, category_id: null, error: null });
  t.ok(tools.party_id && tools.party_id !== partyId, 'the party is created again by name');
  t.match(paper, { index: 1, status: 'failed', error: 'The matched wallet was deleted: select a wallet.' });
});

t.test('a whole confirm treats them as unmatched', async (t) => {
  const started = await api.request('POST', '/api/v1/import/confirm', { token: owner.token, body: { session_id: whole, accept_all: true } });
  t.equal(started.status, 202);
  await runConfirm(jobCtx, whole);
  const session = await get(whole);
  t.match(session.metadata.confirm, { state: 'done', created_count: 1, failed_count: 1 });
  t.match(session.suggestions, [{ index: 0, status: 'imported' }, { index: 1, status: 'failed', error: 'The matched wallet was deleted: select a wallet.' }]);
  const created = await api.db.selectFrom('transactions').select(['wallet_id', 'party_id']).where('id', '=', session.suggestions[0].transaction_id).executeTakeFirstOrThrow();
  t.same(created, { wallet_id: wallet, party_id: null }, 'no party without auto-creation');
  t.same(await walletsOffLedger(api.db, owner.user.id), []);
});
