// Real bank exports over HTTP: analyse → (correct the mapping) → confirm → upload again.
// CSV readings shown on the session, a mapping change and its memory, the statement's wallet
// from an own-account column or the export's source (accept_all round trips: fees, lines of
// amount 0 left out, the same wallet matched next time), OFX/QFX/CAMT balances
// (opening balance of created wallets, credit cards, reconciliation), duplicates skipped
// unless accepted, and bad files refused at upload with nothing written.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { confirmImportJob } from '../jobs/confirm-import.js';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const fixture = (name: string) => readFileSync(new URL(`./fixtures/statements/${name}`, import.meta.url));

function upload(fileName: string, content: Buffer | string, token: string | undefined = owner.token) {
  const { payload, headers } = multipart([], [{ field: 'file', filename: fileName, contentType: 'application/octet-stream', data: Buffer.from(content) }]);
  return api.request('POST', '/api/v1/import/analyze', { token, payload, headers });
}

const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };

async function analysed(fileName: string, content: Buffer | string = fixture(fileName), token = owner.token) {
  const res = await upload(fileName, content, token);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run(jobCtx, { sessionId: res.body.data.id });
  return (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token })).body.data;
}

/** `accept_all` with new wallets, run to the end by the confirm job; the session after it. */
async function confirmedWhole(sessionId: number, token: string) {
  const res = await api.request('POST', '/api/v1/import/confirm', { token, body: { session_id: sessionId, accept_all: true, auto_create_wallets: true } });
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  await confirmImportJob.run(jobCtx, { sessionId });
  return (await api.request('GET', `/api/v1/import/sessions/${sessionId}`, { token })).body.data;
}

const confirmAll = (session: { id: number; suggestions: unknown[] }, extra: Record<string, unknown> = {}) =>
  api.request('POST', '/api/v1/import/confirm', {
    token: owner.token,
    body: { session_id: session.id, accepted: session.suggestions.map((_, index) => ({ index })), auto_create_wallets: true, ...extra },
  });

const counts = async () => ({
  sessions: (await api.db.selectFrom('import_sessions').select('id').execute()).length,
  transactions: (await api.db.selectFrom('transactions').select('id').execute()).length,
  files: (await api.db.selectFrom('files').select('id').execute()).length,
});

t.test('Sparkasse CSV: read, confirmed into a new wallet, then uploaded again: every row a duplicate, skipped unless accepted', async (t) => {
  const session = await analysed('sparkasse-de.csv');
  t.match(session, { status: 'ready', total_suggestions: 3, csv_reading: { encoding: 'windows-1252', delimiter: ';', date_format: 'DD.MM.YY', decimal_separator: ',' }, statement_balances: [] });
  t.match(session.suggestions[0], { date: '2026-03-02', type: 'expense', amount: 89.37, currency: 'EUR', wallet_name: 'DE89370400440532013000', party_name: 'Stadtwerke München' });
  const first = await confirmAll(session);
  t.match(first.body.data, { created_count: 3, failed_count: 0, skipped_count: 0 }, 'no "below zero" for rows the bank booked');

  const again = await analysed('sparkasse-de.csv');
  t.equal(again.duplicates_found, 3);
  t.ok(again.suggestions.every((s: { duplicate: { match_type: string } | null }) => s.duplicate?.match_type === 'exact'));
  const before = await counts();
  const skipped = await confirmAll(again);
  t.match(skipped.body.data, { created_count: 0, skipped_count: 3 });
  t.match(skipped.body.data.results[0], { status: 'skipped_duplicate', transaction_id: first.body.data.results[0].transaction_id });
  t.equal((await counts()).transactions, before.transactions, 'nothing imported twice');
  const accepted = await api.request('POST', '/api/v1/import/confirm', { token: owner.token, body: { session_id: again.id, accepted: [{ index: 1, accept_duplicate: true }], auto_create_wallets: true } });
  t.match(accepted.body.data, { created_count: 1, skipped_count: 0 }, 'a row accepted explicitly is imported');
});

