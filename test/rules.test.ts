// Rules over HTTP: the synced record (create, replay, order, feed with tombstones), its checks
// (422 keyed by field, 404 on another user's record, the bound), and the write paths that run
// rules on the transactions they create.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { MAX_RULES_PER_USER } from '../db/rules.js';
import { confirmImportJob } from '../jobs/confirm-import.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { startApp } from './helpers/harness.js';
import { analysedSession } from './helpers/import-sessions.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

const rewe = { field: 'description', operator: 'contains', value: 'rewe' };

async function createRule(token: string, body: Record<string, unknown>) {
  return api.request('POST', '/api/v1/rules', { token, body });
}

t.test('create, show, replay, update, order and delete as a synced record', async (t) => {
  const groceries = await fx.category(owner.user.id);
  const id = clientId();
  const res = await createRule(owner.token, {
    name: 'REWE is groceries',
    client_id: id,
    conditions: [rewe, { field: 'amount', operator: 'between', amount: 1, amount_to: 250.5 }],
    actions: [{ type: 'set_categories', category_ids: [groceries] }, { type: 'set_party', party_name: 'REWE', create_party: true }],
  });
  t.equal(res.status, 201);
  t.match(res.body.data, { name: 'REWE is groceries', position: 1, enabled: true, stop_after: false, match: 'all', client_generated_id: id, deleted_at: null });
  t.same(res.body.data.conditions[1], { field: 'amount', operator: 'between', amount: 1, amount_to: 250.5 });
  t.equal(res.body.data.sync_state.syncable_type, 'rule');

  const replay = await createRule(owner.token, { name: 'other', client_id: id, conditions: [rewe], actions: [{ type: 'skip' }] });
  t.equal(replay.status, 200);
  t.equal(replay.body.data.id, res.body.data.id);
  t.equal(replay.body.data.name, 'REWE is groceries');

  const second = await createRule(owner.token, { name: 'Second', conditions: [rewe], actions: [{ type: 'add_note', note: 'n' }] });
  t.equal(second.body.data.position, 2, 'a rule without a position goes last');
  const moved = await api.request('PUT', `/api/v1/rules/${second.body.data.id}`, { token: owner.token, body: { position: 0 } });
  t.equal(moved.status, 422, 'positions start at 1');
  const first = await api.request('PUT', `/api/v1/rules/${second.body.data.id}`, { token: owner.token, body: { position: 1, enabled: false, match: 'any' } });
  t.equal(first.status, 200);
  t.match(first.body.data, { position: 1, enabled: false, match: 'any', name: 'Second' });
  t.same(first.body.data.conditions, [rewe], 'fields the body omits stay');

  const list = await api.request('GET', '/api/v1/rules', { token: owner.token });
  t.equal(list.status, 200);
  t.same(
    list.body.data.data.map((r: { id: number }) => r.id),
    [res.body.data.id, second.body.data.id],
    'ordered by position, then id',
  );

  const since = new Date(Date.now() - 60_000).toISOString();
  const deleted = await api.request('DELETE', `/api/v1/rules/${second.body.data.id}`, { token: owner.token });
  t.equal(deleted.status, 200);
  t.equal((await api.request('GET', `/api/v1/rules/${second.body.data.id}`, { token: owner.token })).status, 404);
  const feed = await api.request('GET', `/api/v1/rules?synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  const tombstone = feed.body.data.data.find((r: { id: number }) => r.id === second.body.data.id);
  t.ok(tombstone?.deleted_at, 'the deleted rule comes back as a tombstone in the feed');
  const plain = await api.request('GET', '/api/v1/rules', { token: owner.token });
  t.notOk(plain.body.data.data.some((r: { id: number }) => r.id === second.body.data.id));
  for (const rule of plain.body.data.data) await api.request('DELETE', `/api/v1/rules/${rule.id}`, { token: owner.token });
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ conditions: [rewe], actions: [{ type: 'skip' }] }, 'name'],
    [{ name: 'x', conditions: [], actions: [{ type: 'skip' }] }, 'conditions'],
    [{ name: 'x', conditions: [rewe], actions: [] }, 'actions'],
    [{ name: 'x', conditions: [{ field: 'description', operator: 'regex', value: '(unclosed' }], actions: [{ type: 'skip' }] }, 'conditions.0.value'],
    [{ name: 'x', conditions: [{ field: 'description', operator: 'regex', value: '(a)\\1' }], actions: [{ type: 'skip' }] }, 'conditions.0.value'],
    [{ name: 'x', conditions: [{ field: 'amount', operator: 'between', amount: 5, amount_to: 1 }], actions: [{ type: 'skip' }] }, 'conditions.0.amount_to'],
    [{ name: 'x', conditions: [{ field: 'colour', value: 'red' }], actions: [{ type: 'skip' }] }, 'conditions.0.field'],
    [{ name: 'x', conditions: [rewe], actions: [{ type: 'set_party' }] }, 'actions.0.party_id'],
    [{ name: 'x', conditions: [rewe], actions: [{ type: 'skip', colour: 'red' }] }, 'actions.0.colour'],
    [{ name: 'x', conditions: [rewe], actions: [{ type: 'skip' }], client_id: 'nope' }, 'client_id'],
  ];
  for (const [body, field] of cases) {
    const res = await createRule(owner.token, body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(body)}: ${JSON.stringify(res.body.errors)}`);
  }
  const rule = await createRule(owner.token, { name: 'ok', conditions: [rewe], actions: [{ type: 'skip' }] });
  const bad = await api.request('PUT', `/api/v1/rules/${rule.body.data.id}`, {
    token: owner.token,
    body: { conditions: [{ field: 'party', operator: 'regex', value: '[z-a]' }] },
  });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors['conditions.0.value']);
  t.equal((await api.request('GET', `/api/v1/rules/${rule.body.data.id}`, { token: owner.token })).body.data.conditions[0].value, 'rewe', 'unchanged');
  await api.request('DELETE', `/api/v1/rules/${rule.body.data.id}`, { token: owner.token });
  const count = await api.db.selectFrom('rules').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', owner.user.id).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
  t.equal(Number(count.n), 0, 'nothing was written by the refused requests');
});

