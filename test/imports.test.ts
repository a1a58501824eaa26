// Legacy CSV imports over HTTP: upload, the processing job (run directly), failed rows with
// their raw cells and real reasons, fixing them, the lists, and reruns that create nothing twice.
import t from 'tap';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { readStoredBytes } from '../server/storage.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures, multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();

const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });
const runJob = (importId?: number) => processCsvImportJob.run(jobCtx(), importId === undefined ? {} : { importId });

function upload(token: string | undefined, filename: string, content: string | Buffer) {
  const data = typeof content === 'string' ? Buffer.from(content) : content;
  const { payload, headers } = multipart([], [{ field: 'file', filename, contentType: 'text/csv', data }]);
  return api.request('POST', '/api/v1/import', { token, payload, headers });
}

async function uploaded(token: string, content: string, filename = 'statement.csv') {
  const res = await upload(token, filename, content);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: number };
}

async function failedRows(token: string, importId: number, query = '?limit=100') {
  const res = await api.request('GET', `/api/v1/imports/${importId}/failed${query}`, { token });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

const walletNamed = (userId: number, name: string) =>
  api.db.selectFrom('wallets').selectAll().where('user_id', '=', userId).where('name', '=', name).where('deleted_at', 'is', null).execute();
const transactionsOf = (userId: number) =>
  api.db.selectFrom('transactions').selectAll().where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute();
const importRow = (id: number) => api.db.selectFrom('file_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const STATEMENT = [
  'Date,Amount,Currency,Type,Payee,Account,Category,Memo', // line 1
  '2026-03-01,1000,USD,income,Employer,Main Wallet,Salary,March pay', // 2: imported
  '15/01/2026,-12.50,,,Cafe,,Coffee,Latte', // 3: expense by sign, default wallet, day-first date
  '2026-03-02,"1.234,50",EUR,income,,Euro Bank,,Bonus', // 4: creates the EUR wallet
  '2026-03-05,100,USD,+Transfer,,Main Wallet,,', // 5: transfer source
  '2026-03-06,90,EUR,-Transfer,,Euro Bank,,', // 6: transfer destination (rate 0.9)
  '02/03/2026,5,USD,expense,,Main Wallet,,ambiguous', // 7: ambiguous date
  '2026-03-07,abc,USD,expense,,Main Wallet,,', // 8: not a number
  '2026-03-07,0,USD,expense,,Main Wallet,,', // 9: zero
  '2026-03-07,5,USD,gift,,Main Wallet,,', // 10: unknown type
  '2026-03-07,5000,USD,expense,,Main Wallet,,too much', // 11: overdraft
  '2026-03-08,10,USD,+transfer,,Main Wallet,,', // 12: no -transfer follows
  '2026-03-08,7,,expense,,Ghost,,', // 13: unknown wallet without currency
].join('\n');

let statementId: number;

t.test('an upload is stored and queued; the job imports the rows through the ledger', async (t) => {
  const res = await upload(owner.token, 'March.CSV', STATEMENT);
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.equal(res.body.message, 'File uploaded. Import scheduled.');
  t.match(res.body.data, { user_id: owner.user.id, name: 'March.CSV', file_type: 'csv', status: 'queued', progress: 0, num_rows: -1, failed_imports_count: 0, error: null });
  statementId = res.body.data.id;
  const stored = await api.db.selectFrom('files').selectAll().where('user_id', '=', owner.user.id).where('model', '=', 'import').execute();
  t.equal(stored.length, 1, 'the upload is a file row of model import');
  t.same(await readStoredBytes(api.app.services.storage, stored[0].path), Buffer.from(STATEMENT));

  await runJob(statementId);

  const row = await importRow(statementId);
  t.match(row, { status: 'completed', progress: 12, num_rows: 12, error: null });
  const main = (await walletNamed(owner.user.id, 'Main Wallet'))[0];
  const [euro] = await walletNamed(owner.user.id, 'Euro Bank');
  t.match(euro, { currency: 'EUR', type: 'cash' }, 'a named wallet with a currency is created');
  t.equal(main.balance, '887.5000', '1000 − 12.50 − 100 (the transfer); the failed rows moved nothing');
  t.equal(euro.balance, '1324.5000', '1234.50 + 90 received');

  const made = await transactionsOf(owner.user.id);
  t.equal(made.length, 5, 'income, expense, income and the transfer legs');
  t.match(made[0], { type: 'income', amount: '1000.0000', wallet_id: main.id, description: 'March pay' });
  t.equal(made[0].datetime.toISOString(), '2026-03-01T00:00:00.000Z', 'the CSV date, in the user time zone (UTC)');
  t.match(made[1], { type: 'expense', amount: '12.5000', wallet_id: main.id, description: 'Latte' }, 'a negative amount without a type is an expense in the default wallet');
  t.equal(made[1].datetime.toISOString(), '2026-01-15T00:00:00.000Z');
  const party = await api.db.selectFrom('parties').selectAll().where('id', '=', made[0].party_id!).executeTakeFirstOrThrow();
  t.equal(party.name, 'Employer', 'the party is created');
  const links = await api.db
    .selectFrom('transaction_categories')
    .innerJoin('categories', 'categories.id', 'transaction_categories.category_id')
    .select(['categories.name', 'categories.type'])
    .where('transaction_id', '=', made[0].id)
    .execute();
  t.same(links, [{ name: 'Salary', type: 'income' }], 'the category is created with the row type');

  const [transfer] = await api.db.selectFrom('transfers').selectAll().where('user_id', '=', owner.user.id).execute();
  t.match(transfer, { from_wallet_id: main.id, to_wallet_id: euro.id, amount: '100.0000', received_amount: '90.0000' });
  t.equal(transfer.datetime.toISOString(), '2026-03-05T00:00:00.000Z', 'a transfer keeps the date of its CSV row');

  const listed = await api.request('GET', '/api/v1/transactions?limit=100', { token: owner.token });
  t.equal(listed.body.data.data.length, 5, 'imported rows are ordinary transactions');
  t.notOk(await api.db.selectFrom('files').select('id').where('model', '=', 'import').where('user_id', '=', owner.user.id).executeTakeFirst(), 'the upload is removed once imported');
});

t.test('failed rows keep their raw cells, line and the real reason, in file order', async (t) => {
  const page = await failedRows(owner.token, statementId);
  t.equal(page.total, 7);
  const byLine = Object.fromEntries(page.data.map((row: any) => [row.row_number, row]));
  t.same(page.data.map((row: any) => row.row_number), [7, 8, 9, 10, 11, 12, 13]);
  t.match(byLine[7], { amount: '5', currency: 'USD', type: 'expense', wallet: 'Main Wallet', description: 'ambiguous', date: '02/03/2026', party: '', category: '' });
  t.match(byLine[7].reason, /The date 02\/03\/2026 is not a valid date/);
  t.match(byLine[8], { amount: 'abc', reason: /The amount abc is not a number/ });
  t.match(byLine[9], { amount: '0', reason: 'Amount must be a number greater than zero.' });
  t.match(byLine[10], { type: 'gift', reason: /Invalid transaction type gift/ });
  t.match(byLine[11], { amount: '5000', reason: /below zero/ });
  t.match(byLine[12], { type: '+transfer', reason: 'Corresponding -transfer row not found.' });
  t.match(byLine[13], { wallet: 'Ghost', currency: '', reason: 'There is no wallet named Ghost; give its currency to create it.' });

  const firstPage = await failedRows(owner.token, statementId, '?limit=2');
  t.match(firstPage, { current_page: 1, per_page: 2, total: 7, last_page: 4 });
  t.same(firstPage.data.map((row: any) => row.row_number), [7, 8]);
  const third = await failedRows(owner.token, statementId, '?limit=2&page=3');
  t.same(third.data.map((row: any) => row.row_number), [11, 12]);

  const listed = await api.request('GET', '/api/v1/imports', { token: owner.token });
  t.match(listed.body.data.data[0], { id: statementId, status: 'completed', progress: 12, num_rows: 12, failed_imports_count: 7 });
});

t.test('rerunning the job, by id or on its schedule, creates nothing twice', async (t) => {
  const before = (await transactionsOf(owner.user.id)).length;
  await runJob(statementId);
  await runJob();
  t.equal((await transactionsOf(owner.user.id)).length, before);
  t.equal((await failedRows(owner.token, statementId)).total, 7);

  // A worker stopped after committing two rows: the next run resumes at `progress`.
  const resumed = await uploaded(owner.token, 'amount,type,account,date\n1,income,Main Wallet,2026-04-01\n2,income,Main Wallet,2026-04-02\n4,income,Main Wallet,2026-04-03\n');
  await api.db.updateTable('file_imports').set({ status: 'processing', progress: 2, num_rows: 3 }).where('id', '=', resumed.id).execute();
  await runJob();
  const made = await transactionsOf(owner.user.id);
  t.equal(made.length, before + 1, 'only the row after progress is imported');
  t.equal(made[made.length - 1].amount, '4.0000');
  t.match(await importRow(resumed.id), { status: 'completed', progress: 3 });
});

t.test('two workers on one import write each row once; the schedule picks up lost nudges', async (t) => {
  const user = await api.newUser();
  const lines = ['amount,type,wallet,date'];
  for (let i = 1; i <= 120; i++) lines.push(`${i},income,Main Wallet,2026-05-01`);
  const first = await uploaded(user.token, lines.join('\n'));
  const second = await uploaded(user.token, 'amount,date\n-3,2026-05-02\n');
  await Promise.all([runJob(first.id), runJob(first.id), runJob()]);
  await runJob(); // the scan finishes whatever the racing runs skipped
  const made = await transactionsOf(user.user.id);
  t.equal(made.length, 121, 'every row once');
  t.equal(new Set(made.filter((row) => row.type === 'income').map((row) => row.amount)).size, 120);
  t.match(await importRow(first.id), { status: 'completed', progress: 120, num_rows: 120 });
  t.match(await importRow(second.id), { status: 'completed', progress: 1 });
  t.equal((await walletNamed(user.user.id, 'Main Wallet'))[0].balance, '7257.0000', '1 + … + 120 − 3');
});

t.test('a transfer pair that fails keeps both rows; a fix with pair_id clears both', async (t) => {
  const user = await api.newUser();
  const savings = await fx.wallet(user.user.id);
  await api.db.updateTable('wallets').set({ name: 'Savings' }).where('id', '=', savings).execute();
  // no header: the positional order amount, currency, type, party, wallet, category, description, date
  const pair = await uploaded(user.token, '50,USD,+transfer,,Main Wallet,,,2026-06-01\n50,USD,-transfer,,Savings,,,2026-06-01\n20,USD,income,,Main Wallet,,,2026-06-02\n');
  await runJob(pair.id);
  const rows = (await failedRows(user.token, pair.id)).data;
  t.same(rows.map((row: any) => [row.row_number, row.type]), [[1, '+transfer'], [2, '-transfer']]);
  t.equal(rows[0].reason, rows[1].reason, 'both rows carry the same reason');
  t.match(rows[0].reason, /below zero/, 'the 20 income came after the transfer');

  const res = await api.request('PUT', `/api/v1/imports/${pair.id}/fix`, {
    token: user.token,
    body: [{ id: rows[0].id, pair_id: rows[1].id, amount: 15, type: 'transfer', date: '2026-06-03', wallet: 'Main Wallet', to_wallet: 'Savings' }],
  });
  t.equal(res.status, 200);
  t.match(res.body.data, { fixed_count: 1, failed_count: 0, import: { failed_imports_count: 0 } });
  t.same((await failedRows(user.token, pair.id)).data, [], 'the pair row is cleared with its source');
  t.equal(await fx.balance(savings), '15.0000');
  t.equal((await walletNamed(user.user.id, 'Main Wallet'))[0].balance, '5.0000');
});

t.test('a file that cannot be read fails as a whole with the reason', async (t) => {
  const broken = await uploaded(owner.token, 'amount,description\n1,"never closed\n');
  await runJob(broken.id);
  const row = await importRow(broken.id);
  t.equal(row.status, 'failed');
  t.match(row.error, /not readable CSV/);
  const listed = await api.request('GET', '/api/v1/imports?limit=100', { token: owner.token });
  t.match(listed.body.data.data.find((i: any) => i.id === broken.id), { status: 'failed', error: /not readable CSV/ });

  const empty = await uploaded(owner.token, 'amount,type\n');
  await runJob(empty.id);
  t.match(await importRow(empty.id), { status: 'completed', progress: 0, num_rows: 0 });
});

t.test('upload validation: 422 on file, 401 without a token', async (t) => {
  const cases: Array<[string, string | Buffer]> = [
    ['report.pdf', '%PDF-1.4\n'],
    ['image.csv', PNG],
    ['empty.csv', ''],
  ];
  for (const [filename, content] of cases) {
    const res = await upload(owner.token, filename, content);
    t.equal(res.status, 422, filename);
    t.ok(res.body.errors?.file, `errors.file for ${filename}: ${JSON.stringify(res.body)}`);
  }
  const missing = await api.request('POST', '/api/v1/import', { token: owner.token, ...multipart([['other', 'x']]) });
  t.equal(missing.status, 422);
  t.ok(missing.body.errors?.file);
  const latin1 = await upload(owner.token, 'latin1.csv', Buffer.from('amount;date\n1,5;01.03.2026 \xe9\n', 'latin1'));
  t.equal(latin1.status, 201, 'Windows-1252 text is a CSV file (bank exports are written so)');
  const txt = await upload(owner.token, 'export.txt', 'amount\n1\n');
  t.equal(txt.status, 201, 'a .txt CSV is accepted');
  t.equal((await upload(undefined, 'a.csv', 'amount\n1\n')).status, 401);
});

t.test('lists: newest first, paged, the caller\'s own; another user\'s import is 404', async (t) => {
  const all = await api.request('GET', '/api/v1/imports?limit=100', { token: owner.token });
  t.equal(all.status, 200);
  const ids = all.body.data.data.map((i: any) => i.id);
  t.same(ids, [...ids].sort((a: number, b: number) => b - a), 'id descending');
  t.equal(all.body.data.total, ids.length);
  const paged = await api.request('GET', '/api/v1/imports?limit=1&page=2', { token: owner.token });
  t.same(paged.body.data.data.map((i: any) => i.id), [ids[1]]);
  t.match(paged.body.data, { current_page: 2, per_page: 1, last_page: ids.length });

  const theirs = await api.request('GET', '/api/v1/imports', { token: stranger.token });
  t.same(theirs.body.data.data, [], 'nobody sees another user\'s imports');
  const foreign = await api.request('GET', `/api/v1/imports/${statementId}/failed`, { token: stranger.token });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.message, 'We could not find this import.');
  t.equal((await api.request('GET', '/api/v1/imports/999999/failed', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', '/api/v1/imports')).status, 401);
  t.equal((await api.request('GET', `/api/v1/imports/${statementId}/failed`)).status, 401);
  t.equal((await api.request('GET', '/api/v1/imports?limit=0', { token: owner.token })).status, 422);
});

t.test('fixing failed rows: per-row results, 200 even when some still fail', async (t) => {
  const rows = await failedRows(owner.token, statementId);
  const at = (line: number) => rows.data.find((row: any) => row.row_number === line);
  const main = (await walletNamed(owner.user.id, 'Main Wallet'))[0];
  const balanceBefore = main.balance;
  const before = (await transactionsOf(owner.user.id)).length;
  const other = await uploaded(owner.token, 'amount,date\nx,2026-01-01\n');
  await runJob(other.id);
  const [otherRow] = (await failedRows(owner.token, other.id)).data;

  const body = [
    { id: at(7).id, amount: 5, type: 'expense', date: '2026-03-02', wallet: 'Main Wallet', description: 'ambiguous', category: 'Snacks', party: 'Kiosk' },
    { id: at(13).id, amount: 7, type: 'expense', date: '2026-03-08', wallet: 'Ghost' },
    { id: at(12).id, amount: 10, to_amount: 9, type: 'transfer', date: '2026-03-08', wallet: 'Main Wallet', currency: 'USD', to_wallet: 'Euro Bank' },
    { id: otherRow.id, amount: 1, type: 'income', date: '2026-01-01' },
  ];
  const res = await api.request('PUT', `/api/v1/imports/${statementId}/fix`, { token: owner.token, body });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.message, 'Some rows could not be fixed.');
  t.match(res.body.data, { fixed_count: 2, failed_count: 2, import: { id: statementId, failed_imports_count: 5 } });
  const [expense, ghost, transfer, foreign] = res.body.data.results;
  t.match(expense, { id: at(7).id, status: 'fixed', reason: null, transfer_id: null });
  t.type(expense.transaction_id, 'number');
  t.match(ghost, { id: at(13).id, status: 'failed', reason: 'There is no wallet named Ghost; give its currency to create it.', transaction_id: null });
  t.match(transfer, { status: 'fixed', transaction_id: null });
  t.type(transfer.transfer_id, 'number');
  t.match(foreign, { status: 'failed', reason: 'This failed row does not belong to this import.' });

  const made = await api.db.selectFrom('transactions').selectAll().where('id', '=', expense.transaction_id).executeTakeFirstOrThrow();
  t.match(made, { type: 'expense', amount: '5.0000', wallet_id: main.id, description: 'ambiguous' });
  t.equal(made.datetime.toISOString(), '2026-03-02T00:00:00.000Z');
  const moved = await api.db.selectFrom('transfers').selectAll().where('id', '=', transfer.transfer_id).executeTakeFirstOrThrow();
  t.match(moved, { amount: '10.0000', received_amount: '9.0000', from_wallet_id: main.id });
  t.equal(moved.datetime.toISOString(), '2026-03-08T00:00:00.000Z');
  t.equal(await fx.balance(main.id), (Number(balanceBefore) - 15).toFixed(4), 'balances moved through the ledger');
  t.equal((await transactionsOf(owner.user.id)).length, before + 3);

  const left = await failedRows(owner.token, statementId);
  t.notOk(left.data.some((row: any) => [at(7).id, at(12).id].includes(row.id)), 'fixed rows leave the list');
  t.equal(left.total, 5);
  t.equal((await failedRows(owner.token, other.id)).data[0].reason, otherRow.reason, 'a row of another import is not touched');

  const again = await api.request('PUT', `/api/v1/imports/${statementId}/fix`, { token: owner.token, body: [body[0], body[2]] });
  t.equal(again.status, 200);
  t.equal(again.body.message, 'Operation successful');
  t.same(again.body.data.results.map((r: any) => [r.status, r.transaction_id, r.transfer_id]), [
    ['fixed', expense.transaction_id, null],
    ['fixed', null, transfer.transfer_id],
  ], 'a repeated fix answers the same and writes nothing');
  t.equal((await transactionsOf(owner.user.id)).length, before + 3);

  const overdraft = await api.request('PUT', `/api/v1/imports/${statementId}/fix`, {
    token: owner.token,
    body: [{ id: at(11).id, amount: 5000, type: 'expense', date: '2026-03-07', wallet: 'Main Wallet' }],
  });
  t.match(overdraft.body.data.results[0], { status: 'failed', reason: /below zero/ });
  t.match((await failedRows(owner.token, statementId)).data.find((row: any) => row.id === at(11).id), { reason: /below zero/, amount: '5000' });
});

t.test('fix validation (422 by position), another user\'s import (404), no token (401)', async (t) => {
  const rows = await failedRows(owner.token, statementId);
  const id = rows.data[0].id;
  const url = `/api/v1/imports/${statementId}/fix`;
  const before = (await transactionsOf(owner.user.id)).length;

  const noTarget = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: 1, type: 'transfer', date: '2026-01-01', wallet: 'Main Wallet' }] });
  t.equal(noTarget.status, 422);
  t.ok(noTarget.body.errors['0.to_wallet'], JSON.stringify(noTarget.body.errors));
  const twice = await api.request('PUT', url, {
    token: owner.token,
    body: [
      { id, amount: 1, type: 'income', date: '2026-01-01' },
      { id, amount: 1, type: 'income', date: '2026-01-01' },
    ],
  });
  t.equal(twice.status, 422);
  t.ok(twice.body.errors['1.id']);
  const decimals = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: 1.23456, type: 'income', date: '2026-01-01' }] });
  t.equal(decimals.status, 422);
  t.ok(decimals.body.errors['0.amount']);
  // a row still wrong is answered per row with its reason (and stays listed), not with a 422
  const badDate = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: 1, type: 'income', date: '2026-02-30' }] });
  t.equal(badDate.status, 200);
  t.match(badDate.body.data.results, [{ id, status: 'failed', reason: /The date 2026-02-30 is not a valid date/ }]);
  const zero = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: '0.00', type: 'income', date: '2026-01-01' }] });
  t.equal(zero.status, 200);
  t.match(zero.body.data.results, [{ id, status: 'failed', reason: 'Amount must be a number greater than zero.' }]);
  t.ok((await failedRows(owner.token, statementId)).data.some((row: { id: number }) => row.id === id), 'the row stays listed');
  const schema = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: 1, type: 'gift', date: '2026-01-01' }] });
  t.ok(schema.body.errors['0.type'], JSON.stringify(schema.body.errors));
  t.equal(schema.status, 422);
  t.equal((await api.request('PUT', url, { token: owner.token, body: [] })).status, 422);
  t.equal((await transactionsOf(owner.user.id)).length, before, 'nothing written on 422');

  const foreign = await api.request('PUT', url, { token: stranger.token, body: [{ id, amount: 1, type: 'income', date: '2026-01-01' }] });
  t.equal(foreign.status, 404);
  t.equal((await api.request('PUT', url, { body: [{ id, amount: 1, type: 'income', date: '2026-01-01' }] })).status, 401);
  // the amount as GET /failed returns it: a numeric string
  const asListed = await api.request('PUT', url, { token: owner.token, body: [{ id, amount: '12.50', type: 'income', date: '2026-01-01', currency: 'USD', wallet: 'Main Wallet' }] });
  t.equal(asListed.status, 200);
  t.match(asListed.body.data.results, [{ id, status: 'fixed' }], JSON.stringify(asListed.body.data.results));
});

