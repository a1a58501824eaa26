// Crash safety, CSV import and e-mail: the real service runs as a child process and is killed
// with SIGKILL (no drain, no cleanup) while a CSV import runs and while an e-mail sits on the
// SMTP server, read but not yet answered; then it restarts on the same database. Between the
// two lives the test reads the database as the crash left it: nothing half-written; after the
// restart the import finishes with every row once and the e-mail is accepted once. Runs on the
// embedded database by default (its data folder survives the kill), on a throwaway PostgreSQL
// database with DATABASE_URL. See crash-recurring.test.ts for the recurring-transaction run.
import { sql, type Kysely } from 'kysely';
import t from 'tap';
import type { Database } from '../db/schema.js';
import { Contract } from '../server/contract.js';
import { startSmtpServer } from './helpers/smtp.js';
import { ledgerHolds, serviceClient, serviceDatabase, startService, until as waitFor, type ServiceProcess } from './helpers/service-process.js';
import { multipart } from './helpers/transaction-fixtures.js';

/** Ten of the job's 2,000-row batches: the kill lands after the first few, far from the end. */
const IMPORT_ROWS = 20_000;
/** Every BAD_EVERY-th CSV row has an amount that is not a number: a failed row, kept with its reason. */
const BAD_EVERY = 100;

const contract = await Contract.load();
const database = await serviceDatabase();
const smtp = await startSmtpServer();
t.teardown(async () => {
  await smtp.close();
  await database.drop();
});
const env = { ...database.env, SMTP_URL: smtp.url, MAIL_FROM: 'Finance <no-reply@crash.example>' };

let service: ServiceProcess | undefined;
t.teardown(() => service?.kill());
const started = Date.now();
const start = async () => {
  service = await startService(env);
  t.comment(`service started at ${((Date.now() - started) / 1000).toFixed(1)} s`);
};

const call = serviceClient(() => service!, contract);
const until = <T>(what: string, probe: () => Promise<T | undefined>) => waitFor(what, probe, service);

const csvRow = (i: number) => `2026-01-${String((i % 28) + 1).padStart(2, '0')},${i % BAD_EVERY === 0 ? 'abc' : `${(i % 97) + 1}.25`},USD,income,,Main Wallet,,row-${i}`;
const CSV = ['Date,Amount,Currency,Type,Payee,Account,Category,Memo', ...Array.from({ length: IMPORT_ROWS }, (_, i) => csvRow(i + 1))].join('\n');
const badRows = (upTo: number) => Math.floor(upTo / BAD_EVERY);

const contact = 'crash-mail@example.test';

async function importedRows(db: Kysely<Database>, userId: number) {
  const { rows } = await sql<{ n: number; distinct_rows: number }>`
    select count(*)::int as n, count(distinct description)::int as distinct_rows
    from transactions where user_id = ${userId} and description like 'row-%' and deleted_at is null`.execute(db);
  return rows[0];
}

let token = '';
let userId = 0;
let importId = 0;

t.test('life 1: killed while a CSV import runs and an e-mail waits on the SMTP server', async (t) => {
  await start();
  const registered = await call('registerUser', 'POST', '/register', {
    json: { email: 'crash@example.test', password: 'correct horse battery', first_name: 'Crash', last_name: 'Test' },
  });
  t.equal(registered.status, 201);
  token = registered.body.data.token;
  userId = registered.body.data.user.id;
  smtp.stall(true);
  t.equal((await call('sendVerificationCode', 'POST', '/send-verification-code', { json: { contact, type: 'email' } })).status, 200);
  const held = await smtp.stalled();
  t.same(held.envelope.to, [contact], 'the code e-mail reached the SMTP server, which has not accepted it');

  const form = multipart([], [{ field: 'file', filename: 'big.csv', contentType: 'text/csv', data: Buffer.from(CSV) }]);
  const uploaded = await call('importFile', 'POST', '/v1/import', { token, form });
  t.equal(uploaded.status, 201);
  importId = uploaded.body.data.id;
  const progress = await until('the import to be part-way', async () => {
    const listed = await call('listImports', 'GET', '/v1/imports', { token });
    const row = listed.body.data.data.find((x: { id: number }) => x.id === importId);
    return row.progress > 0 && row.progress <= IMPORT_ROWS / 2 ? (row.progress as number) : undefined;
  });
  await service!.kill();
  t.ok(progress > 0 && progress < IMPORT_ROWS, `killed after ${progress} of ${IMPORT_ROWS} rows`);
  t.equal(smtp.messages.length, 0, 'no message was accepted');
});

