// Import sessions over HTTP: analyse (CSV, CAMT.053, OFX, PDF through the document processor),
// the analysis job run directly, suggestions with matches and duplicate flags, confirm through
// the money path (balances move) and its idempotency, list/get/delete, and the error cases.
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { startFakeProvider } from './helpers/fake-provider.js';
import { startApp, type TestApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { CAMT053, OFX_SGML } from './helpers/statement-samples.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const silent = api.app.log;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

async function analyze(app: TestApp, token: string | undefined, fileName: string, content: string | Buffer, fields: Array<[string, string]> = []) {
  const { payload, headers } = multipart(fields, [{ field: 'file', filename: fileName, contentType: 'application/octet-stream', data: Buffer.from(content) }]);
  return app.request('POST', '/api/v1/import/analyze', { token, payload, headers });
}

const runJob = (app: TestApp, data: { sessionId?: number } = {}) => analyzeImportJob.run({ db: app.db, services: app.app.services, log: silent }, data);

/** Uploads, analyses, and returns the session as GET shows it. */
async function analysed(fileName: string, content: string | Buffer, token = owner.token) {
  const res = await analyze(api, token, fileName, content);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await runJob(api, { sessionId: res.body.data.id });
  return (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token })).body.data;
}

// These tests analyse the same statement again and again, so its rows are flagged as duplicates
// of the earlier runs: they accept duplicates explicitly (skipping is tested in statement-imports).
const acceptingDuplicates = (body: Record<string, unknown>) =>
  Array.isArray(body.accepted) ? { ...body, accepted: body.accepted.map((item: unknown) => (typeof item === 'object' && item !== null ? { accept_duplicate: true, ...item } : item)) } : body;
const confirm = (body: Record<string, unknown>, token = owner.token) => api.request('POST', '/api/v1/import/confirm', { token, body: acceptingDuplicates(body) });

const transactionCount = () => fx.count('transactions', owner.user.id);

// The owner's records the CSV names: Main Wallet with 100, a party, a category and a lunch.
const wallet = await fx.mainWallet(owner.user.id);
await fx.setBalance(wallet, '100');
const partyId = await fx.party(owner.user.id); // "ACME Corp"
const categoryId = await fx.category(owner.user.id, 'expense');
const categoryName = (await api.db.selectFrom('categories').select('name').where('id', '=', categoryId).executeTakeFirstOrThrow()).name;
const lunch = await api.request('POST', '/api/v1/transactions', {
  token: owner.token,
  body: { type: 'expense', amount: 12.5, wallet_id: wallet, datetime: '2026-03-01T10:00:00Z', description: 'Lunch' },
});
const CSV = [
  'Date,Description,Amount,Currency,Account,Payee,Category',
  `2026-03-01,Lunch,-12.50,USD,Main Wallet,ACME Corp,${categoryName}`,
  '03/03/2026,Lunch at the office,-12.50,USD,main wallet,,',
  '2026-03-05,Salary,"1,000.00",USD,Main Wallet,Employer,Salary',
  '02/03/2026,Unclear,-1,USD,Main Wallet,,',
].join('\n');