t.test('a row past the balance limit or the calendar fails alone, and no balance ever leaves its ledger', async (t) => {
  // A row that would push a balance past numeric(19, 4) fails with that reason, not a generic one.
  const full = await fx.wallet(owner.user.id, { balance: '999999999999999' });
  await api.db.updateTable('wallets').set({ name: 'Full' }).where('id', '=', full).execute();
  const overflow = await uploaded(owner.token, 'amount,type,account,date\n5,income,Full,2026-06-01\n');
  await runJob(overflow.id);
  t.match((await failedRows(owner.token, overflow.id)).data, [{ amount: '5', reason: 'The wallet balance would become too large.' }]);
  t.equal(await fx.balance(full), '999999999999999.0000');

  // A fix dated before year 1000 was written in 19xx (two-digit years): it is refused instead.
  const [stuck] = (await failedRows(owner.token, overflow.id)).data;
  const fixed = await api.request('PUT', `/api/v1/imports/${overflow.id}/fix`, { token: owner.token, body: [{ id: stuck.id, amount: 5, type: 'income', date: '0050-01-01', wallet: 'Main Wallet' }] });
  t.equal(fixed.status, 200);
  t.match(fixed.body.data.results, [{ id: stuck.id, status: 'failed', reason: /The date 0050-01-01 is not a valid date/ }]);
  for (const user of [owner, stranger]) t.same(await walletsOffLedger(api.db, user.user.id), [], `every wallet of user ${user.user.id} equals opening + live transactions`);
});
