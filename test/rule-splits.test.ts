// Rules that split (issue 44, `set_splits`): the action's checks (422 keyed by field, 404 on
// another user's category or party, nothing written), and its lines on every path rules run
// on: the API's create, the legacy CSV import's batch writer, the statement confirm (whole
// session and item by item, the review showing the lines first), recurring occurrences. What
// a write states (categories, lines) wins; fixed amounts that do not fit leave the line unsplit
// with the reason in its metadata.
import t from 'tap';
import { confirmImportJob } from '../jobs/confirm-import.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { startApp } from './helpers/harness.js';
import { analysedSession } from './helpers/import-sessions.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);
const stranger = await api.newUser();
const theirCategory = await fx.category(stranger.user.id);
const theirParty = await fx.party(stranger.user.id);
const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });

const createRule = (token: string | undefined, body: Record<string, unknown>) => api.request('POST', '/api/v1/rules', { token, body });
const lines = (id: number) =>
  api.db.selectFrom('transaction_splits').select(['amount', 'category_id', 'party_id']).where('transaction_id', '=', id).orderBy('position').execute().then((rows) => rows.map((r) => [String(r.amount), r.category_id, r.party_id]));
const categoriesOf = (id: number) => api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', id).orderBy('category_id').execute().then((rows) => rows.map((r) => r.category_id));
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

/** A user with a percentage rule (receipts: 60/40) and a fixed-amount one (payroll: 200 pension, the rest salary). */
async function splittingUser() {
  const user = await api.newUser();
  const household = await fx.category(user.user.id);
  const groceries = await fx.category(user.user.id);
  const pension = await fx.category(user.user.id, 'income');
  const salary = await fx.category(user.user.id, 'income');
  const shop = await fx.party(user.user.id);
  const rules = [
    {
      name: 'Receipts',
      conditions: [{ field: 'description', operator: 'contains', value: 'supermarket' }],
      actions: [{ type: 'set_splits', splits: [{ percent: 60, category_id: household, description: 'Household' }, { percent: 40, category_id: groceries, party_id: shop }] }],
    },
    {
      name: 'Payroll',
      conditions: [{ field: 'description', operator: 'contains', value: 'payroll' }],
      actions: [{ type: 'set_splits', splits: [{ amount: 200, category_id: pension }, { category_id: salary }] }],
    },
  ];
  for (const rule of rules) {
    const res = await createRule(user.token, rule);
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  }
  const wallet = await fx.mainWallet(user.user.id);
  await fx.setBalance(wallet, '10000');
  return { ...user, household, groceries, pension, salary, shop, wallet };
}

t.test('the action: checks keyed by field, 404 on another user\'s records, nothing written', async (t) => {
  const user = await api.newUser();
  const mine = await fx.category(user.user.id);
  const other = await fx.category(user.user.id);
  const rule = (splits: unknown, more: unknown[] = []) => ({ name: 'Split', conditions: [{ field: 'description', operator: 'contains', value: 'x' }], actions: [{ type: 'set_splits', splits }, ...more] });
  const bad: Array<[string, Record<string, unknown>, string, number]> = [
    ['percentages not adding up to 100', rule([{ percent: 60, category_id: mine }, { percent: 30 }]), 'actions.0.splits', 422],
    ['percent and amount mixed', rule([{ percent: 60 }, { amount: 40 }]), 'actions.0.splits.1.amount', 422],
    ['a percentage line without a percent', rule([{ percent: 60 }, { category_id: mine }]), 'actions.0.splits.1.percent', 422],
    ['an amount line other than the last without an amount', rule([{ category_id: mine }, { amount: 40 }]), 'actions.0.splits.0.amount', 422],
    ['a percent of 100', rule([{ percent: 100 }, { percent: 0.0001 }]), 'actions.0.splits.0.percent', 422],
    ['five decimals', rule([{ percent: 33.33333 }, { percent: 66.66667 }]), 'actions.0.splits.0.percent', 422],
    ['a negative amount', rule([{ amount: -5 }, {}]), 'actions.0.splits.0.amount', 422],
    ['one line', rule([{ percent: 50 }]), 'actions.0.splits', 422],
    ['no lines', { ...rule(undefined), actions: [{ type: 'set_splits' }] }, 'actions.0.splits', 422],
    ['with set_categories', rule([{ percent: 50 }, { percent: 50 }], [{ type: 'set_categories', category_ids: [other] }]), 'actions.0.type', 422],
    ["another user's category", rule([{ percent: 50, category_id: mine }, { percent: 50, category_id: theirCategory }]), 'actions.0.splits.1.category_id', 404],
    ["another user's party", rule([{ percent: 50, party_id: theirParty }, { percent: 50 }]), 'actions.0.splits.0.party_id', 404],
  ];
  for (const [what, body, field, status] of bad) {
    const res = await createRule(user.token, body);
    t.equal(res.status, status, what);
    t.ok(res.body.errors?.[field], `${what}: keyed ${field} (${JSON.stringify(res.body.errors)})`);
  }
  t.equal((await api.db.selectFrom('rules').select('id').where('user_id', '=', user.user.id).execute()).length, 0, 'no rule written');

  const made = await createRule(user.token, rule([{ percent: 33.3333, category_id: mine }, { percent: 66.6667, category_id: other, description: 'rest' }]));
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.same(made.body.data.actions[0].splits, [{ percent: 33.3333, category_id: mine }, { percent: 66.6667, category_id: other, description: 'rest' }]);
  const changed = await api.request('PUT', `/api/v1/rules/${made.body.data.id}`, { token: user.token, body: { actions: [{ type: 'set_splits', splits: [{ amount: 10 }, { amount: 5, category_id: theirCategory }] }] } });
  t.equal(changed.status, 404, 'an update checks the lines too');
  t.ok(changed.body.errors['actions.0.splits.1.category_id']);
  t.equal((await createRule(undefined, rule([{ percent: 50 }, { percent: 50 }]))).status, 401, 'no token');
});

