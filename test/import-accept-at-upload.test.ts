// `accept_all` at upload (POST /import/analyze): a statement imported in one request. A bank
// CSV's batches are imported as analysis stores them (two equal rows of the file are two
// payments, not duplicates of each other), a run stopped mid-way resumes after its last commit;
// other documents go from `ready` straight into a whole-session confirm. The confirm job is
// nudged and ends the run as a confirm's `accept_all` would: duplicates of the ledger skipped,
// wallets created (a statement's at its opening balance), balances on their ledgers. The
// `auto_create_*` flags alone are refused with nothing written.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { confirmImportJob } from '../jobs/confirm-import.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const owner = await api.newUser();
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };

// the queue as the service has it, recorded: which job the analysis nudges for which session
const nudges: Array<{ name: string; data: object }> = [];
api.app.services.jobs.attach({ send: async (name, data = {}) => void nudges.push({ name, data }) });

function upload(fileName: string, content: Buffer | string, fields: Array<[string, string]>, token: string | null = owner.token) {
  const { payload, headers } = multipart(fields, [{ field: 'file', filename: fileName, contentType: 'application/octet-stream', data: Buffer.from(content) }]);
  return api.request('POST', '/api/v1/import/analyze', { token: token ?? undefined, payload, headers });
}

const session = async (id: number) => (await api.request('GET', `/api/v1/import/sessions/${id}?suggestions_limit=0`, { token: owner.token })).body.data;
const counts = async () => ({
  sessions: (await api.db.selectFrom('import_sessions').select('id').where('user_id', '=', owner.user.id).execute()).length,
  files: (await api.db.selectFrom('files').select('id').where('user_id', '=', owner.user.id).execute()).length,
});
const liveTransactions = async (walletId: number) =>
  api.db.selectFrom('transactions').select(['amount', 'type', 'description']).where('wallet_id', '=', walletId).where('deleted_at', 'is', null).execute();

// a Volksbank-style export, Latin-1 with a preamble: three analysis batches (2,000 rows each)
const ROWS = 4100;
const IBAN = 'DE02120300000000202051';
const rowOf = (i: number) => {
  const day = 1 + (i % 28);
  const cents = 250 + ((i * 53) % 20000);
  const income = i % 7 === 0;
  return { date: `${String(day).padStart(2, '0')}.02.2026`, iso: `2026-02-${String(day).padStart(2, '0')}`, amount: `${income ? '' : '-'}${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`, cents, income, text: `Kartenzahlung Bäckerei ${i}` };
};
const line = (r: ReturnType<typeof rowOf>) => `${r.date};${r.date};"${r.text}";${r.amount};EUR`;
// the last row repeats row 3 word for word (a second identical card payment that day): it falls
// in the third batch, checked after the first batch committed its rows to the ledger
const TWIN = 3;
const bankCsv = [
  'Umsatzanzeige;Girokonto',
  `IBAN:;${IBAN}`,
  'Zeitraum:;01.02.2026 - 28.02.2026',
  '',
  'Buchungstag;Valuta;Verwendungszweck;Betrag;Währung',
  ...Array.from({ length: ROWS - 1 }, (_, i) => line(rowOf(i))),
  line(rowOf(TWIN)),
  'Endsaldo;28.02.2026;;;EUR',
].join('\r\n');
const expectedCents = [...Array.from({ length: ROWS - 1 }, (_, i) => rowOf(i)), rowOf(TWIN)].reduce((sum, r) => sum + (r.income ? r.cents : -r.cents), 0);
const bookedCents = (rows: Array<{ type: string; amount: string }>) => rows.reduce((sum, r) => sum + (r.type === 'income' ? 1 : -1) * Math.round(Number(r.amount) * 100), 0);