t.test("another user's records: 404 keyed by the field; another user's rule: 404; no token: 401", async (t) => {
  const theirCategory = await fx.category(stranger.user.id);
  const theirWallet = await fx.mainWallet(stranger.user.id);
  const theirGroup = await fx.group(stranger.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ conditions: [rewe], actions: [{ type: 'set_categories', category_ids: [theirCategory] }] }, 'actions.0.category_ids'],
    [{ conditions: [{ field: 'wallet', wallet_ids: [theirWallet] }], actions: [{ type: 'skip' }] }, 'conditions.0.wallet_ids'],
    [{ conditions: [rewe], actions: [{ type: 'skip' }, { type: 'transfer_to_wallet', wallet_id: theirWallet }] }, 'actions.1.wallet_id'],
    [{ conditions: [rewe], actions: [{ type: 'set_group', group_id: theirGroup }] }, 'actions.0.group_id'],
  ];
  for (const [body, field] of cases) {
    const res = await createRule(owner.token, { name: 'x', ...body });
    t.equal(res.status, 404, field);
    t.ok(res.body.errors?.[field], `errors.${field}`);
    t.equal(res.body.data, undefined, 'nothing of the record is shown');
  }
  const mine = await createRule(owner.token, { name: 'mine', conditions: [rewe], actions: [{ type: 'skip' }] });
  for (const [method, body] of [['GET'], ['PUT', { name: 'taken' }], ['DELETE']] as const) {
    const res = await api.request(method, `/api/v1/rules/${mine.body.data.id}`, { token: stranger.token, body });
    t.equal(res.status, 404, method);
  }
  const theirs = await api.request('GET', '/api/v1/rules', { token: stranger.token });
  t.notOk(theirs.body.data.data.some((r: { id: number }) => r.id === mine.body.data.id));
  for (const [method, path] of [['GET', '/api/v1/rules'], ['POST', '/api/v1/rules'], ['GET', `/api/v1/rules/${mine.body.data.id}`], ['DELETE', `/api/v1/rules/${mine.body.data.id}`]] as const) {
    t.equal((await api.request(method, path, { body: method === 'POST' ? { name: 'x', conditions: [rewe], actions: [{ type: 'skip' }] } : undefined })).status, 401, `${method} ${path}`);
  }
  await api.request('DELETE', `/api/v1/rules/${mine.body.data.id}`, { token: owner.token });
});

