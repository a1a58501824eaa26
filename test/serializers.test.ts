// The compiled response serializers (server/serializers.ts): every compiled operation's schema
// compiles, real pages come out of them exactly as JSON.stringify writes them (the harness
// checks each compiled response; here the pages carry every nested shape), and the check
// itself catches what fast-json-stringify would silently change.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Decimal, moneyToJson } from '../domain/money.js';
import { allHandlers } from '../handlers/index.js';
import { ok } from '../server/envelope.js';
import { Contract } from '../server/contract.js';
import { COMPILED_OPERATIONS, ResponseSerializers, verified } from '../server/serializers.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, PNG } from './helpers/transaction-fixtures.js';

const contract = await Contract.load();
const serializers = ResponseSerializers.of(contract.document);

t.test('every compiled operation compiles: none falls back to JSON.stringify', async (t) => {
  t.same(serializers.skipped, []);
  for (const operationId of COMPILED_OPERATIONS) t.ok(serializers.for(operationId, 200), operationId);
  t.equal(serializers.for('getUser', 200), undefined, 'the others keep JSON.stringify');
});

t.test('shapes the compiler cannot take are left to JSON.stringify', async (t) => {
  const document = {
    paths: {
      '/a': { get: { operationId: 'a', responses: { 200: { content: { 'application/json': { schema: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } } } } } },
      '/b': { get: { operationId: 'b', responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } },
    },
    components: { schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } } },
  };
  const built = ResponseSerializers.build(document, ['a', 'b']);
  t.equal(built.for('a', 200), undefined);
  t.equal(built.for('b', 200), undefined);
  t.match(built.skipped, [/^a 200: oneOf/, /^b 200: recursive/]);
});

t.test('real pages of transactions with every nested shape serialize as JSON.stringify does', async (t) => {
  const api = await startApp(t);
  const fx = ledgerFixtures(api);
  const owner = await api.newUser();
  const device = randomUUID();
  const wallet = (await api.request('POST', '/api/v1/wallets', {
    token: owner.token,
    body: { name: 'Savings', type: 'bank', currency: 'EUR', balance: 1000, icon: '💰', icon_type: 'emoji', client_id: `${device}:${randomUUID()}` },
  })).body.data.id as number;
  const [food, rent] = [await fx.category(owner.user.id), await fx.category(owner.user.id)];
  const party = await fx.party(owner.user.id);
  const group = await fx.group(owner.user.id);
  const create = async (body: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { wallet_id: wallet, ...body } });
    t.equal(res.status, 201);
    return res.body.data.id as number;
  };
  const full = await create({
    client_id: `${device}:${randomUUID()}`,
    type: 'expense',
    amount: 12.3456,
    description: 'Quotes " and \\ and \u2028 and emoji 🧾',
    party_id: party,
    group_id: group,
    categories: [food, rent],
    is_recurring: true,
    recurrence_period: 'monthly',
    recurrence_interval: 2,
  });
  const upload = await api.request('POST', `/api/v1/transactions/${full}/files`, { token: owner.token, body: { files: [`data:image/png;base64,${PNG.toString('base64')}`] } });
  t.equal(upload.status, 200);
  await create({ type: 'income', amount: 1, description: null });
  const gone = await create({ type: 'expense', amount: 2 });
  t.equal((await api.request('DELETE', `/api/v1/transactions/${gone}`, { token: owner.token })).status, 200);
  const other = await fx.wallet(owner.user.id, { balance: '100' });
  await fx.transfer(owner.user.id, other, wallet, '5');

  // the harness compares each compiled response with JSON.stringify and fails on a difference
  const plain = await api.request('GET', '/api/v1/transactions?limit=100', { token: owner.token });
  t.equal(plain.status, 200);
  t.match(plain.headers['content-type'], /^application\/json; charset=utf-8$/);
  t.equal(plain.body.data.data.length, 4);
  const shown = plain.body.data.data.find((row: { id: number }) => row.id === full);
  t.equal(shown.categories.length, 2);
  t.equal(shown.files.length, 1);
  t.not(shown.recurring_rules, null);
  t.match(shown.wallet.icon, { type: 'emoji', content: '💰' });
  t.equal(shown.description, 'Quotes " and \\ and \u2028 and emoji 🧾');
  const feed = await api.request('GET', '/api/v1/transactions?synced_since=2000-01-01T00:00:00Z&limit=100', { token: owner.token });
  t.equal(feed.body.data.data.length, 5, 'the tombstone too');
  t.match(feed.body.data.next_cursor, /^\d+\.\d+$/);

  // and once more outside the harness: the compiled bytes parse to what the page holds
  const serialize = serializers.for('listTransactions', 200)!;
  for (const body of [plain.body, feed.body]) t.same(JSON.parse(serialize(body)), body);
});

t.test('the check reports what the compiler would drop or coerce', async (t) => {
  const serialize = serializers.for('listTransactions', 200)!;
  const page = {
    success: true,
    message: 'Operation successful',
    data: { data: [], totals: { income: 0, expenses: 0, net: 0 }, last_sync: '2026-01-01T00:00:00.000Z', current_page: 1, per_page: 20, total: 0, last_page: 1 },
  };
  const differences: string[] = [];
  const checked = verified(serialize, (difference) => differences.push(difference));
  t.same(JSON.parse(checked(page)), page, 'an exact page passes (in the schema\'s property order)');
  t.same(differences, []);
  // an undeclared field would be dropped, a string total coerced: both reported, JSON.stringify's bytes sent
  const strayed = { ...page, data: { ...page.data, extra: 1, total: '7' } };
  t.equal(checked(strayed), JSON.stringify(strayed));
  t.match(differences, [/^\/data\/(extra|total): compiled/]);
});

t.test('a test app fails a request whose compiled response would differ from JSON.stringify', async (t) => {
  const page = { data: [], totals: { income: 0, expenses: 0, net: 0 }, last_sync: '2026-01-01T00:00:00.000Z', current_page: 1, per_page: 20, total: 0, last_page: 1 };
  const api = await startApp(t, { handlers: { ...allHandlers, listTransactions: async () => ok({ ...page, undeclared: 'dropped by the compiler' }) } });
  const owner = await api.newUser();
  await t.rejects(api.request('GET', '/api/v1/transactions', { token: owner.token }), /compiled serializer differs from JSON\.stringify at \/data\/undeclared/);
});

t.test('moneyToJson: the fast path for stored decimals gives what the exact path gives', async (t) => {
  const exact = (value: string) => new Decimal(value).toDecimalPlaces(4, Decimal.ROUND_HALF_EVEN).toNumber();
  const samples = ['0.0000', '-0.0000', '0.0200', '1250.5000', '-12.3456', '999999999999999.9999', '100000000000000.0001', '0.1', '7', '-5.5'];
  for (let i = 0; i < 2000; i++) samples.push(`${i % 3 === 0 ? '-' : ''}${Math.floor(Math.random() * 10 ** (1 + (i % 15)))}.${String(i * 7919 % 10000).padStart(4, '0')}`);
  t.same(samples.filter((value) => !Object.is(moneyToJson(value), exact(value))), [], `${samples.length} amounts`);
  t.equal(moneyToJson('1.23456'), 1.2346, 'more places than stored: rounded half-even by the exact path');
  t.equal(moneyToJson('1e3'), 1000);
});