t.test('API create: percentages with the remainder on the last line; fixed amounts, the rest; what the request states wins', async (t) => {
  const user = await splittingUser();
  const post = (body: Record<string, unknown>) => api.request('POST', '/api/v1/transactions', { token: user.token, body: { wallet_id: user.wallet, datetime: '2026-03-10T10:00:00Z', ...body } });
  const receipt = await post({ type: 'expense', amount: 10.01, description: 'Supermarket' });
  t.equal(receipt.status, 201, JSON.stringify(receipt.body));
  t.same(await lines(receipt.body.data.id), [['6.0060', user.household, null], ['4.0040', user.groceries, user.shop]]);
  t.same(receipt.body.data.splits.map((s: any) => [s.amount, s.category_id, s.description]), [[6.006, user.household, 'Household'], [4.004, user.groceries, null]]);
  t.same(receipt.body.data.categories.map((c: { id: number }) => c.id), [user.household, user.groceries]);
  t.match(receipt.body.data.metadata, { rules: [{ name: 'Receipts' }] });
  const odd = await post({ type: 'expense', amount: 0.0003, description: 'Supermarket' });
  t.same(await lines(odd.body.data.id), [['0.0002', user.household, null], ['0.0001', user.groceries, user.shop]], 'rounded half away from zero, the last line takes the rest');

  const pay = await post({ type: 'income', amount: 2500, description: 'ACME payroll' });
  t.same(await lines(pay.body.data.id), [['200.0000', user.pension, null], ['2300.0000', user.salary, null]]);
  const small = await post({ type: 'income', amount: 150, description: 'ACME payroll' });
  t.same(await lines(small.body.data.id), [], 'fixed amounts over the amount: not split');
  t.match(small.body.data.metadata, { rules: [{ name: 'Payroll' }], splits_not_set: /fixed amounts \(200\) leave nothing of the amount 150/ });
  const exact = await post({ type: 'income', amount: 200, description: 'payroll' });
  t.same(await lines(exact.body.data.id), [], 'nothing left for the last line: not split');

  const stated = await post({ type: 'expense', amount: 10, description: 'Supermarket', categories: [user.groceries] });
  t.same(await lines(stated.body.data.id), [], 'categories the request states win');
  t.same(await categoriesOf(stated.body.data.id), [user.groceries]);
  const own = await post({ type: 'expense', amount: 10, description: 'Supermarket', splits: [{ amount: 7 }, { amount: 3 }] });
  t.same(await lines(own.body.data.id), [['7.0000', null, null], ['3.0000', null, null]], 'lines the request states win');
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});