t.test('a user keeps at most MAX_RULES_PER_USER live rules', async (t) => {
  const user = await api.newUser();
  const rows = Array.from({ length: MAX_RULES_PER_USER }, (_, i) => ({
    user_id: user.user.id,
    name: `r${i}`,
    position: i + 1,
    conditions: JSON.stringify([rewe]),
    actions: JSON.stringify([{ type: 'skip' }]),
  }));
  await api.db.insertInto('rules').values(rows).execute();
  const over = await createRule(user.token, { name: 'one too many', conditions: [rewe], actions: [{ type: 'skip' }] });
  t.equal(over.status, 409);
  const last = await api.db.selectFrom('rules').select('id').where('user_id', '=', user.user.id).orderBy('id', 'desc').executeTakeFirstOrThrow();
  await api.request('DELETE', `/api/v1/rules/${last.id}`, { token: user.token });
  t.equal((await createRule(user.token, { name: 'fits again', conditions: [rewe], actions: [{ type: 'skip' }] })).status, 201);
});

// ---------------------------------------------------------------- the write paths

const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });

/** A user with the rules every write path below is tested against. */
async function filedUser() {
  const user = await api.newUser();
  const groceries = await fx.category(user.user.id);
  const salary = await fx.category(user.user.id, 'income');
  const group = await fx.group(user.user.id);
  const rules = [
    { name: 'REWE', conditions: [{ field: 'description', operator: 'contains', value: 'REWE' }], actions: [{ type: 'set_categories', category_ids: [groceries] }, { type: 'set_party', party_name: 'REWE', create_party: true }, { type: 'set_description', description: 'REWE groceries' }, { type: 'add_note', note: 'filed' }] },
    { name: 'Salary', conditions: [{ field: 'type', value: 'income' }, { field: 'amount', operator: 'above', amount: 500 }], actions: [{ type: 'set_categories', category_ids: [salary] }, { type: 'set_group', group_id: group }] },
    { name: 'No fees', conditions: [{ field: 'counterparty', operator: 'regex', value: '^geb(u|ü)hr' }], actions: [{ type: 'skip' }] },
  ];
  for (const rule of rules) {
    const res = await createRule(user.token, rule);
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  }
  const wallet = await fx.mainWallet(user.user.id);
  await fx.setBalance(wallet, '10000');
  return { ...user, groceries, salary, group, wallet };
}