t.test('analyse a CSV: the job matches names and flags duplicates; nothing reaches the ledger', async (t) => {
  const before = await transactionCount();
  const res = await analyze(api, owner.token, 'march.csv', CSV, [['document_type', 'bank_statement']]);
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Document uploaded. Analysis in progress.');
  t.match(res.body.data, { status: 'analyzing', processor: 'csv', file_name: 'march.csv', file_type: 'csv', document_type: 'bank_statement', suggestions: [], total_suggestions: 0 });
  t.equal(res.body.data.metadata, null, 'no reference metadata while analysing');
  const uploads = () => api.db.selectFrom('files').select('id').where('user_id', '=', owner.user.id).where('model', '=', 'import').execute();
  t.equal((await uploads()).length, 1, 'the upload is stored');

  await runJob(api, { sessionId: res.body.data.id });
  const session = (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token: owner.token })).body.data;
  t.match(session, { status: 'ready', total_suggestions: 4, duplicates_found: 2, error: null, progress: 0 });
  const [first, second, third, fourth] = session.suggestions;
  t.match(first, {
    index: 0, type: 'expense', amount: 12.5, currency: 'USD', date: '2026-03-01', description: 'Lunch', source: 'csv', confidence: 1,
    wallet_name: 'Main Wallet', wallet_id: wallet, party_name: 'ACME Corp', party_id: partyId, category_id: categoryId, status: 'pending', transaction_id: null,
    duplicate: { match_type: 'exact', transaction_id: lunch.body.data.id, confidence: 1, transaction_amount: 12.5, transaction_date: '2026-03-01', transaction_type: 'expense' },
  });
  t.match(second, { date: '2026-03-03', wallet_id: wallet, duplicate: { match_type: 'near', transaction_id: lunch.body.data.id, confidence: 0.8 } });
  t.match(third, { type: 'income', amount: 1000, party_id: null, category_id: null, duplicate: null });
  // the reference's names on the wire: names as `party`/`wallet`/`category`, the extractor as
  // `document_type`, the counts in `metadata`
  t.match(first, { party: 'ACME Corp', wallet: 'Main Wallet', document_type: 'csv' });
  t.equal(first.category, first.category_name);
  t.same(session.metadata, { total_suggestions: 4, duplicates_found: 2, not_importable_count: 0 });
  t.match(fourth, { date: null, confidence: 0.3, duplicate: null });
  t.match(fourth.warnings, [/could not be read/]);
  t.equal(await transactionCount(), before, 'analysis writes no transaction');
  t.equal((await uploads()).length, 1, 'a CSV upload stays with its session (a mapping change reads it again)');
});

t.test('confirm creates the transactions through the money path; confirming again creates nothing', async (t) => {
  const session = await analysed('march.csv', CSV);
  const before = await transactionCount();
  const balanceBefore = await fx.balance(wallet);
  const first = await confirm({ session_id: session.id, accepted: [{ index: 1, accept_duplicate: true }, { index: 2, category_id: categoryId, description: 'March salary' }] });
  t.equal(first.status, 200);
  t.equal(first.body.message, 'All transactions imported successfully.');
  t.match(first.body.data, { created_count: 2, already_imported_count: 0, failed_count: 0, errors: [] });
  t.match(first.body.data.results, [
    { index: 1, status: 'created', wallet_id: wallet, error: null },
    { index: 2, status: 'created', wallet_id: wallet, category_id: categoryId },
  ]);
  t.match(first.body.data.session, { status: 'confirmed', progress: 2 });
  t.ok(first.body.data.session.confirmed_at);
  t.equal(await transactionCount(), before + 2);
  t.equal(await fx.balance(wallet), (Number(balanceBefore) - 12.5 + 1000).toFixed(4), 'the balance moved by both');

  const salaryId = first.body.data.results[1].transaction_id;
  const salary = await api.request('GET', `/api/v1/transactions/${salaryId}`, { token: owner.token });
  t.match(salary.body.data, { type: 'income', amount: 1000, description: 'March salary', datetime: '2026-03-05T00:00:00.000Z' });
  t.same(salary.body.data.categories.map((c: { id: number }) => c.id), [categoryId]);

  const again = await confirm({ session_id: session.id, accepted: [{ index: 2 }, { index: 1, accept_duplicate: true }] });
  t.equal(again.status, 200);
  t.match(again.body.data, { created_count: 0, already_imported_count: 2, failed_count: 0 });
  t.match(again.body.data.results, [{ index: 2, status: 'already_imported', transaction_id: salaryId, wallet_id: wallet, category_id: categoryId }, { index: 1, status: 'already_imported' }]);
  t.equal(await transactionCount(), before + 2, 'nothing more was created');
  t.equal(await fx.balance(wallet), (Number(balanceBefore) - 12.5 + 1000).toFixed(4));
  const shown = (await api.request('GET', `/api/v1/import/sessions/${session.id}`, { token: owner.token })).body.data;
  t.match(shown.suggestions[2], { status: 'imported', transaction_id: salaryId });
});

t.test('two confirms at once import a suggestion once', async (t) => {
  const session = await analysed('march.csv', CSV);
  const before = await transactionCount();
  const [a, b] = await Promise.all([confirm({ session_id: session.id, accepted: [{ index: 2 }] }), confirm({ session_id: session.id, accepted: [{ index: 2 }] })]);
  t.same([a.body.data.results[0].status, b.body.data.results[0].status].sort(), ['already_imported', 'created']);
  t.equal(await transactionCount(), before + 1);
});