t.test('every CSV fixture is read with its rows (none from preambles or trailers)', async (t) => {
  const expected: Record<string, number> = { 'commerzbank-de.csv': 5, 'vr-bank-de.csv': 4, 'credit-mutuel-fr.csv': 4, 'paypal-en.csv': 3, 'dkb-de.csv': 3, 'banque-fr.csv': 3, 'ing-nl.csv': 3, 'ing-de.csv': 4, 'paypal-de.csv': 3, 'chase-us.csv': 3, 'postfinance-ch.csv': 2, 'banco-es.csv': 2, 'banco-pt.csv': 2, 'headerless.csv': 3, 'n26-en.csv': 4 };
  for (const [name, total] of Object.entries(expected)) {
    const session = await analysed(name);
    t.match(session, { status: 'ready', total_suggestions: total, processor: 'csv' }, name);
    t.ok(session.suggestions.every((s: { date: string | null; amount: number | null }) => s.date !== null && s.amount !== null), `${name}: every row has a date and an amount`);
  }
});

type Suggestion = { index: number; amount: number; type: string | null; fee: number | null; currency: string | null; wallet_name: string | null; wallet_id: number | null; duplicate: object | null; not_importable_reason: string | null };

t.test('the holder\'s account column or the export\'s source names the wallet: accept_all imports every row but the lines of amount 0, and the next upload matches the same wallet, every row a duplicate', async (t) => {
  const cases = [
    // German headers: "IBAN Kontoinhaber" (UTF-8 with BOM), "IBAN Auftragskonto" beside "IBAN Zahlungsbeteiligter" (Windows-1252)
    { file: 'commerzbank-de.csv', wallets: { EUR: 'DE27100777770209299700' }, notices: [/notice with amount 0/], fees: [] },
    { file: 'vr-bank-de.csv', wallets: { EUR: 'DE75512108001245126199' }, notices: [/closing notice/], fees: [] },
    // ING (Germany): the pension's line has one field fewer than the header; read from the right, it confirms like the others
    { file: 'ing-de.csv', wallets: { EUR: 'DE89500105175407324931' }, notices: [], fees: [] },
    // French: the account number in "Compte", after a preamble; no currency column (the user's default currency, USD)
    { file: 'credit-mutuel-fr.csv', wallets: { USD: '10278 06010 00020512345 17' }, notices: [/closing notice/], fees: [] },
    // PayPal names no account: its wallets are named after it, one per currency; Gebühr/Fee become the rows' fees
    { file: 'paypal-de.csv', wallets: { EUR: 'PayPal', USD: 'PayPal' }, notices: [], fees: [15.03] },
    { file: 'paypal-en.csv', wallets: { USD: 'PayPal' }, notices: [], fees: [35.1] },
  ];
  for (const { file, wallets, notices, fees } of cases) {
    const user = await api.newUser();
    const session = await analysed(file, fixture(file), user.token);
    const suggestions: Suggestion[] = session.suggestions;
    const zeros = suggestions.filter((s) => s.not_importable_reason !== null);
    t.same(new Set(suggestions.map((s) => s.wallet_name)), new Set(Object.values(wallets)), `${file}: every row names the statement's wallet`);
    t.equal(session.not_importable_count, notices.length, `${file}: lines of amount 0 counted apart`);
    t.match(zeros, notices.map((reason) => ({ amount: 0, type: null, not_importable_reason: reason })), `${file}: each with its reason`);
    t.same(suggestions.flatMap((s) => (s.fee === null ? [] : [s.fee])), fees, `${file}: fees from their own column`);

    const done = await confirmedWhole(session.id, user.token);
    const importable = suggestions.length - zeros.length;
    t.match(done.metadata.confirm, { state: 'done', created_count: importable, failed_count: 0, skipped_count: 0, not_importable_count: zeros.length }, `${file}: nothing fails`);
    t.ok(done.suggestions.filter((s: { not_importable_reason: string | null }) => s.not_importable_reason).every((s: { status: string }) => s.status === 'pending'), `${file}: lines of amount 0 stay to be seen`);
    const made = await api.db.selectFrom('wallets').select(['id', 'name', 'currency']).where('user_id', '=', user.user.id).where('name', '!=', 'Main Wallet').orderBy('id').execute();
    t.same(Object.fromEntries(made.map((w) => [w.currency, w.name])), wallets, `${file}: one wallet per account and currency`);
    const stored = await api.db.selectFrom('transactions').select(['wallet_id', 'type', 'amount', 'description']).where('user_id', '=', user.user.id).orderBy('id').execute();
    t.equal(stored.length, importable + fees.length, `${file}: a transaction per row and per fee`);
    t.same(stored.filter((tx) => tx.description === 'Transaction fee').map((tx) => Number(tx.amount)), fees, `${file}: each fee an expense of its own`);
    t.ok(stored.every((tx) => made.some((w) => w.id === tx.wallet_id)), `${file}: all in the statement's wallets`);
    t.same(await walletsOffLedger(api.db, user.user.id), [], `${file}: balances equal the ledger`);

    const again = await analysed(file, fixture(file), user.token);
    const rows: Suggestion[] = again.suggestions.filter((s: Suggestion) => s.not_importable_reason === null);
    t.ok(rows.every((s) => s.duplicate !== null), `${file}: every row a duplicate the second time`);
    t.ok(rows.every((s) => s.wallet_id === made.find((w) => w.currency === s.currency || Object.keys(wallets).length === 1)?.id), `${file}: the same wallet matched`);
    const second = await confirmedWhole(again.id, user.token);
    t.match(second.metadata.confirm, { created_count: 0, skipped_count: importable, failed_count: 0 });
    t.equal((await api.db.selectFrom('wallets').select('id').where('user_id', '=', user.user.id).execute()).length, made.length + 1, `${file}: no second wallet`);
  }
});