const categoriesOf = async (transactionId: number) =>
  (await api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', transactionId).execute()).map((r) => r.category_id);
const partyName = async (partyId: number | null) =>
  partyId === null ? null : (await api.db.selectFrom('parties').select('name').where('id', '=', partyId).executeTakeFirstOrThrow()).name;

t.test('API create: rules fill what the request leaves empty; the request wins; an edit runs no rule', async (t) => {
  const user = await filedUser();
  const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 12.3, wallet_id: user.wallet, description: 'Kartenzahlung rewe markt 1234' } });
  t.equal(res.status, 201);
  t.same(res.body.data.categories.map((c: { id: number }) => c.id), [user.groceries]);
  t.equal(res.body.data.party.name, 'REWE', 'the party named by the rule was created');
  t.equal(res.body.data.description, 'REWE groceries');
  t.match(res.body.data.metadata, { rules: [{ name: 'REWE' }], rule_notes: ['filed'] });

  const other = await fx.category(user.user.id);
  const stated = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: user.wallet, description: 'REWE', categories: [other] } });
  t.same(stated.body.data.categories.map((c: { id: number }) => c.id), [other], 'a category the request states wins');

  const salary = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'income', amount: 2500, wallet_id: user.wallet, description: 'ACME payroll' } });
  t.same(salary.body.data.categories.map((c: { id: number }) => c.id), [user.salary]);
  t.equal(salary.body.data.group_id, user.group);
  const small = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'income', amount: 20, wallet_id: user.wallet, description: 'gift' } });
  t.same(small.body.data.categories, [], 'no rule matched: nothing set');
  t.equal(small.body.data.metadata, null);

  // the compiled rules of a user are cached per process by the version of the rule set: an edit is seen at once
  const [reweRule] = (await api.request('GET', '/api/v1/rules', { token: user.token })).body.data.data;
  t.equal((await api.request('PUT', `/api/v1/rules/${reweRule.id}`, { token: user.token, body: { enabled: false } })).status, 200);
  const afterDisable = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: user.wallet, description: 'REWE' } });
  t.equal(afterDisable.body.data.description, 'REWE', 'a disabled rule does not run');
  await api.request('PUT', `/api/v1/rules/${reweRule.id}`, { token: user.token, body: { conditions: [{ field: 'description', operator: 'is', value: 'lidl' }], enabled: true } });
  const afterEdit = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: user.wallet, description: 'Lidl' } });
  t.equal(afterEdit.body.data.description, 'REWE groceries', "the rule's new condition applies");

  const edited = await api.request('PUT', `/api/v1/transactions/${res.body.data.id}`, { token: user.token, body: { description: 'REWE but edited', categories: [other] } });
  t.equal(edited.status, 200);
  t.equal(edited.body.data.description, 'REWE but edited', "a rule never rewrites the user's edit");
  t.same(edited.body.data.categories.map((c: { id: number }) => c.id), [other]);
});

t.test('legacy CSV import: rules run on each row in the batch writer; a skipped row says which rule', async (t) => {
  const user = await filedUser();
  const csv = ['Date,Amount,Payee,Memo', '2026-03-02,-45.10,REWE Markt GmbH,Kartenzahlung REWE', '2026-03-03,-2.00,Gebühr,Kontoführung', '2026-03-04,-9.99,Netflix,Abo'].join('\n');
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'bank.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const res = await api.request('POST', '/api/v1/import', { token: user.token, payload, headers });
  t.equal(res.status, 201, JSON.stringify(res.body));
  await processCsvImportJob.run(jobCtx(), { importId: res.body.data.id });
  const rows = await api.db.selectFrom('transactions').selectAll().where('user_id', '=', user.user.id).where('deleted_at', 'is', null).orderBy('datetime').execute();
  t.same(rows.map((r) => r.description), ['REWE groceries', 'Abo']);
  t.same(await categoriesOf(rows[0].id), [user.groceries]);
  t.equal(await partyName(rows[0].party_id), 'REWE Markt GmbH', "the row's own payee wins over the rule's party");
  t.match(rows[0].metadata, { rules: [{ name: 'REWE' }] });
  const failed = await api.request('GET', `/api/v1/imports/${res.body.data.id}/failed`, { token: user.token });
  t.equal(failed.body.data.data.length, 1);
  t.match(failed.body.data.data[0].reason, /rule "No fees"/);
});