t.test('a bank CSV with accept_all at upload: imported batch by batch while analysed, the run ended by the job', async (t) => {
  const before = nudges.length;
  const res = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [
    ['accept_all', 'true'],
    ['auto_create_wallets', 'true'],
  ]);
  t.equal(res.status, 201);
  t.match(res.body.data, { status: 'analyzing', metadata: null, progress: 0 }, 'nothing imported before analysis');
  const id = res.body.data.id;

  await analyzeImportJob.run(jobCtx, { sessionId: id });
  const ready = await session(id);
  t.match(ready, {
    status: 'ready',
    total_suggestions: ROWS,
    duplicates_found: 0,
    progress: ROWS,
    metadata: { total_suggestions: ROWS, confirm: { state: 'running', total: ROWS, processed: ROWS, created_count: ROWS, skipped_count: 0 } },
  });
  t.notOk('confirm_requested' in ready.metadata, 'the request became the run; the metadata shows the spec’s keys only');
  t.same(nudges.slice(before).filter((nudge) => nudge.name === 'confirm-import'), [{ name: 'confirm-import', data: { sessionId: id } }], 'the confirm job is nudged for this session');

  await confirmImportJob.run(jobCtx, { sessionId: id });
  const confirmed = await session(id);
  t.match(confirmed, { status: 'confirmed', progress: ROWS, metadata: { confirm: { state: 'done', processed: ROWS, created_count: ROWS, skipped_count: 0, failed_count: 0 } } });

  const wallet = await api.db.selectFrom('wallets').selectAll().where('user_id', '=', owner.user.id).where('name', '=', IBAN).executeTakeFirstOrThrow();
  const rows = await liveTransactions(wallet.id);
  t.equal(rows.length, ROWS, 'every row booked once');
  t.equal(rows.filter((r) => r.description === rowOf(TWIN).text).length, 2, 'the twin rows are two payments');
  t.equal(bookedCents(rows), expectedCents, 'amounts and signs as the bank wrote them');
  const remembered = await api.db.selectFrom('import_column_mappings').select('user_id').where('user_id', '=', owner.user.id).execute();
  t.equal(remembered.length, 1, 'the mapping is remembered as after any confirm');
  t.ok(rows.some((r) => r.description === 'Kartenzahlung Bäckerei 1'), 'Latin-1 text decoded');
  t.same(await walletsOffLedger(api.db, owner.user.id), []);
});

t.test('the same export uploaded again with accept_all: every row a duplicate, skipped, nothing booked twice', async (t) => {
  const res = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [['accept_all', 'true'], ['auto_create_wallets', 'true']]);
  t.equal(res.status, 201);
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  await confirmImportJob.run(jobCtx, { sessionId: res.body.data.id });
  const again = await session(res.body.data.id);
  t.match(again, { duplicates_found: ROWS, progress: 0, metadata: { confirm: { state: 'done', created_count: 0, skipped_count: ROWS } } });
  t.equal(again.status, 'ready', 'nothing created: the session stays ready');
  const wallet = await api.db.selectFrom('wallets').select('id').where('user_id', '=', owner.user.id).where('name', '=', IBAN).executeTakeFirstOrThrow();
  t.equal((await liveTransactions(wallet.id)).length, ROWS);
});

t.test('a QFX card statement with accept_all: a credit-card wallet at the statement balance, reconciled', async (t) => {
  const qfx = readFileSync(new URL('./fixtures/statements/creditcard.qfx', import.meta.url));
  const res = await upload('creditcard.qfx', qfx, [['accept_all', 'true'], ['auto_create_wallets', 'true'], ['auto_create_parties', 'true']]);
  t.equal(res.status, 201);
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  await confirmImportJob.run(jobCtx, { sessionId: res.body.data.id });
  const done = await session(res.body.data.id);
  t.match(done, { status: 'confirmed', metadata: { confirm: { state: 'done', created_count: 3, failed_count: 0 } } });
  t.match(done.statement_balances, [{ account: '4111111111111111', kind: 'credit_card', wallet_balance: -324.2, difference: 0 }]);
  const wallet = await api.db.selectFrom('wallets').selectAll().where('id', '=', done.statement_balances[0].wallet_id).executeTakeFirstOrThrow();
  t.match(wallet, { type: 'credit_card', opening_balance: '-300.0000', balance: '-324.2000' });
  const party = await api.db.selectFrom('parties').select('name').where('user_id', '=', owner.user.id).where('name', '=', 'AMAZON.COM*AB12 & CO').executeTakeFirst();
  t.ok(party, 'parties auto-created as asked');
});

t.test('without accept_all the session waits for a confirm, as before', async (t) => {
  const res = await upload('creditcard.qfx', readFileSync(new URL('./fixtures/statements/creditcard.qfx', import.meta.url)), []);
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  const ready = await session(res.body.data.id);
  t.equal(ready.status, 'ready');
  t.notOk('confirm' in ready.metadata, 'no confirm run');
});

t.test('an analysis that fails starts no confirm', async (t) => {
  const res = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [['accept_all', 'true']]);
  const file = await api.db.selectFrom('files').select('path').where('id', '=', (await api.db.selectFrom('import_sessions').select('file_id').where('id', '=', res.body.data.id).executeTakeFirstOrThrow()).file_id!).executeTakeFirstOrThrow();
  await api.app.services.storage.delete(file.path); // the stored upload lost before the job ran
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  await confirmImportJob.run(jobCtx, { sessionId: res.body.data.id });
  t.match(await session(res.body.data.id), { status: 'failed', error: 'Uploaded file not found', metadata: { error: 'Uploaded file not found' }, progress: 0 });
});

