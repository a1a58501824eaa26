// Split lines given at an import session's confirm (issue 44): a small confirm and a whole
// confirm (`accept_all`, its split-only items written by the batch writer) create the lines;
// a rule's transfer does not take a split line; bad lines are 422 keyed by field with nothing
// imported; another user's session 404, no token 401.
import t from 'tap';
import { runConfirm } from '../jobs/confirm-import.js';
import { startApp } from './helpers/harness.js';
import { analysedSession } from './helpers/import-sessions.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const jobCtx = { db: api.db, services: api.app.services, log: api.app.log };

const wallet = await fx.mainWallet(owner.user.id);
await fx.setBalance(wallet, '1000');
const groceries = await fx.category(owner.user.id, 'expense');
const household = await fx.category(owner.user.id, 'expense');
const shop = await fx.party(owner.user.id);
const theirCategory = await fx.category(stranger.user.id, 'expense');

const CSV = [
  'Date,Description,Amount,Currency,Account',
  '2026-03-01,Supermarket,-100.00,USD,Main Wallet',
  '2026-03-02,Chemist,-30.00,USD,Main Wallet',
  '2026-03-03,Bakery,-12.00,USD,Main Wallet',
  '2026-03-04,Market,-50.00,USD,Main Wallet',
].join('\n');

/** A new ready session of the CSV above. */
async function session(): Promise<number> {
  return (await analysedSession(api, owner.token, CSV, 'march.csv')).id;
}
// the same statement again and again: its rows are duplicates of the earlier runs, accepted here
const confirm = (body: Record<string, unknown>, token = owner.token) => api.request('POST', '/api/v1/import/confirm', { token, body });
const item = (index: number, extra: Record<string, unknown> = {}) => ({ index, accept_duplicate: true, ...extra });
const lines = (id: number) =>
  api.db.selectFrom('transaction_splits').select(['amount', 'category_id', 'party_id']).where('transaction_id', '=', id).orderBy('position').execute().then((rows) => rows.map((r) => [String(r.amount), r.category_id, r.party_id]));
const categoriesOf = (id: number) => api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', id).orderBy('category_id').execute().then((rows) => rows.map((r) => r.category_id));

t.test('a small confirm creates the lines; their categories are the transaction\'s', async (t) => {
  const id = await session();
  const res = await confirm({
    session_id: id,
    accepted: [
      item(0, { splits: [{ amount: 60, category_id: household, description: 'Soap' }, { amount: 40, category_id: groceries, party_id: shop }] }),
      item(1, { amount: 32, splits: [{ amount: 32, category_id: groceries }] }),
      item(2),
    ],
  });
  t.equal(res.status, 200, JSON.stringify(res.body));
  const [first, second, third] = res.body.data.results;
  t.match(first, { status: 'created', category_id: household });
  t.same(await lines(first.transaction_id), [['60.0000', household, null], ['40.0000', groceries, shop]]);
  t.same(await categoriesOf(first.transaction_id), [groceries, household].sort((a, b) => a - b));
  t.same(await lines(second.transaction_id), [['32.0000', groceries, null]], "the lines add up to the item's amount");
  t.same(await lines(third.transaction_id), [], 'an item without lines is not split');
  const shown = await api.request('GET', `/api/v1/transactions/${first.transaction_id}`, { token: owner.token });
  t.same(shown.body.data.splits.map((s: any) => [s.amount, s.category_id, s.description]), [[60, household, 'Soap'], [40, groceries, null]]);
});