t.test('partial failure: invalid index, missing date, overdraft; the rest is imported, failures can be retried', async (t) => {
  const session = await analysed('march.csv', CSV);
  const before = await transactionCount();
  const res = await confirm({ session_id: session.id, accepted: [{ index: 7 }, { index: 3 }, { index: 0, accept_duplicate: true, amount: 1_000_000 }, { index: 2, fee: 2.5 }] });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'Import completed with some errors.');
  t.match(res.body.data, { created_count: 1, failed_count: 3 });
  t.match(res.body.data.results, [
    { index: 7, status: 'failed', error: 'Invalid suggestion index: 7', transaction_id: null },
    { index: 3, status: 'failed', error: /no date/ },
    { index: 0, status: 'failed', error: /below zero/ },
    { index: 2, status: 'created' },
  ]);
  t.same(res.body.data.errors[0], 'Failed to import suggestion at index 7: Invalid suggestion index: 7');
  const feeId = res.body.data.results[3].fee_transaction_id;
  const fee = await api.request('GET', `/api/v1/transactions/${feeId}`, { token: owner.token });
  t.match(fee.body.data, { type: 'expense', amount: 2.5, description: 'Transaction fee', intent: 'regular', party: { name: 'Charges' } });
  t.equal(await transactionCount(), before + 2, 'the import and its fee; nothing of the failures');
  const shown = (await api.request('GET', `/api/v1/import/sessions/${session.id}`, { token: owner.token })).body.data;
  t.match(shown.suggestions[3], { status: 'failed', error: /no date/ });

  const retried = await confirm({ session_id: session.id, accepted: [{ index: 3, date: '2026-03-02' }] });
  t.match(retried.body.data.results, [{ index: 3, status: 'created' }]);

  const nothing = await confirm({ session_id: session.id, accepted: [{ index: 9 }] });
  t.equal(nothing.body.message, 'Import failed. No transactions were created.');
});

t.test('amounts that cannot be kept exactly: refused per row at analysis, 422 at confirm, never a 500', async (t) => {
  // Before: the too large amount failed the whole analysis ("numeric field overflow"), the
  // OFX amount with 5 decimals was rounded silently by the column, and confirm answered 500
  // for an amount or fee beyond the money columns, or for an index beyond int4.
  const csv = await analysed('big.csv', 'Date,Amount,Account\n2026-04-01,99999999999999999999,Main Wallet\n2026-04-01,-1,Main Wallet\n');
  t.equal(csv.status, 'ready');
  t.match(csv.suggestions, [{ amount: null, warnings: ['The amount 99999999999999999999 is too large.'] }, { amount: 1, warnings: [] }]);
  const ofx = OFX_SGML.replace('<TRNAMT>-23.40', '<TRNAMT>-23.40001');
  t.match((await analysed('five.ofx', ofx)).suggestions[0], { amount: null, type: 'expense', warnings: ['The amount -23.40001 has more than 4 decimals.'] });

  const before = await transactionCount();
  for (const [item, field] of [
    [{ index: 1, amount: 1e15 }, 'accepted.0.amount'],
    [{ index: 1, amount: 1e300 }, 'accepted.0.amount'],
    [{ index: 1, fee: 1e16 }, 'accepted.0.fee'],
  ] as const) {
    const res = await confirm({ session_id: csv.id, accepted: [item] });
    t.equal(res.status, 422, JSON.stringify(item));
    t.same(res.body.errors, { [field]: [field.endsWith('fee') ? 'The fee is too large.' : 'The amount is too large.'] });
  }
  const beyond = await confirm({ session_id: csv.id, accepted: [{ index: 2147483648 }, { index: 0, accept_duplicate: true }, { index: 1, accept_duplicate: true, date: '0050-01-01' }] });
  t.equal(beyond.status, 200);
  t.match(beyond.body.data.results, [
    { index: 2147483648, status: 'failed', error: 'Invalid suggestion index: 2147483648' },
    { index: 0, status: 'failed', error: /greater than zero/ },
    { index: 1, status: 'failed', error: 'The date 0050-01-01 is not a valid date.' }, // was written as 1950-01-01
  ]);
  t.equal(await transactionCount(), before, 'nothing written');
  t.same(await walletsOffLedger(api.db, owner.user.id), [], 'balances still equal their ledgers');
});

