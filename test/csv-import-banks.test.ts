// Real bank exports through the legacy import (POST /v1/import and its job), read by the same
// streaming reader as analysis: every fixture gives the transactions its analysis suggests; a
// file larger than a batch is written in batches, resumes at `progress` and keeps every
// balance on its ledger; round trips analyse → confirm → re-upload for every format; and bad
// files (truncated XML, binary, empty, 100 MB) refused on both upload routes with nothing written.
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });
const fixtureDir = new URL('./fixtures/statements/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, fixtureDir));
const CSV_FIXTURES = readdirSync(fixtureDir).filter((name) => name.endsWith('.csv')).sort();

function upload(route: 'import' | 'import/analyze', token: string, filename: string, data: Buffer | string) {
  const { payload, headers } = multipart([], [{ field: 'file', filename, contentType: 'text/csv', data: Buffer.from(data) }]);
  return api.request('POST', `/api/v1/${route}`, { token, payload, headers });
}

async function imported(token: string, filename: string, data: Buffer | string) {
  const res = await upload('import', token, filename, data);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await processCsvImportJob.run(jobCtx(), { importId: res.body.data.id });
  return api.db.selectFrom('file_imports').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
}

async function analysed(token: string, filename: string, data: Buffer | string) {
  const res = await upload('import/analyze', token, filename, data);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run(jobCtx(), { sessionId: res.body.data.id });
  return (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token })).body.data;
}

const transactionsOf = (userId: number) =>
  api.db.selectFrom('transactions').select(['type', 'amount', 'datetime', 'wallet_id', 'description']).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute();
const key = (type: string, amount: number | string, date: string) => `${date} ${type} ${Number(amount).toFixed(4)}`;

t.test('every bank export fixture imports through POST /import as its analysis reads it', async (t) => {
  for (const name of CSV_FIXTURES) {
    const user = await api.newUser();
    const session = await analysed(user.token, name, fixture(name));
    const readable = session.suggestions.filter((s: any) => s.amount !== null && s.type !== null && s.date !== null);
    const row = await imported(user.token, name, fixture(name));
    t.match(row, { status: 'completed', error: null }, name);
    t.equal(row.progress, row.num_rows, `${name}: every data row handled`);
    const made = await transactionsOf(user.user.id);
    t.same(
      made.map((tx) => key(tx.type, tx.amount, tx.datetime.toISOString().slice(0, 10))).sort(),
      readable.map((s: any) => key(s.type, s.amount, s.date)).sort(),
      `${name}: the rows analysis suggests, no preamble or trailer line`,
    );
    const failed = await api.db.selectFrom('failed_imports').select('reason').where('file_import_id', '=', row.id).execute();
    const notices = session.suggestions.filter((s: any) => s.not_importable_reason !== null).length;
    t.equal(failed.length, session.suggestions.length - readable.length - notices, `${name}: rows without a readable amount or date are failed rows, lines of amount 0 are none`);
    t.same(await walletsOffLedger(api.db, user.user.id), [], `${name}: balances equal the ledger`);
  }
});

t.test('bank rows land in the account\'s wallet, the default wallet, or the file\'s wallet for another currency', async (t) => {
  const user = await api.newUser();
  await imported(user.token, 'sparkasse-de.csv', fixture('sparkasse-de.csv'));
  const [sparkasse] = await api.db.selectFrom('wallets').selectAll().where('user_id', '=', user.user.id).where('name', '=', 'DE89370400440532013000').execute();
  t.match(sparkasse, { currency: 'EUR' }, 'the statement\'s IBAN names a new EUR wallet');

  await imported(user.token, 'paypal-de.csv', fixture('paypal-de.csv'));
  const wallets = await api.db.selectFrom('wallets').select(['name', 'currency']).where('user_id', '=', user.user.id).orderBy('id').execute();
  t.ok(wallets.some((w) => w.name === 'paypal-de EUR' && w.currency === 'EUR'), 'EUR rows without an account: the file\'s EUR wallet');
  const main = await fx.mainWallet(user.user.id);
  const usd = (await transactionsOf(user.user.id)).filter((tx) => tx.wallet_id === main);
  t.ok(usd.length > 0, 'USD rows go to the default (USD) wallet');
});

