// A whole-session confirm marks each suggestion with the transaction it created (migration 031:
// the link has no foreign key, and the mark is a HOT update). The link must still name the
// user's own transaction of the suggestion's amount, and the mark must leave every index of
// import_suggestions alone: pg_stat_xact_user_tables counts the current transaction's updates
// and how many of them were HOT (none with full pages and an indexed transaction_id; about one in
// seven not with pages half full).
import t from 'tap';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { runConfirm } from '../jobs/confirm-import.js';
import { markBatchImported } from '../db/import-confirm-runs.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const owner = await api.newUser();
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };
const ROWS = 240;

async function analysedSession(year: number): Promise<number> {
  const lines = ['Date,Description,Amount,Currency,Account'];
  for (let i = 0; i < ROWS; i++) lines.push(`${year}-0${1 + (i % 9)}-${String(1 + (i % 28)).padStart(2, '0')},Row ${i},-${i + 1}.25,EUR,Giro`);
  const { payload, headers } = multipart([], [{ field: 'file', filename: `${year}.csv`, contentType: 'text/csv', data: Buffer.from(lines.join('\n')) }]);
  const res = await api.request('POST', '/api/v1/import/analyze', { token: owner.token, payload, headers });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  return res.body.data.id;
}

t.test('each confirmed suggestion names its own transaction', async (t) => {
  const id = await analysedSession(2031);
  const started = await api.request('POST', '/api/v1/import/confirm', { token: owner.token, body: { session_id: id, accept_all: true, auto_create_wallets: true } });
  t.equal(started.status, 202);
  await runConfirm(jobCtx, id);
  const links = await api.db
    .selectFrom('import_suggestions as s')
    .leftJoin('transactions as x', (join) => join.onRef('x.id', '=', 's.transaction_id').onRef('x.user_id', '=', 's.user_id'))
    .select(['s.suggestion_index', 's.amount', 's.status', 'x.id as transaction', 'x.amount as transaction_amount', 'x.description'])
    .where('s.import_session_id', '=', id)
    .orderBy('s.suggestion_index')
    .execute();
  t.equal(links.length, ROWS);
  t.ok(links.every((link) => link.status === 'confirmed' && link.transaction !== null), 'every suggestion confirmed with a transaction of the user');
  t.ok(links.every((link) => link.transaction_amount === link.amount && link.description === `Row ${link.suggestion_index}`), 'each link names the row it was made from');
  t.equal(new Set(links.map((link) => link.transaction)).size, ROWS, 'one transaction per suggestion');
  t.same(await walletsOffLedger(api.db, owner.user.id), []);
});

t.test('marking a batch imported touches no index (a HOT update)', async (t) => {
  const id = await analysedSession(2032);
  const suggestions = await api.db.selectFrom('import_suggestions').select('id').where('import_session_id', '=', id).orderBy('suggestion_index').execute();
  const transactions = await api.db.selectFrom('transactions').select('id').where('user_id', '=', owner.user.id).orderBy('id').limit(ROWS).execute();
  // read before and after inside one transaction: the view may also hold earlier transactions' counts not yet flushed
  const counters = async (trx: Transaction<Database>) =>
    (await sql<{ updated: string; hot: string }>`select n_tup_upd as updated, n_tup_hot_upd as hot from pg_stat_xact_user_tables where relname = 'import_suggestions'`.execute(trx)).rows[0];
  const counts = await api.db.transaction().execute(async (trx) => {
    const before = await counters(trx);
    await markBatchImported(trx, suggestions.map((s, at) => ({ id: s.id, transactionId: transactions[at].id })), new Date());
    const after = await counters(trx);
    return { updated: Number(after.updated) - Number(before.updated), hot: Number(after.hot) - Number(before.hot) };
  });
  t.equal(Number(counts.updated), ROWS, 'every suggestion updated');
  t.equal(Number(counts.hot), ROWS, 'every update HOT');
});