t.test('legacy CSV import: the batch writer splits the rows a rule matches', async (t) => {
  const user = await splittingUser();
  const csv = ['Date,Amount,Payee,Memo', '2026-03-02,-45.10,Supermarket Inc,Supermarket 1234', '2026-03-03,2500,ACME,ACME payroll', '2026-03-04,100,ACME,ACME payroll bonus', '2026-03-05,-9.99,Netflix,Abo'].join('\n');
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'bank.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const res = await api.request('POST', '/api/v1/import', { token: user.token, payload, headers });
  t.equal(res.status, 201, JSON.stringify(res.body));
  await processCsvImportJob.run(jobCtx(), { importId: res.body.data.id });
  const rows = await api.db.selectFrom('transactions').select(['id', 'metadata']).where('user_id', '=', user.user.id).where('deleted_at', 'is', null).orderBy('datetime').execute();
  t.equal(rows.length, 4);
  t.same(await lines(rows[0].id), [['27.0600', user.household, null], ['18.0400', user.groceries, user.shop]]);
  t.same(await categoriesOf(rows[0].id), sorted([user.household, user.groceries]));
  t.same(await lines(rows[1].id), [['200.0000', user.pension, null], ['2300.0000', user.salary, null]]);
  t.same(await lines(rows[2].id), []);
  t.match(rows[2].metadata, { splits_not_set: /leave nothing/ });
  t.same(await lines(rows[3].id), []);
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});

t.test('statement confirm: the review shows the lines; whole session and item by item write them; the review wins', async (t) => {
  const user = await splittingUser();
  const csv = ['Buchungstag;Verwendungszweck;Betrag', '02.03.2026;SUPERMARKET SAGT DANKE;-45,10', '04.03.2026;ACME Payroll;2500,00', '05.03.2026;ACME payroll refund;50,00'].join('\n');
  const analyse = () => analysedSession(api, user.token, csv);
  const whole = await analyse();
  const [receipt, pay, refund] = whole.suggestions;
  t.match(receipt, { rules: [{ name: 'Receipts' }], category_id: user.household });
  t.same(receipt.rule_changes.splits, [
    { amount: 27.06, category_id: user.household, party_id: null, description: 'Household' },
    { amount: 18.04, category_id: user.groceries, party_id: user.shop, description: null },
  ]);
  t.same(receipt.rule_changes.category_ids, [user.household, user.groceries]);
  t.match(pay.rule_changes, { splits: [{ amount: 200, category_id: user.pension }, { amount: 2300, category_id: user.salary }], splits_not_set: null });
  t.match(refund.rule_changes, { splits: null, splits_not_set: /leave nothing of the amount 50/ });

  const started = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: whole.id, accept_all: true, auto_create_wallets: true } });
  t.equal(started.status, 202, JSON.stringify(started.body));
  await confirmImportJob.run(jobCtx(), { sessionId: whole.id });
  const made = await api.db.selectFrom('import_suggestions').select(['transaction_id']).where('import_session_id', '=', whole.id).orderBy('suggestion_index').execute();
  t.same(await lines(made[0].transaction_id!), [['27.0600', user.household, null], ['18.0400', user.groceries, user.shop]], 'as the review showed');
  t.same(await lines(made[1].transaction_id!), [['200.0000', user.pension, null], ['2300.0000', user.salary, null]]);
  t.same(await lines(made[2].transaction_id!), []);

  const single = await analyse();
  const res = await api.request('POST', '/api/v1/import/confirm', {
    token: user.token,
    body: {
      session_id: single.id,
      auto_create_wallets: true,
      accepted: [
        { index: 0, accept_duplicate: true },
        { index: 1, accept_duplicate: true, category_id: user.salary },
        { index: 2, accept_duplicate: true, splits: [{ amount: 30, category_id: user.salary }, { amount: 20 }] },
      ],
    },
  });
  t.equal(res.status, 200, JSON.stringify(res.body));
  const [a, b, c] = res.body.data.results;
  t.same(await lines(a.transaction_id), [['27.0600', user.household, null], ['18.0400', user.groceries, user.shop]], 'item by item: the rule splits');
  t.same(await lines(b.transaction_id), [], "the review's category wins over the rule's lines");
  t.same(await categoriesOf(b.transaction_id), [user.salary]);
  t.same(await lines(c.transaction_id), [['30.0000', user.salary, null], ['20.0000', null, null]], "the review's lines win");
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});

t.test('recurring: occurrences keep what their template states (the rule split it at create, or it states a category)', async (t) => {
  const user = await splittingUser();
  const template = (extra: Record<string, unknown>) =>
    api.request('POST', '/api/v1/transactions', {
      token: user.token,
      body: { type: 'expense', amount: 50, wallet_id: user.wallet, datetime: '2026-03-01T09:00:00Z', description: 'Weekly supermarket', is_recurring: true, recurrence_period: 'daily', ...extra },
    });
  const split = await template({});
  t.same(await lines(split.body.data.id), [['30.0000', user.household, null], ['20.0000', user.groceries, user.shop]], 'the rule splits the template');
  const stated = await template({ categories: [user.groceries] });
  t.same(await lines(stated.body.data.id), [], 'a template that states its category is not split');
  t.ok((await materialiseDueOccurrences(api.db, api.app.services, new Date('2026-03-18T12:00:00Z'))) >= 2);
  const occurrences = (parent: number) => api.db.selectFrom('transactions').select('id').where('recurring_parent_id', '=', parent).execute();
  const ofSplit = await occurrences(split.body.data.id);
  const ofStated = await occurrences(stated.body.data.id);
  t.ok(ofSplit.length >= 1 && ofStated.length >= 1);
  for (const { id } of ofSplit) t.same(await lines(id), [['30.0000', user.household, null], ['20.0000', user.groceries, user.shop]], `occurrence ${id}`);
  for (const { id } of ofStated) {
    t.same(await lines(id), [], `occurrence ${id}: its category, no lines`);
    t.same(await categoriesOf(id), [user.groceries]);
  }
});