t.test('statement confirm: whole session (batch) and item by item; the rules beat the guess, the review wins', async (t) => {
  const user = await filedUser();
  const csv = ['Buchungstag;Verwendungszweck;Betrag;Name Zahlungsbeteiligter', '02.03.2026;KARTENZAHLUNG REWE SAGT DANKE;-45,10;REWE Markt GmbH', '03.03.2026;Kontofuehrung;-2,00;Gebühren', '04.03.2026;Gehalt Maerz;2500,00;ACME GmbH'].join('\n');
  const analyse = () => analysedSession(api, user.token, csv);
  const whole = await analyse();
  // the review already shows what the rules will do, naming them (no write: the party is only named)
  const [rewe, fee, salary] = whole.suggestions;
  t.match(rewe, { rules: [{ name: 'REWE' }], category_id: user.groceries, description: 'REWE groceries', party_id: null });
  t.same(rewe.rule_changes, { category_ids: [user.groceries], party_id: null, party_name: 'REWE', description: 'REWE groceries', group_id: null, skipped: false, transfer_wallet_id: null, splits: null, splits_not_set: null });
  t.equal(await api.db.selectFrom('parties').select('id').where('user_id', '=', user.user.id).where('name', '=', 'REWE').executeTakeFirst(), undefined, 'reading the review created no party');
  t.match(fee, { rules: [{ name: 'No fees' }], not_importable_reason: /rule "No fees"/, rule_changes: { skipped: true } });
  t.match(salary, { rules: [{ name: 'Salary' }], category_id: user.salary, rule_changes: { category_ids: [user.salary], group_id: user.group, description: null } });
  const listed = await api.request('GET', '/api/v1/import/sessions', { token: user.token });
  t.match(listed.body.data.data.find((s: { id: number }) => s.id === whole.id).suggestions[0], { rules: [{ name: 'REWE' }], category_id: user.groceries });
  const started = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: whole.id, accept_all: true, auto_create_wallets: true } });
  t.equal(started.status, 202, JSON.stringify(started.body));
  await confirmImportJob.run(jobCtx(), { sessionId: whole.id });
  const made = await api.db.selectFrom('transactions').selectAll().where('user_id', '=', user.user.id).where('deleted_at', 'is', null).orderBy('datetime').execute();
  t.same(made.map((r) => r.description), [rewe.description, salary.description], 'the fee line was left out by its rule, as the review said');
  t.same(await categoriesOf(made[0].id), [rewe.category_id], 'filed as the review showed');
  t.equal(await partyName(made[0].party_id), rewe.rule_changes.party_name, 'no party matched the statement: the rule named one');
  t.same(await categoriesOf(made[1].id), [salary.category_id]);
  t.equal(made[1].group_id, salary.rule_changes.group_id);
  t.match(made[0].metadata, { rules: rewe.rules });
  const after = (await api.request('GET', `/api/v1/import/sessions/${whole.id}`, { token: user.token })).body.data;
  t.same(after.suggestions[0].rules, [], 'an imported line is not evaluated again');
  t.equal(after.suggestions[0].rule_changes, null);

  const single = await analyse();
  const other = await fx.category(user.user.id);
  const res = await api.request('POST', '/api/v1/import/confirm', {
    token: user.token,
    body: { session_id: single.id, accepted: [{ index: 0, accept_duplicate: true, category_id: other }, { index: 1 }, { index: 2, accept_duplicate: true }], auto_create_wallets: true },
  });
  t.equal(res.status, 200, JSON.stringify(res.body));
  const outcomes = res.body.data.results ?? res.body.data.items ?? res.body.data;
  const list = Array.isArray(outcomes) ? outcomes : Object.values(res.body.data).find(Array.isArray);
  t.match(list, [{ status: 'created', category_id: other }, { status: 'failed', error: /rule "No fees"/ }, { status: 'created' }]);
  const created = await api.db.selectFrom('transactions').select(['id', 'description']).where('id', '=', (list as Array<{ transaction_id: number }>)[0].transaction_id).executeTakeFirstOrThrow();
  t.equal(created.description, 'REWE groceries');
  t.same(await categoriesOf(created.id), [other], "the review's category wins over the rule");
});

t.test("the review shows the rules as they are when it is read; a matched party wins over a rule's", async (t) => {
  const user = await api.newUser();
  const wallet = await fx.mainWallet(user.user.id);
  await fx.setBalance(wallet, '1000');
  const csv = ['Buchungstag;Verwendungszweck;Betrag;Name Zahlungsbeteiligter', '02.03.2026;Miete Maerz;-800,00;Hausverwaltung Nord', '03.03.2026;Kaffee;-3,50;Cafe Sued'].join('\n');
  await api.request('POST', '/api/v1/parties', { token: user.token, body: { name: 'Hausverwaltung Nord', type: 'business' } });
  const session = await analysedSession(api, user.token, csv);
  const read = async () => (await api.request('GET', `/api/v1/import/sessions/${session.id}`, { token: user.token })).body.data.suggestions;
  const before = await read();
  t.match(before, [{ rules: [], rule_changes: null }, { rules: [], rule_changes: null }], 'no rules yet: nothing shown');
  const housing = await fx.category(user.user.id);
  const rent = await createRule(user.token, { name: 'Rent', match: 'any', conditions: [{ field: 'counterparty', operator: 'starts_with', value: 'hausverwaltung' }, { field: 'description', operator: 'is', value: 'kaffee' }], actions: [{ type: 'set_categories', category_ids: [housing] }, { type: 'set_party', party_name: 'Landlord', create_party: true }] });
  t.equal(rent.status, 201);
  const [matched, unmatched] = await read();
  t.equal(matched.party_id, before[0].party_id, 'the party the line matched stays');
  t.not(matched.party_id, null);
  t.match(matched, { rules: [{ id: rent.body.data.id, name: 'Rent' }], category_id: housing, rule_changes: { party_id: null, party_name: null } });
  t.match(unmatched, { rules: [{ name: 'Rent' }], category_id: housing, party_id: null, rule_changes: { party_name: 'Landlord' } });
  const other = await api.request('GET', `/api/v1/import/sessions/${session.id}`, { token: stranger.token });
  t.equal(other.status, 404);
});

