// Split transactions in multipart bodies (issue 44): `splits` as one part holding the JSON
// array, or one part per line, beside attached files; checked as the JSON body's are (422
// keyed by field, nothing written, the files not kept); an update's empty part unsplits.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();

const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
const groceries = await fx.category(owner.user.id);
const household = await fx.category(owner.user.id);
const theirCategory = await fx.category(stranger.user.id);

const receipt = { field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: PNG };
const send = (method: 'POST' | 'PUT', url: string, fields: Array<[string, string]>, token = owner.token, files = [receipt]) => {
  const form = multipart(fields, files);
  return api.request(method, url, { token, payload: form.payload, headers: form.headers });
};
const base: Array<[string, string]> = [
  ['type', 'expense'],
  ['amount', '100'],
  ['wallet_id', String(wallet)],
  ['datetime', '2026-03-10T10:00:00Z'],
];
const lines = (id: number) =>
  api.db.selectFrom('transaction_splits').select(['amount', 'category_id']).where('transaction_id', '=', id).orderBy('position').execute().then((rows) => rows.map((r) => [String(r.amount), r.category_id]));
const fileCount = async () => Number((await api.db.selectFrom('files').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', owner.user.id).executeTakeFirstOrThrow()).n);

t.test('create: splits as one JSON part, with a file', async (t) => {
  const res = await send('POST', '/api/v1/transactions', [...base, ['splits', JSON.stringify([{ amount: 60, category_id: household, description: 'Soap' }, { amount: 40, category_id: groceries }])]]);
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.same(res.body.data.splits.map((s: any) => [s.amount, s.category_id, s.description]), [[60, household, 'Soap'], [40, groceries, null]]);
  t.same(res.body.data.categories.map((c: { id: number }) => c.id), [household, groceries]);
  t.equal(res.body.data.files.length, 1, 'the file is attached');
  t.same(await lines(res.body.data.id), [['60.0000', household], ['40.0000', groceries]]);
});

t.test('create: one part per line (`splits[]`, as form serialisers send arrays)', async (t) => {
  const res = await send('POST', '/api/v1/transactions', [...base, ['splits[]', JSON.stringify({ amount: 70.5, category_id: groceries })], ['splits[]', JSON.stringify({ amount: 29.5 })]]);
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.same(await lines(res.body.data.id), [['70.5000', groceries], ['29.5000', null]]);
});

t.test('bad input: 422 keyed by field, nothing written, no file kept', async (t) => {
  const transactions = await fx.count('transactions', owner.user.id);
  const files = await fileCount();
  const cases: Array<[string, unknown, string]> = [
    ['lines short of the amount', [{ amount: 60 }, { amount: 39 }], 'splits'],
    ['a negative line', [{ amount: 110 }, { amount: -10 }], 'splits.1.amount'],
    ['five decimals', [{ amount: 50.00001 }, { amount: 49.99999 }], 'splits.0.amount'],
    ["another user's category", [{ amount: 60, category_id: theirCategory }, { amount: 40 }], 'splits.0.category_id'],
    ['a line without an amount', [{ category_id: groceries }], 'splits.0.amount'],
  ];
  for (const [what, splits, field] of cases) {
    const res = await send('POST', '/api/v1/transactions', [...base, ['splits', JSON.stringify(splits)]]);
    t.equal(res.status, 422, what);
    t.ok(res.body.errors?.[field], `${what}: keyed ${field} (${JSON.stringify(res.body.errors)})`);
  }
  const notJson = await send('POST', '/api/v1/transactions', [...base, ['splits', '60,40']]);
  t.equal(notJson.status, 422, 'a part that is not JSON');
  t.ok(Object.keys(notJson.body.errors).some((key) => key.startsWith('splits')), JSON.stringify(notJson.body.errors));
  t.equal(await fx.count('transactions', owner.user.id), transactions, 'no transaction written');
  t.equal(await fileCount(), files, 'no file kept');
});

t.test('update: replace the lines with a file, unsplit with an empty part', async (t) => {
  const made = await send('POST', '/api/v1/transactions', [...base, ['splits', JSON.stringify([{ amount: 60, category_id: household }, { amount: 40, category_id: groceries }])]]);
  const id = made.body.data.id;
  const replaced = await send('PUT', `/api/v1/transactions/${id}`, [['amount', '120'], ['splits', JSON.stringify([{ amount: 100, category_id: groceries }, { amount: 20 }])]]);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body));
  t.same(await lines(id), [['100.0000', groceries], ['20.0000', null]]);
  t.equal(replaced.body.data.files.length, 2, 'the file is appended');

  const wrong = await send('PUT', `/api/v1/transactions/${id}`, [['splits', JSON.stringify([{ amount: 1 }])]], owner.token, []);
  t.equal(wrong.status, 422);
  t.match(wrong.body.errors.splits[0], /119 less/);
  const theirs = await send('PUT', `/api/v1/transactions/${id}`, [['splits', JSON.stringify([{ amount: 120, category_id: theirCategory }])]], owner.token, []);
  t.ok(theirs.body.errors?.['splits.0.category_id'], JSON.stringify(theirs.body));
  t.same(await lines(id), [['100.0000', groceries], ['20.0000', null]], 'the failed updates wrote nothing');

  const unsplit = await send('PUT', `/api/v1/transactions/${id}`, [['splits', '']], owner.token, []);
  t.equal(unsplit.status, 200, JSON.stringify(unsplit.body));
  t.same(unsplit.body.data.splits, []);
  t.same(await lines(id), []);
});

t.test("another user's transaction, no token", async (t) => {
  const made = await send('POST', '/api/v1/transactions', [...base, ['splits', JSON.stringify([{ amount: 100, category_id: groceries }])]]);
  t.equal((await send('PUT', `/api/v1/transactions/${made.body.data.id}`, [['splits', '']], stranger.token, [])).status, 404);
  const form = multipart([...base, ['splits', '[]']]);
  t.equal((await api.request('POST', '/api/v1/transactions', { payload: form.payload, headers: form.headers })).status, 401);
});
