// An import session larger than one batch, over HTTP: a bank export of 4,500 rows analysed as
// a stream (suggestions stored 2,000 at a time), confirmed as a whole (`accept_all`) by the
// confirm job a batch at a time. Every row imported once, duplicates skipped unless an item
// accepts them, progress visible between batches, a run stopped after a commit resumed, a
// second whole confirm refused while one runs, a small confirm and a second worker racing the
// job importing nothing twice, and balances equal to their ledgers.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { confirmImportJob, runConfirm } from '../jobs/confirm-import.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const owner = await api.newUser();
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };

const IBAN = 'DE89370400440532013000';
const ROWS = 4500;
const account = await api.db
  .insertInto('wallets')
  .values({ user_id: owner.user.id, name: IBAN, slug: `giro-${randomUUID()}`, type: 'bank', currency: 'EUR', opening_balance: '100', balance: '100' })
  .returning('id')
  .executeTakeFirstOrThrow();

/** Row i of the export: a day in the first quarter, an amount with a decimal comma, every fifth an income. */
const row = (i: number) => {
  const day = new Date(Date.UTC(2026, 0, 1) + (i % 90) * 86_400_000);
  const date = `${String(day.getUTCDate()).padStart(2, '0')}.${String(day.getUTCMonth() + 1).padStart(2, '0')}.${day.getUTCFullYear()}`;
  const cents = 100 + ((i * 37) % 9000);
  const amount = `${i % 5 === 0 ? '' : '-'}${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
  return { date, amount, description: `Payment ${i}`, iso: day.toISOString().slice(0, 10), value: (i % 5 === 0 ? 1 : -1) * (cents / 100) };
};

// three rows already booked by hand: the session flags them as duplicates
const DUPLICATE_ROWS = [7, 2100, 4400];
for (const i of DUPLICATE_ROWS) {
  const r = row(i);
  const res = await api.request('POST', '/api/v1/transactions', {
    token: owner.token,
    body: { type: r.value < 0 ? 'expense' : 'income', amount: Math.abs(r.value), wallet_id: account.id, datetime: `${r.iso}T00:00:00Z`, description: r.description },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
}

const csv = [
  `Kontonummer:;${IBAN}`,
  'Zeitraum:;01.01.2026 - 31.03.2026',
  '',
  'Buchungstag;Verwendungszweck;Betrag;Währung',
  ...Array.from({ length: ROWS }, (_, i) => {
    const r = row(i);
    return `${r.date};"${r.description}";${r.amount};EUR`;
  }),
  'Kontostand;31.03.2026;;EUR',
].join('\r\n');

const get = (id: number, query = '') => api.request('GET', `/api/v1/import/sessions/${id}${query}`, { token: owner.token });
const confirm = (body: Record<string, unknown>) => api.request('POST', '/api/v1/import/confirm', { token: owner.token, body });
const transactionCount = async () => Number((await api.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', owner.user.id).where('deleted_at', 'is', null).executeTakeFirstOrThrow()).n);

let sessionId = 0;

t.test('a bank export of 4,500 rows is analysed a batch at a time: every row once, duplicates flagged', async (t) => {
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'umsaetze.csv', contentType: 'text/csv', data: Buffer.from(csv, 'latin1') }]);
  const res = await api.request('POST', '/api/v1/import/analyze', { token: owner.token, payload, headers });
  t.equal(res.status, 201);
  sessionId = res.body.data.id;
  await analyzeImportJob.run(jobCtx, { sessionId });

  const session = (await get(sessionId, '?suggestions_limit=0')).body.data;
  t.match(session, { status: 'ready', total_suggestions: ROWS, duplicates_found: DUPLICATE_ROWS.length, progress: 0, metadata: { total_suggestions: ROWS, duplicates_found: 3 } });
  t.same(session.suggestions, [], 'a limit of 0 gives the counts only');
  t.match(session.csv_reading, { delimiter: ';', header_row: 3, date_format: 'DD.MM.YYYY', decimal_separator: ',', account: IBAN, skipped_rows: 4 });

  const stored = await api.db
    .selectFrom('import_suggestions')
    .select(['suggestion_index', 'description', 'amount', 'date', 'wallet_id', 'duplicate'])
    .where('import_session_id', '=', sessionId)
    .orderBy('suggestion_index')
    .execute();
  t.equal(stored.length, ROWS, 'one suggestion per row, none twice');
  t.ok(stored.every((s, i) => s.suggestion_index === i && s.description === `Payment ${i}` && s.date === row(i).iso && Number(s.amount) === Math.abs(row(i).value)), 'in file order with their values');
  t.ok(stored.every((s) => s.wallet_id === account.id), "matched to the account's wallet");
  t.same(stored.flatMap((s, i) => (s.duplicate ? [i] : [])), DUPLICATE_ROWS, 'exactly the rows booked before are duplicates, in every batch');

  const range = (await get(sessionId, '?suggestions_from=4498&suggestions_limit=10')).body.data;
  t.same(range.suggestions.map((s: { index: number }) => s.index), [4498, 4499], 'a range of suggestions');
  t.equal(range.total_suggestions, ROWS);

  const listed = (await api.request('GET', '/api/v1/import/sessions', { token: owner.token })).body.data.data;
  const inList = listed.find((s: { id: number }) => s.id === sessionId);
  t.equal(inList.total_suggestions, ROWS, 'the list counts every suggestion');
  t.same(inList.suggestions.map((s: { index: number }) => s.index), [...Array(1000).keys()], 'and embeds the first 1,000 of them');
});

t.test('confirmed as a whole by the job, batch by batch: every row once, duplicates skipped unless accepted', async (t) => {
  const before = await transactionCount();
  const accepted = DUPLICATE_ROWS[0];
  const [first, second] = await Promise.all([
    confirm({ session_id: sessionId, accept_all: true, accepted: [{ index: accepted, accept_duplicate: true }] }),
    confirm({ session_id: sessionId, accept_all: true, accepted: [{ index: accepted, accept_duplicate: true }] }),
  ]);
  t.same([first.status, second.status].sort(), [202, 409], 'one whole confirm runs, the other is refused');
  const started = [first, second].find((res) => res.status === 202)!.body;
  t.match(started, { message: "Import started: the session's suggestions are being imported.", data: { id: sessionId, status: 'ready', progress: 0, suggestions: [] } });
  t.match(started.data.metadata.confirm, { state: 'running', total: ROWS, processed: 0, created_count: 0 });
  t.match([first, second].find((res) => res.status === 409)!.body, { message: 'A confirm of this import session is already running.' });
  t.equal(await transactionCount(), before, 'nothing written by the request');
  const remap = await api.request('PUT', `/api/v1/import/sessions/${sessionId}/mapping`, { token: owner.token, body: { mapping: { description: 1 } } });
  t.equal(remap.status, 409, 'the file is not read again under a running confirm');
  t.match(remap.body, { message: 'A confirm of this import session is running: its file cannot be read again.' });

  // one batch committed, then the worker stops (as one killed between two batches would)
  await runConfirm(jobCtx, sessionId, { batches: 1 });
  let session = (await get(sessionId, '?suggestions_limit=0')).body.data;
  t.match(session, { status: 'confirmed', progress: 2000 });
  t.match(session.metadata.confirm, { state: 'running', processed: 2000, created_count: 2000, skipped_count: 0 });
  t.equal(await transactionCount(), before + 2000, 'the first batch is written');

  // a small confirm of a row of the next batch, while the run is still going
  const small = await confirm({ session_id: sessionId, accepted: [{ index: 2500 }] });
  t.equal(small.status, 200);
  t.match(small.body.data.results, [{ index: 2500, status: 'created' }], 'a small confirm keeps its answer');

  // two workers take the rest up at once (the schedule's scan and a nudge)
  await Promise.all([runConfirm(jobCtx, sessionId), confirmImportJob.run(jobCtx, {})]);
  session = (await get(sessionId, '?suggestions_limit=0')).body.data;
  const imported = ROWS - DUPLICATE_ROWS.length + 1;
  t.match(session, { status: 'confirmed', progress: imported });
  t.match(session.metadata.confirm, {
    state: 'done',
    total: ROWS,
    processed: ROWS,
    created_count: imported - 1,
    already_imported_count: 1,
    skipped_count: DUPLICATE_ROWS.length - 1,
    failed_count: 0,
  });
  t.equal(await transactionCount(), before + imported, 'every accepted row once');

  const links = await api.db
    .selectFrom('import_suggestions')
    .select(['suggestion_index', 'status', 'transaction_id'])
    .where('import_session_id', '=', sessionId)
    .orderBy('suggestion_index')
    .execute();
  const ids = links.flatMap((s) => (s.transaction_id === null ? [] : [s.transaction_id]));
  t.equal(new Set(ids).size, imported, 'each suggestion has its own transaction');
  t.same(links.flatMap((s) => (s.status === 'confirmed' ? [] : [s.suggestion_index])), DUPLICATE_ROWS.slice(1), 'only the unaccepted duplicates are left');
  const acceptedRow = await api.db.selectFrom('transactions').select(['description', 'wallet_id']).where('id', '=', links[accepted].transaction_id!).executeTakeFirstOrThrow();
  t.same(acceptedRow, { description: `Payment ${accepted}`, wallet_id: account.id }, 'the duplicate accepted explicitly is imported');

  const ledger = await api.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('wallet_id', '=', account.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  t.equal(Number(ledger.n), imported + DUPLICATE_ROWS.length, "the account's wallet holds the rows and the hand-booked ones");
  t.same(await walletsOffLedger(api.db, owner.user.id), [], 'balances equal their ledgers');
});

t.test('a second whole confirm of the session imports nothing again', async (t) => {
  const before = await transactionCount();
  const res = await confirm({ session_id: sessionId, accept_all: true });
  t.equal(res.status, 202);
  await runConfirm(jobCtx, sessionId);
  const session = (await get(sessionId, '?suggestions_limit=0')).body.data;
  t.match(session.metadata.confirm, { state: 'done', created_count: 0, already_imported_count: ROWS - DUPLICATE_ROWS.length + 1, skipped_count: 2 });
  t.equal(await transactionCount(), before, 'no transaction twice');
});

t.test('without accept_all, accepted is required; a bad range is 422', async (t) => {
  const res = await confirm({ session_id: sessionId });
  t.equal(res.status, 422);
  t.match(res.body.errors, { accepted: ['The accepted field is required unless accept_all is true.'] });
  const unknown = await confirm({ session_id: sessionId, accept_all: true, accepted: [{ index: ROWS }] });
  t.equal(unknown.status, 422);
  t.match(unknown.body.errors, { 'accepted.0.index': ['No suggestion of this session has this index.'] }, 'an item naming no suggestion');
  const range = await get(sessionId, '?suggestions_limit=-1');
  t.equal(range.status, 422);
  t.ok(range.body.errors.suggestions_limit, 'on suggestions_limit');
});