t.test('recurring occurrences and assistant actions go through the rules too', async (t) => {
  const user = await filedUser();
  const template = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'expense', amount: 5, wallet_id: user.wallet, description: 'Netflix', datetime: new Date(Date.now() - 86_400_000).toISOString(), is_recurring: true, recurrence_period: 'daily' },
  });
  t.equal(template.status, 201);
  t.equal(template.body.data.metadata, null);
  await createRule(user.token, { name: 'Streaming', conditions: [{ field: 'description', operator: 'is', value: 'netflix' }], actions: [{ type: 'add_note', note: 'streaming' }] });
  t.ok((await materialiseDueOccurrences(api.db, api.app.services, new Date(Date.now() + 1.5 * 86_400_000))) >= 1);
  const occurrence = await api.db.selectFrom('transactions').selectAll().where('recurring_parent_id', '=', template.body.data.id).executeTakeFirstOrThrow();
  t.match(occurrence.metadata, { rules: [{ name: 'Streaming' }], rule_notes: ['streaming'] });

  const chat = await api.db.insertInto('chat_sessions').values({ user_id: user.user.id, title: 'x' }).returning('id').executeTakeFirstOrThrow();
  const message = await api.db.insertInto('chat_messages').values({ user_id: user.user.id, chat_session_id: chat.id, role: 'assistant', status: 'completed', content: 'x' }).returning('id').executeTakeFirstOrThrow();
  const action = await api.db
    .insertInto('agent_actions')
    .values({ user_id: user.user.id, chat_session_id: chat.id, chat_message_id: message.id, action_type: 'transaction.create', summary: 'x', idempotency_key: randomUUID(), payload: JSON.stringify({ type: 'expense', amount: 3, wallet_id: user.wallet, description: 'rewe' }) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const confirmed = await api.request('POST', `/api/v1/ai/chats/${chat.id}/actions/${action.id}/confirm`, { token: user.token, body: {} });
  t.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  const made = await api.db.selectFrom('transactions').selectAll().where('user_id', '=', user.user.id).where('description', '=', 'REWE groceries').executeTakeFirstOrThrow();
  t.same(await categoriesOf(made.id), [user.groceries]);
});

// ---------------------------------------------------------------- dry run and apply to existing