t.test('a confirm that would overflow the wallet balance fails that suggestion, not the request', async (t) => {
  const full = await fx.wallet(owner.user.id, { balance: '999999999999999' });
  const session = await analysed('march.csv', CSV);
  const res = await confirm({ session_id: session.id, accepted: [{ index: 2, wallet_id: full }, { index: 1, accept_duplicate: true, wallet_id: wallet }] });
  t.equal(res.status, 200);
  t.match(res.body.data.results, [{ index: 2, status: 'failed', error: 'The wallet balance would become too large.' }, { index: 1, status: 'created' }]);
  t.equal(await fx.balance(full), '999999999999999.0000');
  t.same(await walletsOffLedger(api.db, owner.user.id), []);
});

t.test('after every confirm above, each wallet balance equals opening + its live transactions', async (t) => {
  const session = await analysed('march.csv', CSV);
  await Promise.all([
    confirm({ session_id: session.id, accepted: [{ index: 2, fee: 1.2345 }, { index: 1, accept_duplicate: true }] }),
    confirm({ session_id: session.id, accepted: [{ index: 1, accept_duplicate: true }, { index: 2, fee: 1.2345 }] }),
  ]);
  const made = await api.db.selectFrom('import_suggestions').select(['transaction_id', 'fee_transaction_id']).where('import_session_id', '=', session.id).where('status', '=', 'confirmed').execute();
  t.equal(made.length, 2, 'two suggestions imported once each, with one fee');
  t.same(await walletsOffLedger(api.db, owner.user.id), []);
});

t.test('CAMT.053 (detected by content): the account has no wallet until confirm auto-creates it', async (t) => {
  const session = await analysed('statement.txt', CAMT053);
  t.match(session, { processor: 'camt', status: 'ready', total_suggestions: 2, file_type: 'txt' });
  t.match(session.suggestions, [
    { source: 'camt', type: 'income', amount: 2500, currency: 'EUR', date: '2026-03-01', party_name: 'ACME Payroll GmbH', wallet_name: 'DE89370400440532013000', wallet_id: null, reference: 'REF-CR-1', description: 'Salary March 2026' },
    { type: 'expense', amount: 42.15, date: '2026-03-03', party_name: 'City Grocer' },
  ]);
  const refused = await confirm({ session_id: session.id, accepted: [{ index: 0, accept_duplicate: true }, { index: 1, accept_duplicate: true }] });
  t.equal(refused.status, 422);
  t.same(Object.keys(refused.body.errors), ['accepted.0.wallet_id', 'accepted.1.wallet_id']);

  const res = await confirm({ session_id: session.id, accepted: [{ index: 0, accept_duplicate: true }, { index: 1, accept_duplicate: true }], auto_create_wallets: true, auto_create_parties: true });
  t.match(res.body.data, { created_count: 2 });
  const walletId = res.body.data.results[0].wallet_id;
  t.equal(res.body.data.results[1].wallet_id, walletId, 'one wallet for the account');
  const created = await api.db.selectFrom('wallets').selectAll().where('id', '=', walletId).executeTakeFirstOrThrow();
  t.match(created, { name: 'DE89370400440532013000', currency: 'EUR', type: 'bank', opening_balance: '1000.0000', balance: '3457.8500' }, 'the statement\'s opening balance (OPBD 1000) plus its entries');
  t.ok(res.body.data.results[1].party_id, 'the party was created');
});