t.test('dry run and "apply to existing": the lines a rule gives existing transactions, idempotent; set_categories leaves a split one alone', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.mainWallet(user.user.id);
  await fx.setBalance(wallet, '1000');
  const household = await fx.category(user.user.id);
  const groceries = await fx.category(user.user.id);
  const post = (body: Record<string, unknown>) => api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', wallet_id: wallet, ...body } }).then((res) => res.body.data.id as number);
  const plain = await post({ amount: 10, description: 'Supermarket 1' });
  const already = await post({ amount: 20, description: 'Supermarket 2', splits: [{ amount: 10, category_id: household }, { amount: 10, category_id: groceries }] });
  const other = await post({ amount: 5, description: 'Bakery' });
  const splitRule = (await createRule(user.token, { name: 'Receipts later', conditions: [{ field: 'description', operator: 'contains', value: 'supermarket' }], actions: [{ type: 'set_splits', splits: [{ percent: 60, category_id: household }, { percent: 40, category_id: groceries }] }] })).body.data;

  const preview = await api.request('GET', `/api/v1/rules/${splitRule.id}/preview`, { token: user.token });
  t.equal(preview.status, 200, JSON.stringify(preview.body));
  t.match(preview.body.data, { scanned: 3, matched: 2, changed: 2 });
  t.same(preview.body.data.data[0].changes.splits, {
    from: [],
    to: [
      { amount: 6, category_id: household, party_id: null, description: null },
      { amount: 4, category_id: groceries, party_id: null, description: null },
    ],
  });
  t.same(preview.body.data.data[0].changes.category_ids, { from: [], to: sorted([household, groceries]) });
  t.same(preview.body.data.data[1].changes.splits.to.map((l: { amount: number }) => l.amount), [12, 8], 'a split transaction gets the rule\'s shares');
  t.same(await lines(plain), [], 'the dry run writes nothing');

  const { runApplication } = await import('../jobs/apply-rule.js');
  const run = async (ruleId: number) => {
    const started = await api.request('POST', `/api/v1/rules/${ruleId}/apply`, { token: user.token });
    t.equal(started.status, 202);
    await runApplication(jobCtx(), started.body.data.id);
    return (await api.request('GET', `/api/v1/rules/${ruleId}/apply`, { token: user.token })).body.data;
  };
  t.match(await run(splitRule.id), { state: 'done', processed: 3, changed: 2 });
  t.same(await lines(plain), [['6.0000', household, null], ['4.0000', groceries, null]]);
  t.same(await lines(already), [['12.0000', household, null], ['8.0000', groceries, null]]);
  t.same(await categoriesOf(plain), sorted([household, groceries]));
  t.same(await lines(other), []);
  const shown = await api.request('GET', `/api/v1/transactions/${plain}`, { token: user.token });
  t.same(shown.body.data.splits.map((s: any) => [s.amount, s.category_id]), [[6, household], [4, groceries]]);
  t.match(await run(splitRule.id), { changed: 0 }, 'a second run changes nothing');

  const categoriesRule = (await createRule(user.token, { name: 'All groceries', conditions: [{ field: 'description', operator: 'contains', value: 'supermarket' }], actions: [{ type: 'set_categories', category_ids: [groceries] }] })).body.data;
  const dry = await api.request('GET', `/api/v1/rules/${categoriesRule.id}/preview`, { token: user.token });
  t.match(dry.body.data, { matched: 2, changed: 2 });
  t.notOk(dry.body.data.data.some((change: any) => change.changes.category_ids), "a split transaction's categories are its lines'");
  await run(categoriesRule.id);
  t.same(await categoriesOf(plain), sorted([household, groceries]));
  t.same(await lines(plain), [['6.0000', household, null], ['4.0000', groceries, null]]);
  t.same(await walletsOffLedger(api.db, user.user.id), []);
});