t.test('bad flags at upload: 422 keyed by field, no session and no stored file', async (t) => {
  const before = await counts();
  const alone = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [['auto_create_wallets', 'true'], ['auto_create_categories', 'true']]);
  t.equal(alone.status, 422);
  t.same(Object.keys(alone.body.errors).sort(), ['auto_create_categories', 'auto_create_wallets']);
  t.match(alone.body.errors.auto_create_wallets, ['auto_create_wallets applies only with accept_all.']);
  const notBoolean = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [['accept_all', 'sometimes']]);
  t.equal(notBoolean.status, 422);
  t.ok(notBoolean.body.errors.accept_all, 'errors keyed by the field');
  t.same(await counts(), before, 'nothing written');
});

t.test('no token: 401', async (t) => {
  const res = await upload('Umsaetze_Girokonto.csv', Buffer.from(bankCsv, 'latin1'), [['accept_all', 'true']], null);
  t.equal(res.status, 401);
});

t.test('a run stopped after its first batch committed resumes there: every row imported once', async (t) => {
  const other = await api.newUser();
  const { payload, headers } = multipart(
    [
      ['accept_all', 'true'],
      ['auto_create_wallets', 'true'],
    ],
    [{ field: 'file', filename: 'Umsaetze_Girokonto.csv', contentType: 'text/csv', data: Buffer.from(bankCsv, 'latin1') }],
  );
  const res = await api.request('POST', '/api/v1/import/analyze', { token: other.token, payload, headers });
  t.equal(res.status, 201);
  const id = res.body.data.id;

  // a worker that dies once the first batch is committed: its third database transaction (the
  // claim, the first batch, then the second) never begins, as if the process had gone, and the
  // session stays where a crash leaves it (still `checking`)
  let begun = 0;
  const dyingDb = new Proxy(api.db, {
    get(target, key) {
      if (key !== 'transaction') {
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value; // Kysely's private fields need the real `this`
      }
      return () => {
        const builder = target.transaction();
        return { execute: (work: Parameters<typeof builder.execute>[0]) => (++begun <= 2 ? builder.execute(work) : new Promise(() => undefined)) };
      };
    },
  });
  void analyzeImportJob.run({ ...jobCtx, db: dyingDb }, { sessionId: id });
  const stoppedAt = async () => {
    const row = await api.db.selectFrom('import_sessions').select(['status', 'metadata']).where('id', '=', id).executeTakeFirstOrThrow();
    return { status: row.status, metadata: row.metadata as { confirm_requested?: { processed: number } } | null };
  };
  for (let tries = 0; tries < 600 && !(await stoppedAt()).metadata?.confirm_requested?.processed; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 300)); // whatever the dead worker still had in flight
  const stopped = await stoppedAt();
  t.equal(stopped.status, 'checking');
  t.match(stopped.metadata, { confirm_requested: { next_index: 2000, processed: 2000, created_count: 2000 } }, 'the first batch stored and imported, counted with it');
  t.equal(begun, 3, 'the second batch never began');

  // found abandoned by the schedule, analysed again from row 2,000
  await api.db.updateTable('import_sessions').set({ updated_at: new Date(Date.now() - 3_600_000) }).where('id', '=', id).execute();
  await analyzeImportJob.run(jobCtx, {});
  await confirmImportJob.run(jobCtx, { sessionId: id });
  const done = (await api.request('GET', `/api/v1/import/sessions/${id}?suggestions_limit=0`, { token: other.token })).body.data;
  t.match(done, { status: 'confirmed', total_suggestions: ROWS, duplicates_found: 0, progress: ROWS, metadata: { confirm: { state: 'done', processed: ROWS, created_count: ROWS, skipped_count: 0 } } });
  const wallet = await api.db.selectFrom('wallets').select('id').where('user_id', '=', other.user.id).where('name', '=', IBAN).executeTakeFirstOrThrow();
  const rows = await liveTransactions(wallet.id);
  t.equal(rows.length, ROWS, 'no row imported twice, none lost');
  t.equal(rows.filter((r) => r.description === rowOf(TWIN).text).length, 2, 'the twin after the resume is not taken for a duplicate of the first batch');
  t.equal(bookedCents(rows), expectedCents);
  t.same(await walletsOffLedger(api.db, other.user.id), []);
});