t.test('two confirms at once auto-create the statement account and party once', async (t) => {
  // Before: both saw no wallet and both inserted one; the second hit the unique slug (a 500).
  const user = await api.newUser();
  await fx.allowNegative(user.user.id, true); // the debit may run before the credit
  for (let round = 0; round < 3; round++) {
    const session = await analysed('statement.xml', CAMT053.replaceAll('DE89370400440532013000', `DE00RACE${round}`), user.token);
    const both = { session_id: session.id, auto_create_wallets: true, auto_create_parties: true };
    const [a, b] = await Promise.all([confirm({ ...both, accepted: [{ index: 0, accept_duplicate: true }] }, user.token), confirm({ ...both, accepted: [{ index: 1, accept_duplicate: true }] }, user.token)]);
    t.same([a.status, b.status], [200, 200], JSON.stringify([a.body.message, b.body.message]));
    t.equal(a.body.data?.results[0].wallet_id, b.body.data?.results[0].wallet_id, 'one wallet for the account');
    const wallets = await api.db.selectFrom('wallets').select('id').where('user_id', '=', user.user.id).where('name', '=', `DE00RACE${round}`).execute();
    t.equal(wallets.length, 1);
  }
  const both = await analysed('statement.xml', CAMT053.replace('City Grocer', 'ACME Payroll GmbH').replace('DE89370400440532013000', 'DE00PARTY'), user.token);
  const request = { session_id: both.id, auto_create_wallets: true, auto_create_parties: true };
  await Promise.all([confirm({ ...request, accepted: [{ index: 0, accept_duplicate: true }] }, user.token), confirm({ ...request, accepted: [{ index: 1, accept_duplicate: true }] }, user.token)]);
  const parties = await api.db.selectFrom('parties').select('id').where('user_id', '=', user.user.id).where('name', '=', 'ACME Payroll GmbH').execute();
  t.equal(parties.length, 1, 'one party for the name');
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});

t.test('OFX (SGML, .qfx) is analysed natively; duplicates within the window are flagged once imported', async (t) => {
  const session = await analysed('export.qfx', OFX_SGML);
  t.match(session, { processor: 'ofx', status: 'ready', total_suggestions: 2 });
  t.match(session.suggestions, [
    { source: 'ofx', type: 'expense', amount: 23.4, currency: 'USD', date: '2026-03-02', party_name: 'Corner Coffee & Co', reference: 'FIT-0001', duplicate: null },
    { type: 'income', amount: 1200, date: '2026-03-04' },
  ]);
  await confirm({ session_id: session.id, accepted: [{ index: 0, accept_duplicate: true, wallet_id: wallet }] });
  const again = await analysed('export.ofx', OFX_SGML);
  t.match(again.suggestions[0].duplicate, { match_type: 'exact', transaction_amount: 23.4 }, 'the same statement twice: exact duplicate');
});

t.test('the schedule picks up sessions whose nudge was lost; two workers analyse a session once', async (t) => {
  const res = await analyze(api, owner.token, 'march.csv', CSV);
  await Promise.all([runJob(api), runJob(api)]);
  const session = (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token: owner.token })).body.data;
  t.equal(session.status, 'ready');
  t.equal(session.suggestions.length, 4);
});

t.test('a session a crashed worker left mid-way is restarted after 10 minutes, not before', async (t) => {
  const res = await analyze(api, owner.token, 'march.csv', CSV);
  const id = res.body.data.id;
  const leave = (minutesAgo: number) =>
    api.db.updateTable('import_sessions').set({ status: 'enriching', updated_at: new Date(Date.now() - minutesAgo * 60_000) }).where('id', '=', id).execute();
  await leave(1);
  await runJob(api);
  t.equal((await api.request('GET', `/api/v1/import/sessions/${id}`, { token: owner.token })).body.data.status, 'enriching', 'maybe still running');
  await leave(11);
  await runJob(api);
  t.match((await api.request('GET', `/api/v1/import/sessions/${id}`, { token: owner.token })).body.data, { status: 'ready', total_suggestions: 4 });
});

t.test('a file without transactions is refused at upload; a failed or running session cannot be confirmed', async (t) => {
  const sessionsBefore = await api.db.selectFrom('import_sessions').select('id').execute();
  const empty = await analyze(api, owner.token, 'empty.csv', 'date,amount,description\n');
  t.equal(empty.status, 422);
  t.same(empty.body.errors, { file: ['The file holds no rows with a date and an amount.'] });
  const broken = await analyze(api, owner.token, 'bad.ofx', OFX_SGML.replace('<TRNAMT>-23.40', '<TRNAMT>lots'));
  t.equal(broken.status, 422);
  t.same(broken.body.errors, { file: ['Transaction 1 of the OFX statement has no readable amount (TRNAMT).'] });
  t.equal((await api.db.selectFrom('import_sessions').select('id').execute()).length, sessionsBefore.length, 'no session was created');

  // a session whose upload vanished before the job ran fails
  const lost = await analyze(api, owner.token, 'march.csv', CSV);
  const row = await api.db.selectFrom('import_sessions').select('file_id').where('id', '=', lost.body.data.id).executeTakeFirstOrThrow();
  await api.db.updateTable('import_sessions').set({ file_id: null }).where('id', '=', lost.body.data.id).execute();
  await api.db.deleteFrom('files').where('id', '=', row.file_id!).execute();
  await runJob(api, { sessionId: lost.body.data.id });
  const failed = (await api.request('GET', `/api/v1/import/sessions/${lost.body.data.id}`, { token: owner.token })).body.data;
  t.match(failed, { status: 'failed', error: 'Uploaded file not found', suggestions: [] });
  t.same(failed.metadata, { error: 'Uploaded file not found' });
  const refused = await confirm({ session_id: failed.id, accepted: [{ index: 0 }] });
  t.equal(refused.status, 409);
  t.equal(refused.body.message, 'This import session failed and cannot be confirmed.');

  const running = await analyze(api, owner.token, 'march.csv', CSV);
  const early = await confirm({ session_id: running.body.data.id, accepted: [{ index: 0 }] });
  t.equal(early.status, 409);
  t.equal(early.body.message, 'This import session is still being analysed.');
  await runJob(api, { sessionId: running.body.data.id });
});