/** A German bank export of `rows` rows in Windows-1252, with a preamble and a closing-balance trailer. */
function bigExport(rows: number): { data: Buffer; cents: number } {
  const lines = ['Kontonummer:;DE44500105175407324931', 'Zeitraum:;01.01.2026 - 31.12.2026', '', 'Buchungstag;Valuta;Auftraggeber/Empfänger;Verwendungszweck;Betrag (EUR)'];
  let cents = 0;
  for (let i = 0; i < rows; i++) {
    const value = i % 5 === 4 ? 250_000 + i : -(1_234 + (i % 97) * 13); // an income every fifth row
    cents += value;
    const day = `${String((i % 28) + 1).padStart(2, '0')}.${String((i % 12) + 1).padStart(2, '0')}.26`;
    const amount = `${value < 0 ? '-' : ''}${Math.floor(Math.abs(value) / 100).toLocaleString('de-DE')},${String(Math.abs(value) % 100).padStart(2, '0')}`;
    lines.push(`${day};${day};Bäckerei Müller ${i % 40};"Einkauf; Filiale ${i % 7}";${amount}`);
  }
  lines.push('Kontostand am 31.12.2026;;;;0,00');
  return { data: Buffer.from(lines.join('\r\n') + '\r\n', 'latin1'), cents };
}

t.test('a bank export larger than a batch: streamed, written in batches, resumed at progress', async (t) => {
  const user = await api.newUser();
  const { data, cents } = bigExport(4_500);
  const row = await imported(user.token, 'umsaetze.csv', data);
  t.match(row, { status: 'completed', progress: 4_501, num_rows: 4_501, error: null }, 'the trailer line is a data row handled, not imported');
  const made = await transactionsOf(user.user.id);
  t.equal(made.length, 4_500);
  const [wallet] = await api.db.selectFrom('wallets').selectAll().where('user_id', '=', user.user.id).where('name', '=', 'DE44500105175407324931').execute();
  t.equal(wallet.balance, (cents / 100).toFixed(4), 'the wallet moved by the sum of the rows');
  t.equal(new Set(made.map((tx) => tx.description)).size, 7, 'quoted descriptions with the delimiter inside');
  t.equal((await api.db.selectFrom('failed_imports').select('id').where('file_import_id', '=', row.id).execute()).length, 0, 'none failed: the first rows (expenses) took the new wallet below zero, as the bank booked them');
  t.same(await walletsOffLedger(api.db, user.user.id), [], 'balance equals the ledger');
  const parties = await api.db.selectFrom('parties').select('name').where('user_id', '=', user.user.id).execute();
  t.equal(parties.length, 40, 'each party once, with its umlauts from Windows-1252');
  t.ok(parties.some((p) => p.name === 'Bäckerei Müller 3'));

  // a worker that stopped after its first batch: the next run reads on from progress
  const other = await api.newUser();
  const res = await upload('import', other.token, 'umsaetze.csv', data);
  await api.db.updateTable('file_imports').set({ status: 'processing', progress: 2_000, num_rows: 4_501 }).where('id', '=', res.body.data.id).execute();
  await processCsvImportJob.run(jobCtx(), { importId: res.body.data.id });
  t.equal((await transactionsOf(other.user.id)).length, 2_500, 'only the rows after progress');
  const listed = await api.request('GET', '/api/v1/imports', { token: other.token });
  t.match(listed.body.data.data[0], { status: 'completed', progress: 4_501, num_rows: 4_501, failed_imports_count: 0 });
});

const counts = async () => ({
  imports: (await api.db.selectFrom('file_imports').select('id').execute()).length,
  sessions: (await api.db.selectFrom('import_sessions').select('id').execute()).length,
  files: (await api.db.selectFrom('files').select('id').execute()).length,
  transactions: (await api.db.selectFrom('transactions').select('id').execute()).length,
  failed: (await api.db.selectFrom('failed_imports').select('id').execute()).length,
});

