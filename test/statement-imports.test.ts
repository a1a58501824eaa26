// Real bank exports over HTTP: analyse → (correct the mapping) → confirm → upload again.
// CSV readings shown on the session, a mapping change and its memory, OFX/QFX/CAMT balances
// (opening balance of created wallets, credit cards, reconciliation), duplicates skipped
// unless accepted, and bad files refused at upload with nothing written.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { startApp } from './helpers/harness.js';
import { multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const fixture = (name: string) => readFileSync(new URL(`./fixtures/statements/${name}`, import.meta.url));

function upload(fileName: string, content: Buffer | string, token: string | undefined = owner.token) {
  const { payload, headers } = multipart([], [{ field: 'file', filename: fileName, contentType: 'application/octet-stream', data: Buffer.from(content) }]);
  return api.request('POST', '/api/v1/import/analyze', { token, payload, headers });
}

async function analysed(fileName: string, content: Buffer | string = fixture(fileName)) {
  const res = await upload(fileName, content);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run({ db: api.db, services: api.app.services, log: api.app.log }, { sessionId: res.body.data.id });
  return (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token: owner.token })).body.data;
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
  const expected: Record<string, number> = { 'dkb-de.csv': 3, 'banque-fr.csv': 3, 'ing-nl.csv': 3, 'paypal-de.csv': 3, 'chase-us.csv': 3, 'postfinance-ch.csv': 2, 'banco-es.csv': 2, 'banco-pt.csv': 2, 'headerless.csv': 3 };
  for (const [name, total] of Object.entries(expected)) {
    const session = await analysed(name);
    t.match(session, { status: 'ready', total_suggestions: total, processor: 'csv' }, name);
    t.ok(session.suggestions.every((s: { date: string | null; amount: number | null }) => s.date !== null && s.amount !== null), `${name}: every row has a date and an amount`);
  }
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