t.test('a counterparty\'s account column never names the wallet: an export naming none is the file\'s source', async (t) => {
  // N26's "Account number" is the payee's: it varies, so it is no own account
  const n26 = ['"Date","Payee","Account number","Transaction type","Payment reference","Amount (EUR)"', '"2026-03-02","Lidl","DE44500105175407324931","MasterCard Payment","","-23.10"', '"2026-03-04","Tom Baker","DE02120300000000202051","Credit Transfer","Rent share","400.00"'].join('\n');
  const session = await analysed('n26_2026-03-31.csv', n26);
  t.equal(session.csv_reading.mapping.wallet, null);
  t.same(session.suggestions.map((s: Suggestion) => s.wallet_name), ['n26', 'n26'], 'named after the file, its date left out');
});

t.test('the column mapping can be corrected; the confirmed mapping is used for the next file with that header', async (t) => {
  const session = await analysed('ing-nl.csv');
  t.match(session.csv_reading, { mapping: { description: 8, marker: 5 }, columns: ['Datum', 'Naam / Omschrijving', 'Rekening', 'Tegenrekening', 'Code', 'Af Bij', 'Bedrag (EUR)', 'Mutatiesoort', 'Mededelingen'] });
  const path = `/api/v1/import/sessions/${session.id}/mapping`;
  const changed = await api.request('PUT', path, { token: owner.token, body: { mapping: { description: 7 } } });
  t.equal(changed.status, 200);
  t.equal(changed.body.message, 'Column mapping updated.');
  t.equal(changed.body.data.suggestions[0].description, 'Betaalautomaat');
  t.equal(changed.body.data.csv_reading.mapping.description, 7);

  const beyond = await api.request('PUT', path, { token: owner.token, body: { mapping: { amount: 40 } } });
  t.equal(beyond.status, 422);
  t.ok(beyond.body.errors['mapping.amount']);
  const noDate = await api.request('PUT', path, { token: owner.token, body: { mapping: { date: null } } });
  t.equal(noDate.status, 422);
  t.ok(noDate.body.errors.mapping);
  t.equal((await api.request('PUT', path, { token: owner.token, body: { date_format: 'QQ' } })).status, 422);
  t.equal((await api.request('PUT', path, { token: stranger.token, body: { mapping: { description: 7 } } })).status, 404);
  t.equal((await api.request('PUT', path, { body: { mapping: { description: 7 } } })).status, 401);

  t.equal((await confirmAll(changed.body.data)).body.data.created_count, 3);
  t.equal((await api.request('PUT', path, { token: owner.token, body: { mapping: { description: 8 } } })).status, 409, 'imported rows: no re-read');
  const next = await analysed('ing-nl.csv');
  t.equal(next.csv_reading.mapping.description, 7, 'the confirmed mapping is remembered for this header');
  t.equal(next.suggestions[0].description, 'Betaalautomaat');

  const ofx = await analysed('creditcard.qfx');
  t.equal((await api.request('PUT', `/api/v1/import/sessions/${ofx.id}/mapping`, { token: owner.token, body: {} })).status, 409, 'not a CSV session');
});