t.test('bad lines: 422 keyed by field, nothing imported', async (t) => {
  const id = await session();
  const before = await fx.count('transactions', owner.user.id);
  const cases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
    ["short of the line's amount", item(0, { splits: [{ amount: 60 }, { amount: 39.99 }] }), 'accepted.1.splits', /0\.01 less than the amount 100/],
    ["over the item's amount", item(0, { amount: 90, splits: [{ amount: 100 }] }), 'accepted.1.splits', /10 more/],
    ['a negative line', item(0, { splits: [{ amount: 110 }, { amount: -10 }] }), 'accepted.1.splits.1.amount'],
    ['five decimals', item(0, { splits: [{ amount: 50.00001 }, { amount: 49.99999 }] }), 'accepted.1.splits.0.amount'],
    ["another user's category", item(0, { splits: [{ amount: 100, category_id: theirCategory }] }), 'accepted.1.splits.0.category_id'],
    ['an unknown party', item(0, { splits: [{ amount: 100, party_id: 999999999 }] }), 'accepted.1.splits.0.party_id'],
    ['a category beside the lines that is not theirs', item(0, { category_id: household, splits: [{ amount: 100, category_id: groceries }] }), 'accepted.1.category_id'],
    ['1,000 lines', item(0, { splits: Array.from({ length: 1000 }, () => ({ amount: 0.1 })) }), 'accepted.1.splits'],
  ];
  for (const [what, bad, field, message] of cases) {
    const res = await confirm({ session_id: id, accepted: [item(2), bad] });
    t.equal(res.status, 422, what);
    t.ok(res.body.errors?.[field], `${what}: keyed ${field} (${JSON.stringify(res.body.errors)})`);
    if (message) t.match(res.body.errors[field][0], message, what);
    const whole = await confirm({ session_id: id, accept_all: true, accepted: [item(2), bad] });
    t.equal(whole.status, 422, `${what} (accept_all)`);
    t.ok(whole.body.errors?.[field], `${what} (accept_all): keyed ${field}`);
  }
  t.equal(await fx.count('transactions', owner.user.id), before, 'nothing imported');
});

t.test('a whole confirm: split-only items go through the batch writer, lines and all', async (t) => {
  const id = await session();
  const res = await confirm({
    session_id: id,
    accept_all: true,
    accepted: [
      item(0, { splits: [{ amount: 70, category_id: groceries }, { amount: 30, category_id: household }] }),
      { index: 3, splits: [{ amount: 25, category_id: household }, { amount: 25 }] },
      item(1),
      item(2),
    ],
  });
  t.equal(res.status, 202, JSON.stringify(res.body));
  await runConfirm(jobCtx, id);
  const rows = await api.db.selectFrom('import_suggestions').select(['suggestion_index', 'transaction_id', 'status']).where('import_session_id', '=', id).orderBy('suggestion_index').execute();
  t.same(rows.map((r) => r.status), ['confirmed', 'confirmed', 'confirmed', 'confirmed'], JSON.stringify(rows));
  t.same(await lines(rows[0].transaction_id!), [['70.0000', groceries, null], ['30.0000', household, null]]);
  t.same(await lines(rows[3].transaction_id!), [['25.0000', household, null], ['25.0000', null, null]]);
  t.same(await categoriesOf(rows[3].transaction_id!), [household]);
  t.same(await lines(rows[1].transaction_id!), []);
  t.same(await walletsOffLedger(api.db, owner.user.id), [], 'balances equal their ledgers');
});

t.test('a rule that books the line as a transfer does not take a split line', async (t) => {
  const savings = await fx.wallet(owner.user.id);
  const rule = await api.request('POST', '/api/v1/rules', {
    token: owner.token,
    body: { name: 'Market to savings', conditions: [{ field: 'description', operator: 'contains', value: 'Market' }], actions: [{ type: 'transfer_to_wallet', wallet_id: savings }] },
  });
  t.equal(rule.status, 201, JSON.stringify(rule.body));
  const id = await session();
  const res = await confirm({ session_id: id, accepted: [item(3, { splits: [{ amount: 20, category_id: groceries }, { amount: 30, category_id: household }] })] });
  t.equal(res.status, 200);
  const made = res.body.data.results[0].transaction_id;
  const row = await api.db.selectFrom('transactions').select(['transfer_id', 'metadata']).where('id', '=', made).executeTakeFirstOrThrow();
  t.equal(row.transfer_id, null, 'an expense, not a transfer');
  t.match(row.metadata, { transfer_not_booked: 'Not booked as a transfer: the line is split.' });
  t.same(await lines(made), [['20.0000', groceries, null], ['30.0000', household, null]]);
  await api.request('DELETE', `/api/v1/rules/${rule.body.data.id}`, { token: owner.token });
});

t.test("another user's session 404, no token 401", async (t) => {
  const id = await session();
  t.equal((await confirm({ session_id: id, accepted: [item(0, { splits: [{ amount: 100 }] })] }, stranger.token)).status, 404);
  t.equal((await api.request('POST', '/api/v1/import/confirm', { body: { session_id: id, accepted: [item(0, { splits: [{ amount: 100 }] })] } })).status, 401);
});