t.test('after the crash: the import stopped at a batch boundary, the e-mail is still to send', async (t) => {
  await database.inspect(async (db) => {
    const row = await db.selectFrom('file_imports').selectAll().where('id', '=', importId).executeTakeFirstOrThrow();
    t.equal(row.status, 'processing', 'the import says it is unfinished');
    t.ok(row.progress > 0 && row.progress < IMPORT_ROWS);
    const imported = await importedRows(db, userId);
    const failed = await db.selectFrom('failed_imports').select((eb) => eb.fn.countAll<number>().as('n')).where('file_import_id', '=', importId).executeTakeFirstOrThrow();
    t.equal(imported.n, row.progress - badRows(row.progress), 'exactly the good rows before `progress` are written, none after');
    t.equal(imported.distinct_rows, imported.n, 'none twice');
    t.equal(Number(failed.n), badRows(row.progress), 'and exactly the failed rows before `progress` are recorded');
    t.ok(await ledgerHolds(db, userId), 'balances equal their ledgers');

    const email = await db.selectFrom('emails').selectAll().where('to_address', '=', contact).executeTakeFirstOrThrow();
    t.match(email, { status: 'pending', attempts: 1, sent_at: null }, 'the e-mail is pending, one attempt counted');
    t.match(email.message_id, /^<[0-9a-f-]{36}@crash\.example>$/, 'its Message-ID was fixed before the attempt');
    // Its claim would expire after 5 minutes: let that time pass for the claim.
    await db.updateTable('emails').set({ updated_at: new Date(Date.now() - 6 * 60_000) }).where('id', '=', email.id).execute();
  });
});

t.test('life 2: the import resumes and finishes, the e-mail is delivered once', async (t) => {
  smtp.stall(false);
  await start();
  const finished = await until('the import to finish', async () => {
    const listed = await call('listImports', 'GET', '/v1/imports', { token });
    const row = listed.body.data.data.find((x: { id: number }) => x.id === importId);
    return row.status === 'completed' ? row : undefined;
  });
  t.match(finished, { progress: IMPORT_ROWS, num_rows: IMPORT_ROWS });
  await until('the e-mail to be accepted', async () => (smtp.messages.length > 0 ? true : undefined));
  await service!.stop(); // a graceful stop lets the delivery job record what it sent
  t.equal(smtp.messages.length, 1, 'exactly one message was accepted');
  t.same(smtp.messages[0].envelope.to, [contact]);

  await database.inspect(async (db) => {
    const imported = await importedRows(db, userId);
    t.equal(imported.n, IMPORT_ROWS - badRows(IMPORT_ROWS), 'every good row is imported');
    t.equal(imported.distinct_rows, imported.n, 'none twice');
    const failed = await db.selectFrom('failed_imports').select('row_number').where('file_import_id', '=', importId).orderBy('row_number').execute();
    t.same(
      failed.map((row) => row.row_number),
      Array.from({ length: badRows(IMPORT_ROWS) }, (_, i) => (i + 1) * BAD_EVERY + 1),
      'every bad row is recorded once, by its line',
    );
    const upload = await db.selectFrom('files').select('id').where('model', '=', 'import').where('user_id', '=', userId).execute();
    t.equal(upload.length, 0, 'the upload is removed once the import is complete');
    t.ok(await ledgerHolds(db, userId), 'balances equal their ledgers');

    const email = await db.selectFrom('emails').selectAll().where('to_address', '=', contact).executeTakeFirstOrThrow();
    t.match(email, { status: 'sent', attempts: 2 });
    t.equal(smtp.messages[0].headers['message-id'], email.message_id, 'the retry sent the Message-ID of the attempt that died');

  });
});