t.test('PDF and images need the document processor', async (t) => {
  const res = await analyze(api, owner.token, 'statement.pdf', PDF);
  t.equal(res.status, 422);
  t.same(res.body.errors, { file: ['PDF and image files cannot be analysed: no document processor is configured on this server.'] });
  const integrations = await api.request('GET', '/api/v1/integrations', { token: owner.token });
  t.equal(integrations.body.data.find((i: { key: string }) => i.key === 'document-processor').configured, false);
});

t.test('with a document processor, PDFs are sent to it and its rows come back as suggestions', async (t) => {
  const fake = await startFakeProvider(t);
  const app = await startApp(t, { documentProcessorUrl: `${fake.url}/extract`, documentProcessorKey: 'secret' });
  const user = await app.newUser();
  const integrations = await app.request('GET', '/api/v1/integrations', { token: user.token });
  t.equal(integrations.body.data.find((i: { key: string }) => i.key === 'document-processor').configured, true);

  fake.answer(() => ({ json: { transactions: [{ date: '2026-04-02', amount: '-15.20', description: 'Card charge', counterparty: 'Netflix', fee: 0.5 }, { date: '05 Apr 2026', amount: 300, currency: 'usd' }] } }));
  const res = await analyze(app, user.token, 'scan.pdf', PDF, [['document_type', 'bank_statement']]);
  t.equal(res.status, 201);
  t.equal(res.body.data.processor, 'document_processor');
  await runJob(app, { sessionId: res.body.data.id });
  t.equal(fake.requests.length, 1);
  t.equal(fake.requests[0].path, '/extract');
  t.equal(fake.requests[0].headers.authorization, 'Bearer secret');
  t.match(String(fake.requests[0].headers['content-type']), /^multipart\/form-data/);
  const session = (await app.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token: user.token })).body.data;
  t.match(session.suggestions, [
    { source: 'remote', confidence: 0.8, type: 'expense', amount: 15.2, date: '2026-04-02', party_name: 'Netflix', fee: 0.5 },
    { type: 'income', amount: 300, currency: 'USD', date: '2026-04-05' },
  ]);

  fake.answer(() => ({ status: 500, json: { error: 'boom' } }));
  const failing = await analyze(app, user.token, 'scan.pdf', PDF);
  await runJob(app, { sessionId: failing.body.data.id });
  const failed = (await app.request('GET', `/api/v1/import/sessions/${failing.body.data.id}`, { token: user.token })).body.data;
  t.match(failed, { status: 'failed', error: 'The document processor answered HTTP 500.' });
});

t.test('list, get and delete sessions', async (t) => {
  const user = await api.newUser();
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) ids.push((await analyze(api, user.token, `f${i}.csv`, CSV)).body.data.id);
  const page = await api.request('GET', '/api/v1/import/sessions?limit=2&page=1', { token: user.token });
  t.equal(page.status, 200);
  t.same(page.body.data.data.map((s: { id: number }) => s.id), [ids[2], ids[1]], 'newest first');
  t.match(page.body.data, { current_page: 1, per_page: 2, total: 3, last_page: 2 });

  const removed = await api.request('DELETE', `/api/v1/import/sessions/${ids[0]}`, { token: user.token });
  t.equal(removed.status, 200);
  t.equal(removed.body.message, 'Import session deleted.');
  t.equal((await api.request('GET', `/api/v1/import/sessions/${ids[0]}`, { token: user.token })).status, 404);
  const uploads = await api.db.selectFrom('files').select('id').where('user_id', '=', user.user.id).where('model', '=', 'import').execute();
  t.equal(uploads.length, 2, "the deleted session's upload went with it");
  await runJob(api); // the deleted session is not analysed; the others are
  const rest = await api.request('GET', '/api/v1/import/sessions', { token: user.token });
  t.same(rest.body.data.data.map((s: { status: string }) => s.status), ['ready', 'ready']);
});

