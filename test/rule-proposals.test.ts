// Learned rules over HTTP: corrections of imported lines (category or party changed by
// PUT /v1/transactions/{id}) become rule proposals from the second one on; a proposal is accepted
// into a working rule or dismissed for good; only imported lines teach; another user's proposal
// is 404, no token 401. Every answer is checked against the spec by the harness.
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const stranger = await api.newUser();
const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });

let day = 1;
/** A German bank export of these lines (counterparty, description, amount) imported by a confirm; the transactions made, in order. */
async function importLines(token: string, lines: Array<[counterparty: string, description: string, amount: string]>): Promise<number[]> {
  const rows = lines.map(([counterparty, description, amount]) => `${String(day++).padStart(2, '0')}.03.2026;${description};${amount};${counterparty}`);
  const csv = ['Buchungstag;Verwendungszweck;Betrag;Name Zahlungsbeteiligter', ...rows].join('\n');
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'giro.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const uploaded = await api.request('POST', '/api/v1/import/analyze', { token, payload, headers });
  if (uploaded.status !== 201) throw new Error(JSON.stringify(uploaded.body));
  await analyzeImportJob.run(jobCtx(), { sessionId: uploaded.body.data.id });
  const accepted = lines.map((_, index) => ({ index, accept_duplicate: true }));
  const confirmed = await api.request('POST', '/api/v1/import/confirm', { token, body: { session_id: uploaded.body.data.id, accepted, auto_create_wallets: true } });
  if (confirmed.status !== 200) throw new Error(JSON.stringify(confirmed.body));
  const results = confirmed.body.data.results as Array<{ status: string; transaction_id: number; error: string | null }>;
  if (results.some((r) => r.status !== 'created')) throw new Error(JSON.stringify(results));
  return results.map((r) => r.transaction_id);
}

async function newImporter() {
  const user = await api.newUser();
  await fx.setBalance(await fx.mainWallet(user.user.id), '10000');
  return user;
}