t.test('dry run and "apply to existing": counts, a page of changes, a job that is idempotent, announced and synced', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.mainWallet(user.user.id);
  await fx.setBalance(wallet, '1000');
  const groceries = await fx.category(user.user.id);
  const hook = await api.request('POST', '/api/v1/webhooks', { token: user.token, body: { url: 'https://hooks.example.com/rules', event_kinds: ['transaction.updated'] } });
  t.equal(hook.status, 201);
  const made: number[] = [];
  for (const description of ['Kartenzahlung REWE 1', 'REWE Markt', 'Lidl', 'Überweisung Miete']) {
    made.push((await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 2, wallet_id: wallet, description } })).body.data.id);
  }
  const rule = (
    await createRule(user.token, {
      name: 'REWE later',
      conditions: [{ field: 'description', operator: 'contains', value: 'rewe' }],
      actions: [{ type: 'set_categories', category_ids: [groceries] }, { type: 'set_description', description: 'REWE' }],
    })
  ).body.data;

  const preview = await api.request('GET', `/api/v1/rules/${rule.id}/preview?limit=1`, { token: user.token });
  t.equal(preview.status, 200);
  t.match(preview.body.data, { rule_id: rule.id, scanned: 4, matched: 2, changed: 2 });
  t.equal(preview.body.data.data.length, 1, 'a page of `limit` changes');
  t.same(preview.body.data.data[0].changes.category_ids, { from: [], to: [groceries] });
  t.same(preview.body.data.data[0].changes.description, { from: 'Kartenzahlung REWE 1', to: 'REWE' });
  t.equal((await api.db.selectFrom('transactions').select('description').where('id', '=', made[0]).executeTakeFirstOrThrow()).description, 'Kartenzahlung REWE 1', 'the dry run writes nothing');

  const since = new Date(Date.now() - 1000).toISOString();
  const started = await api.request('POST', `/api/v1/rules/${rule.id}/apply`, { token: user.token });
  t.equal(started.status, 202);
  t.match(started.body.data, { rule_id: rule.id, state: 'running', processed: 0, changed: 0, total: 4 });
  t.equal((await api.request('POST', `/api/v1/rules/${rule.id}/apply`, { token: user.token })).status, 409, 'one run at a time');
  const { runApplication } = await import('../jobs/apply-rule.js');
  await runApplication({ db: api.db, services: api.app.services, log: api.app.log }, started.body.data.id);
  const finished = await api.request('GET', `/api/v1/rules/${rule.id}/apply`, { token: user.token });
  t.match(finished.body.data, { state: 'done', processed: 4, changed: 2 });
  const rows = await api.db.selectFrom('transactions').select(['id', 'description', 'metadata']).where('id', 'in', made).orderBy('id').execute();
  t.same(rows.map((r) => r.description), ['REWE', 'REWE', 'Lidl', 'Überweisung Miete']);
  t.same(await categoriesOf(made[1]), [groceries]);
  t.match(rows[0].metadata, { rules: [{ id: rule.id, name: 'REWE later' }] });
  const events = await api.db.selectFrom('webhook_events').select('subject_id').where('user_id', '=', user.user.id).where('kind', '=', 'transaction.updated').execute();
  t.same(events.map((e) => Number(e.subject_id)).sort(), [made[0], made[1]].sort(), 'each change announced as transaction.updated');
  const feed = await api.request('GET', `/api/v1/transactions?synced_since=${encodeURIComponent(since)}`, { token: user.token });
  t.ok([made[0], made[1]].every((id) => feed.body.data.data.some((r: { id: number }) => r.id === id)), 'the changes are in the synced_since feed');

  const again = await api.request('POST', `/api/v1/rules/${rule.id}/apply`, { token: user.token });
  t.equal(again.status, 202);
  await runApplication({ db: api.db, services: api.app.services, log: api.app.log }, again.body.data.id);
  t.match((await api.request('GET', `/api/v1/rules/${rule.id}/apply`, { token: user.token })).body.data, { state: 'done', processed: 4, changed: 0 }, 'a second run changes nothing');
  t.match((await api.request('GET', `/api/v1/rules/${rule.id}/preview`, { token: user.token })).body.data, { matched: 2, changed: 0 });

  for (const [method, path] of [['GET', 'preview'], ['POST', 'apply'], ['GET', 'apply']] as const) {
    t.equal((await api.request(method, `/api/v1/rules/${rule.id}/${path}`, { token: stranger.token })).status, 404, `${method} ${path} of another user's rule`);
    t.equal((await api.request(method, `/api/v1/rules/${rule.id}/${path}`, {})).status, 401, `${method} ${path} without a token`);
  }
  const fresh = (await createRule(user.token, { name: 'never run', conditions: [rewe], actions: [{ type: 'skip' }] })).body.data;
  t.equal((await api.request('GET', `/api/v1/rules/${fresh.id}/apply`, { token: user.token })).status, 404, 'a rule never applied has no run');
  t.equal((await api.request('GET', `/api/v1/rules/${fresh.id}/preview?limit=0`, { token: user.token })).status, 422, 'limit is validated');
});