t.test('QFX credit card: CDATA read, a credit-card wallet from the statement balance, reconciled after confirm', async (t) => {
  const session = await analysed('creditcard.qfx');
  t.match(session.suggestions[0], { party_name: 'AMAZON.COM*AB12 & CO', description: 'Books <paperback>', amount: 54.2, type: 'expense' });
  t.match(session.statement_balances, [{ account: '4111111111111111', kind: 'credit_card', opening_balance: -300, closing_balance: -324.2, wallet_id: null }]);
  const res = await confirmAll(session);
  t.match(res.body.data, { created_count: 3, failed_count: 0 });
  const wallet = await api.db.selectFrom('wallets').selectAll().where('id', '=', res.body.data.results[0].wallet_id).executeTakeFirstOrThrow();
  t.match(wallet, { type: 'credit_card', opening_balance: '-300.0000', balance: '-324.2000' });
  t.match(res.body.data.session.statement_balances, [{ wallet_id: wallet.id, wallet_balance: -324.2, difference: 0 }]);
});

t.test('CAMT.053 v08: two statements, a reversal credited, balances below zero never fail the confirm', async (t) => {
  const session = await analysed('camt053-v08.xml');
  t.equal(session.total_suggestions, 3);
  t.match(session.suggestions[1], { type: 'income', amount: 25, description: 'Reversal: Rueckbuchung Lastschrift', wallet_name: 'CH9300762011623852957' });
  t.match(session.suggestions[0], { party_name: 'Swisscom AG', type: 'expense' });
  t.equal(session.suggestions[2].wallet_name, 'CH5604835012345678009');
  t.match(session.statement_balances, [
    { account: 'CH9300762011623852957', opening_balance: 20, closing_balance: -15 },
    { account: 'CH5604835012345678009', opening_balance: 500, closing_balance: 480 },
  ]);
  const res = await confirmAll(session);
  t.match(res.body.data, { created_count: 3, failed_count: 0 });
  t.match(res.body.data.session.statement_balances, [{ wallet_balance: -15, difference: 0 }, { wallet_balance: 480, difference: 0 }]);
});

t.test('OFX 2.x checking: a closing balance that the wallet does not reach is reported', async (t) => {
  const session = await analysed('checking-ofx2.ofx');
  t.match(session.statement_balances, [{ kind: 'bank', opening_balance: 150, closing_balance: 45 }]);
  const res = await api.request('POST', '/api/v1/import/confirm', { token: owner.token, body: { session_id: session.id, accepted: [{ index: 0 }], auto_create_wallets: true } });
  t.match(res.body.data.session.statement_balances, [{ wallet_balance: 75, closing_balance: 45, difference: 30 }], 'one row left out: 30 apart');
});

t.test('bad files are refused at upload with a clear error, and nothing is written', async (t) => {
  const before = await counts();
  const cases: Array<[string, Buffer | string, RegExp]> = [
    ['truncated.xml', fixture('camt053-v08.xml').subarray(0, 900), /not well-formed XML/],
    ['binary.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 1, 2, 3, 0, 0, 0, 9, 9, 9]), /must be a CSV/],
    ['empty.csv', '', /empty/],
    ['note.txt', 'Remember to call the bank about the card.\nAnd buy milk.\n', /date and an amount/],
    ['truncated.ofx', readFileSync(new URL('./fixtures/statements/checking-ofx2.ofx', import.meta.url), 'utf8').slice(0, 700), /truncated|malformed/],
  ];
  for (const [name, content, message] of cases) {
    const res = await upload(name, content);
    t.equal(res.status, 422, name);
    t.match(res.body.errors?.file?.[0], message, name);
  }
  const huge = await upload('huge.csv', Buffer.alloc(api.app.services.config.uploadLimitBytes + 1024, 'a'));
  t.equal(huge.status, 413, 'over the upload limit');
  t.same(await counts(), before, 'no session, file or transaction was written');
});