const proposals = async (token: string) => {
  const res = await api.request('GET', '/api/v1/rules/proposals', { token });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data as Array<{ id: number; kind: string; field: string; text: string; rule: Record<string, unknown>; corrections: number; transaction_ids: number[] }>;
};
const edit = (token: string, id: number, body: Record<string, unknown>) => api.request('PUT', `/api/v1/transactions/${id}`, { token, body });
const categoriesOf = async (transactionId: number) =>
  (await api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', transactionId).execute()).map((r) => r.category_id);

t.test('two corrections of one counterparty propose a rule, one does not; accepting it files the next import', async (t) => {
  const user = await newImporter();
  const groceries = await fx.category(user.user.id);
  const [first, second, other] = await importLines(user.token, [
    ['REWE Markt GmbH', 'Kartenzahlung 1', '-12,30'],
    ['REWE MARKT GMBH', 'Kartenzahlung 2', '-40,00'],
    ['Netflix', 'Abo', '-9,99'],
  ]);
  t.equal((await edit(user.token, first, { categories: [groceries] })).status, 200);
  t.same(await proposals(user.token), [], 'one correction proposes nothing');
  t.equal((await edit(user.token, other, { categories: [groceries] })).status, 200);
  t.same(await proposals(user.token), [], 'corrections of two different counterparties propose nothing');
  t.equal((await edit(user.token, second, { categories: [groceries] })).status, 200);
  const [proposal, ...more] = await proposals(user.token);
  t.same(more, []);
  t.match(proposal, { kind: 'category', field: 'counterparty', text: 'REWE MARKT GMBH', corrections: 2 });
  t.same(proposal.transaction_ids, [second, first], 'the corrected transactions, newest correction first');
  t.same(proposal.rule.conditions, [{ field: 'counterparty', operator: 'is', value: 'REWE MARKT GMBH' }], 'the text as rules compare it: case and accents aside');
  t.same(proposal.rule.actions, [{ type: 'set_categories', category_ids: [groceries] }]);
  t.equal(await api.db.selectFrom('rules').select('id').where('user_id', '=', user.user.id).executeTakeFirst(), undefined, 'no rule is created silently');

  const accepted = await api.request('POST', `/api/v1/rules/proposals/${proposal.id}/accept`, { token: user.token, body: { name: 'REWE is groceries' } });
  t.equal(accepted.status, 201, JSON.stringify(accepted.body));
  t.match(accepted.body.data, { name: 'REWE is groceries', enabled: true, match: 'all' });
  t.same(accepted.body.data.conditions, proposal.rule.conditions, 'the rule exactly as proposed');
  t.same(accepted.body.data.actions, proposal.rule.actions);
  t.same(await proposals(user.token), [], 'an accepted proposal is no longer offered');
  t.equal((await api.request('POST', `/api/v1/rules/proposals/${proposal.id}/accept`, { token: user.token })).status, 404, 'accepting twice: 404');

  const [next] = await importLines(user.token, [['Rewe Markt GmbH', 'Kartenzahlung 3', '-7,00']]);
  t.same(await categoriesOf(next), [groceries], 'a new import of that counterparty is filed');
  const made = await api.db.selectFrom('transactions').select('metadata').where('id', '=', next).executeTakeFirstOrThrow();
  t.match(made.metadata, { rules: [{ id: accepted.body.data.id, name: 'REWE is groceries' }] }, 'by the accepted rule');
});

t.test('party corrections, a dismissed proposal stays dismissed, a rule already filing it hides it, a deleted category takes it along', async (t) => {
  const user = await newImporter();
  const spotify = (await api.request('POST', '/api/v1/parties', { token: user.token, body: { name: 'Spotify AB', type: 'business' } })).body.data.id;
  const lines = await importLines(user.token, [
    ['SPOTIFY P1234', 'Abo', '-9,99'],
    ['Spotify P1234', 'Abo', '-9,99'],
    ['spotify p1234', 'Abo', '-9,99'],
  ]);
  for (const id of lines.slice(0, 2)) t.equal((await edit(user.token, id, { party_id: spotify })).status, 200);
  const [proposal] = await proposals(user.token);
  t.match(proposal, { kind: 'party', corrections: 2, rule: { actions: [{ type: 'set_party', party_id: spotify }] } });
  const dismissed = await api.request('POST', `/api/v1/rules/proposals/${proposal.id}/dismiss`, { token: user.token });
  t.equal(dismissed.status, 200);
  t.equal(dismissed.body.data, null);
  t.equal((await edit(user.token, lines[2], { party_id: spotify })).status, 200);
  t.same(await proposals(user.token), [], 'a dismissed proposal does not come back for the same counterparty and value');
  t.equal((await api.request('POST', `/api/v1/rules/proposals/${proposal.id}/dismiss`, { token: user.token })).status, 404);

  // a rule the user writes alike ends the offer
  const rent = await fx.category(user.user.id);
  const flats = await importLines(user.token, [
    ['Hausverwaltung Nord', 'Miete', '-800,00'],
    ['Hausverwaltung Nord', 'Miete', '-800,00'],
  ]);
  for (const id of flats) await edit(user.token, id, { categories: [rent] });
  t.equal((await proposals(user.token)).length, 1);
  const rule = await api.request('POST', '/api/v1/rules', {
    token: user.token,
    body: { name: 'Rent', conditions: [{ field: 'counterparty', operator: 'starts_with', value: 'hausverwaltung' }], actions: [{ type: 'set_categories', category_ids: [rent] }] },
  });
  t.equal(rule.status, 201);
  t.same(await proposals(user.token), [], 'a rule already files that counterparty the same way');
  await api.request('DELETE', `/api/v1/rules/${rule.body.data.id}`, { token: user.token });
  t.equal((await proposals(user.token)).length, 1, 'offered again once that rule is gone');

  t.equal((await api.request('DELETE', `/api/v1/categories/${rent}`, { token: user.token })).status, 200);
  t.same(await proposals(user.token), []);
  const left = await api.db.selectFrom('rule_proposals').select('id').where('user_id', '=', user.user.id).where('category_id', '=', rent).execute();
  t.same(left, [], 'deleting the category removes its proposals');
});

t.test('only imported lines teach; bad input; another user; no token', async (t) => {
  const user = await newImporter();
  const groceries = await fx.category(user.user.id);
  const wallet = await fx.mainWallet(user.user.id);
  for (let i = 0; i < 2; i++) {
    const typed = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 3, wallet_id: wallet, description: 'REWE' } });
    t.equal((await edit(user.token, typed.body.data.id, { categories: [groceries] })).status, 200);
  }
  const kept = await api.db.selectFrom('rule_corrections').select('id').where('user_id', '=', user.user.id).execute();
  t.same(kept, [], 'a manual edit of a transaction that was not imported records nothing');
  t.same(await proposals(user.token), []);

  const lines = await importLines(user.token, [
    ['Bäckerei Süd', 'Brot', '-3,20'],
    ['Baeckerei Sued', 'Brot', '-2,80'],
  ]);
  for (const id of lines) await edit(user.token, id, { categories: [groceries] });
  const [proposal] = await proposals(user.token);
  t.equal(proposal?.corrections, 2, 'umlaut spellings are one counterparty');
  const url = (action: string, id: number | string = proposal.id) => `/api/v1/rules/proposals/${id}/${action}`;

  for (const [body, field] of [[{ name: '' }, 'name'], [{ position: 0 }, 'position'], [{ colour: 'red' }, 'colour'], [{ client_id: 'nope' }, 'client_id']] as const) {
    const res = await api.request('POST', url('accept'), { token: user.token, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field}: ${JSON.stringify(res.body.errors)}`);
  }
  for (const action of ['accept', 'dismiss']) {
    t.equal((await api.request('POST', url(action, 'abc'), { token: user.token })).status, 404, `${action}: a non-numeric id`);
    t.equal((await api.request('POST', url(action, 2_000_000_000), { token: user.token })).status, 404, `${action}: an unknown id`);
    t.equal((await api.request('POST', url(action), { token: stranger.token })).status, 404, `${action}: another user's proposal`);
    t.equal((await api.request('POST', url(action), {})).status, 401, `${action}: no token`);
  }
  t.same(await proposals(stranger.token), [], "another user's proposals are not listed");
  t.equal((await api.request('GET', '/api/v1/rules/proposals', {})).status, 401);
  t.equal((await proposals(user.token)).length, 1, 'nothing changed by the refused requests');
  t.equal(await api.db.selectFrom('rules').select('id').where('user_id', '=', user.user.id).executeTakeFirst(), undefined);
});

t.test('rows of a legacy CSV import (POST /v1/import) teach too', async (t) => {
  const user = await newImporter();
  const streaming = await fx.category(user.user.id);
  const csv = ['Date,Amount,Payee,Memo', '2026-03-02,-9.99,Netflix.com,Abo Maerz', '2026-04-02,-9.99,NETFLIX.COM,Abo April'].join('\n');
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'bank.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const uploaded = await api.request('POST', '/api/v1/import', { token: user.token, payload, headers });
  t.equal(uploaded.status, 201, JSON.stringify(uploaded.body));
  await processCsvImportJob.run(jobCtx(), { importId: uploaded.body.data.id });
  const rows = await api.db.selectFrom('transactions').select('id').where('user_id', '=', user.user.id).where('deleted_at', 'is', null).orderBy('datetime').execute();
  t.equal(rows.length, 2);
  for (const row of rows) t.equal((await edit(user.token, row.id, { categories: [streaming] })).status, 200);
  const [proposal] = await proposals(user.token);
  t.match(proposal, { kind: 'category', field: 'counterparty', text: 'NETFLIX.COM', corrections: 2, rule: { actions: [{ type: 'set_categories', category_ids: [streaming] }] } });
});