/** A multipart body of `megabytes` MB streamed in 64 kB chunks, never held whole. */
function streamedUpload(filename: string, megabytes: number): { payload: Readable; headers: Record<string, string> } {
  const boundary = '----streamed100mb';
  const chunk = Buffer.alloc(64 * 1024, '1,2026-01-01\n');
  async function* body() {
    yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`);
    for (let sent = 0; sent < megabytes * 1024 * 1024; sent += chunk.length) yield chunk;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return { payload: Readable.from(body()), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

t.test('bad files are refused on both upload routes with a clear error, and nothing is written', async (t) => {
  const user = await api.newUser();
  const camt = fixture('camt053-v08.xml');
  const ofx = fixture('checking-ofx2.ofx');
  const before = await counts();
  const cases: Array<[string, Buffer | string, { analyze: RegExp; import: RegExp }]> = [
    ['truncated.xml', camt.subarray(0, 900), { analyze: /not well-formed XML/, import: /must be a CSV file/ }],
    ['truncated.ofx', ofx.subarray(0, 700), { analyze: /truncated|malformed/, import: /must be a CSV file/ }],
    ['camt-named.csv', camt.subarray(0, 900), { analyze: /not well-formed XML/, import: /XML or OFX statement/ }],
    ['binary.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 1, 2, 3, 0, 0, 0, 9, 9, 9]), { analyze: /must be a CSV/, import: /must be a CSV text file/ }],
    ['random.csv', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)), { analyze: /must be a CSV/, import: /must be a CSV text file/ }],
    ['empty.csv', '', { analyze: /empty/, import: /empty/ }],
  ];
  for (const [name, content, messages] of cases) {
    for (const route of ['import', 'import/analyze'] as const) {
      const res = await upload(route, user.token, name, content);
      t.equal(res.status, 422, `${route} ${name}`);
      t.equal(res.body.success, false);
      t.match(res.body.errors?.file?.[0], route === 'import' ? messages.import : messages.analyze, `${route} ${name}: ${JSON.stringify(res.body)}`);
    }
  }
  for (const route of ['import', 'import/analyze'] as const) {
    const res = await api.request('POST', `/api/v1/${route}`, { token: user.token, ...streamedUpload('huge.csv', 100) });
    t.equal(res.status, 413, `${route}: 100 MB is over the upload limit`);
    t.match(res.body, { success: false, message: /larger than the limit/ });
  }
  t.same(await counts(), before, 'no import, session, file, transaction or failed row was written');
});

t.test('round trips for every format: analyse → confirm → upload again: every row a duplicate, skipped', async (t) => {
  const files = [...CSV_FIXTURES, 'camt053-v08.xml', 'checking-ofx2.ofx', 'creditcard.qfx'];
  for (const name of files) {
    const user = await api.newUser();
    const wallet = await fx.wallet(user.user.id, { balance: '100000' });
    const first = await analysed(user.token, name, fixture(name));
    const readable = first.suggestions.map((s: any, index: number) => ({ s, index })).filter(({ s }: any) => s.amount !== null && s.type !== null && s.date !== null);
    const statement = first.processor !== 'csv';
    const accept = (session: any) => ({
      session_id: session.id,
      accepted: readable.map(({ index }: any) => (statement ? { index } : { index, wallet_id: wallet })),
      auto_create_wallets: true,
      auto_create_parties: true,
    });
    const confirmed = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: accept(first) });
    t.equal(confirmed.body.data.created_count, readable.length, `${name}: every readable row created`);
    t.equal(confirmed.body.data.failed_count, 0, `${name}: no failure`);

    const again = await analysed(user.token, name, fixture(name));
    const flagged = readable.filter(({ index }: any) => again.suggestions[index].duplicate !== null);
    t.equal(flagged.length, readable.length, `${name}: every row flagged as a duplicate on the second upload`);
    t.ok(flagged.every(({ index }: any) => ['exact', 'near'].includes(again.suggestions[index].duplicate.match_type)), `${name}: match types exact/near`);
    const second = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: accept(again) });
    t.match(second.body.data, { created_count: 0, skipped_count: readable.length }, `${name}: the confirm skips them all`);
    t.same(await walletsOffLedger(api.db, user.user.id), [], `${name}: balances equal the ledger`);
  }
});

t.test('a batch of imported expenses that crosses a budget\'s threshold alerts it once', async (t) => {
  const user = await api.newUser();
  const res = await api.request('POST', '/api/v1/budgets', {
    token: user.token,
    body: { name: 'Everything', amount: 100, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', threshold_percent: 80, forecast_alerts_enabled: false },
  });
  t.equal(res.status, 201, JSON.stringify(res.body));
  const today = new Date().toISOString().slice(0, 10);
  const lines = ['Date,Amount,Description', ...Array.from({ length: 30 }, (_, i) => `${today},-3.00,Groceries ${i}`)];
  const row = await imported(user.token, 'card.csv', lines.join('\n'));
  t.match(row, { status: 'completed', progress: 30 });
  const alerts = await api.db.selectFrom('budget_alerts').select(['kind']).where('budget_id', '=', res.body.data.id).execute();
  t.same(alerts.map((a) => a.kind), ['threshold'], '90 of 100 spent: one threshold alert for the batch, not one per row');
});