t.test("another user's session is 404", async (t) => {
  const session = await analysed('march.csv', CSV);
  for (const [method, url] of [['GET', `/api/v1/import/sessions/${session.id}`], ['DELETE', `/api/v1/import/sessions/${session.id}`]]) {
    const res = await api.request(method, url, { token: stranger.token });
    t.equal(res.status, 404, `${method} ${url}`);
  }
  const res = await confirm({ session_id: session.id, accepted: [{ index: 0 }] }, stranger.token);
  t.equal(res.status, 404);
  t.equal(res.body.message, 'Import session not found.');
  t.equal((await api.request('GET', '/api/v1/import/sessions/999999', { token: owner.token })).status, 404);
  const list = await api.request('GET', '/api/v1/import/sessions', { token: stranger.token });
  t.equal(list.body.data.total, 0);
});

t.test('no token is 401', async (t) => {
  t.equal((await analyze(api, undefined, 'march.csv', CSV)).status, 401);
  t.equal((await api.request('GET', '/api/v1/import/sessions')).status, 401);
  t.equal((await api.request('GET', '/api/v1/import/sessions/1')).status, 401);
  t.equal((await api.request('DELETE', '/api/v1/import/sessions/1')).status, 401);
  t.equal((await api.request('POST', '/api/v1/import/confirm', { body: { session_id: 1, accepted: [{ index: 0 }] } })).status, 401);
});

t.test('bad input is 422 keyed by field', async (t) => {
  const noFile = multipart([['document_type', 'receipt']]);
  const missing = await api.request('POST', '/api/v1/import/analyze', { token: owner.token, ...noFile });
  t.equal(missing.status, 422);
  t.ok(missing.body.errors.file);
  const badType = await analyze(api, owner.token, 'march.csv', CSV, [['document_type', 'novel']]);
  t.equal(badType.status, 422);
  t.ok(badType.body.errors.document_type);
  const zip = await analyze(api, owner.token, 'archive.zip', Buffer.from('504b0304140000000800', 'hex'));
  t.equal(zip.status, 422);
  t.match(zip.body.errors.file, [/must be a CSV, CAMT\.053 XML, OFX\/QFX, PDF or image/]);
  const xml = await analyze(api, owner.token, 'feed.xml', '<?xml version="1.0"?><rss><channel/></rss>');
  t.same(xml.body.errors, { file: ['The XML file is not a CAMT.053 bank statement.'] });
  const empty = await analyze(api, owner.token, 'empty.csv', '');
  t.equal(empty.status, 422);

  const session = await analysed('march.csv', CSV);
  const otherWallet = await fx.mainWallet(stranger.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ session_id: session.id, accepted: [] }, 'accepted'],
    [{ session_id: session.id, accepted: [{ index: 0 }, { index: 0 }] }, 'accepted.1.index'],
    [{ session_id: session.id, accepted: [{ index: 0, wallet_id: otherWallet }] }, 'accepted.0.wallet_id'],
    [{ session_id: session.id, accepted: [{ index: 1, category_id: 999999 }] }, 'accepted.0.category_id'],
    [{ session_id: session.id, accepted: [{ index: 0, amount: 1.23456 }] }, 'accepted.0.amount'],
    [{ session_id: session.id, accepted: [{ index: 0, type: 'transfer' }] }, 'accepted.0.type'],
    [{ accepted: [{ index: 0 }] }, 'session_id'],
  ];
  const before = await transactionCount();
  for (const [body, field] of cases) {
    const res = await confirm(body);
    t.equal(res.status, 422, field);
    t.ok(res.body.errors?.[field], `${field}: ${JSON.stringify(res.body.errors)}`);
  }
  t.equal(await transactionCount(), before, 'nothing imported on 422');
});
