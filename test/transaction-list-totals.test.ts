// The transaction list's `total` and `totals` come from the summary of 022 for the filters it
// keys (type, wallets, intent, transfer legs, categories): after every kind of write, each
// filter combination answers what summing the matching live rows from scratch gives, and the
// summary table equals its recomputation from the rows and their links.
import t from 'tap';
import { sql } from 'kysely';
import { Decimal } from '../domain/money.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);

/** The summary's rows for the user as recomputed from the live rows and links: [] when equal. */
async function summaryOffRows(userId: number) {
  const { rows } = await sql<{ key: string; kept: string | null; recomputed: string | null }>`
    with recomputed as (
      select wallet_id, 0::bigint as category_id, type, intent, transfer_id is not null as is_transfer, count(*)::bigint as count, sum(amount) as total
        from transactions where user_id = ${userId} and deleted_at is null group by 1, 2, 3, 4, 5
      union all
      select t.wallet_id, l.category_id, t.type, t.intent, t.transfer_id is not null, count(*), sum(t.amount)
        from transactions t join transaction_categories l on l.transaction_id = t.id
       where t.user_id = ${userId} and t.deleted_at is null group by 1, 2, 3, 4, 5
    ), kept as (
      select wallet_id, category_id, type, intent, is_transfer, count, total from transaction_list_totals
       where user_id = ${userId} and (count <> 0 or total <> 0)
    )
    select concat_ws('/', coalesce(k.wallet_id, r.wallet_id), coalesce(k.category_id, r.category_id), coalesce(k.type, r.type),
                     coalesce(k.intent, r.intent), coalesce(k.is_transfer, r.is_transfer)) as key,
           k.count || ' ' || k.total as kept, r.count || ' ' || r.total as recomputed
      from kept k full join recomputed r using (wallet_id, category_id, type, intent, is_transfer)
     where k.count is distinct from r.count or k.total is distinct from r.total`.execute(api.db);
  return rows;
}

/** Count and sums of the user's live rows matching the list's filters, summed from scratch. */
async function scratchTotals(userId: number, f: { type?: string; wallets?: number[]; categories?: number[]; intents?: string[]; noTransfers?: boolean }) {
  const { rows } = await sql<{ count: string; income: string; expenses: string }>`
    select count(*) as count,
           coalesce(sum(amount) filter (where type = 'income'), 0) as income,
           coalesce(sum(amount) filter (where type = 'expense'), 0) as expenses
      from transactions t
     where user_id = ${userId} and deleted_at is null
       and (${f.type ?? null}::text is null or type = ${f.type ?? null})
       and (${f.wallets ?? null}::bigint[] is null or wallet_id = any(${f.wallets ?? null}))
       and (${f.intents ?? null}::text[] is null or intent = any(${f.intents ?? null}))
       and (not ${f.noTransfers ?? false} or transfer_id is null)
       and (${f.categories ?? null}::bigint[] is null
            or exists (select 1 from transaction_categories l where l.transaction_id = t.id and l.category_id = any(${f.categories ?? null})))`.execute(api.db);
  const row = rows[0];
  const net = new Decimal(row.income).minus(row.expenses);
  return { total: Number(row.count), totals: { income: Number(row.income), expenses: Number(row.expenses), net: Number(net.toFixed()) } };
}

t.test('totals from the summary equal a recomputation after every kind of write', async (t) => {
  const user = await api.newUser();
  const other = await api.newUser();
  const uid = user.user.id;
  const main = await fx.mainWallet(uid);
  const bank = await fx.wallet(uid, { balance: '5000' });
  const card = await fx.wallet(uid, { type: 'credit_card' });
  const [food, rent, fun] = [await fx.category(uid), await fx.category(uid), await fx.category(uid)];
  const salaryCategory = await fx.category(uid, 'income');
  const strangerCategory = await fx.category(other.user.id);
  const req = (method: string, url: string, body?: Record<string, unknown>) => api.request(method, url, { token: user.token, body });
  const create = async (body: Record<string, unknown>) => {
    const res = await req('POST', '/api/v1/transactions', { wallet_id: bank, ...body });
    if (res.status !== 201) t.fail(JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const update = async (id: number, type: string, body: Record<string, unknown>) => {
    const res = await req('PUT', `/api/v1/transactions/${id}?type=${type}`, { updated_at: new Date().toISOString(), ...body });
    if (res.status !== 200) t.fail(JSON.stringify(res.body));
  };

  const salary = await create({ type: 'income', amount: 2500.55, categories: [salaryCategory] });
  const groceries = await create({ type: 'expense', amount: 45.25, categories: [food] });
  const both = await create({ type: 'expense', amount: 120.1, categories: [food, fun] });
  const flat = await create({ type: 'expense', amount: 400, categories: [rent], intent: 'debt_owed' });
  const loan = await create({ type: 'income', amount: 300, intent: 'loan_received', wallet_id: main });
  const cinema = await create({ type: 'expense', amount: 18.5, categories: [fun], wallet_id: card });
  const gift = await create({ type: 'expense', amount: 60, intent: 'gift', categories: [fun] });
  const transfer = await req('POST', '/api/v1/transfer', { amount: 250, from_wallet_id: bank, to_wallet_id: main });
  t.equal(transfer.status, 201);
  const dropped = await req('POST', '/api/v1/transfer', { amount: 75, from_wallet_id: bank, to_wallet_id: card });
  t.equal(dropped.status, 201);
  t.same(await summaryOffRows(uid), [], 'after creates and transfers');

  await update(groceries, 'expense', { amount: 47.75, categories: [food, rent] }); // amount and links in one write
  await update(flat, 'expense', { wallet_id: main, intent: 'regular' });
  await update(cinema, 'expense', { type: 'income' }); // converts, keeps its category
  await update(both, 'expense', { categories: [rent] });
  await update(loan, 'income', { categories: [salaryCategory] });
  t.equal((await req('PUT', `/api/v1/transfers/${transfer.body.data.id}`, { amount: 260 })).status, 200);
  t.equal((await req('DELETE', `/api/v1/transfers/${dropped.body.data.id}`)).status, 200);
  t.equal((await req('DELETE', `/api/v1/transactions/${gift}`)).status, 200);
  const refund = await create({ type: 'income', amount: 10, categories: [food] });
  const marked = await req('POST', `/api/v1/transactions/${refund}/refund`, { original_transaction_id: groceries });
  t.ok(marked.status < 300, JSON.stringify(marked.body));
  // a category deleted outright (cascading its links) and a stranger's category in the filter
  await api.db.deleteFrom('transaction_categories').where('category_id', '=', fun).where('transaction_id', '=', cinema).execute();
  t.same(await summaryOffRows(uid), [], 'after edits, deletes, refunds and link changes');

  const filters: Array<[string, Parameters<typeof scratchTotals>[1]]> = [
    ['', {}],
    ['type=expense', { type: 'expense' }],
    [`wallet_ids=${bank},${main}`, { wallets: [bank, main] }],
    ['intent=regular', { intents: ['regular'] }],
    ['intent=debt_owed,loan_received', { intents: ['debt_owed', 'loan_received'] }],
    ['exclude_transfers=true', { noTransfers: true }],
    ['type=income&exclude_transfers=true', { type: 'income', noTransfers: true }],
    [`category_ids=${food}`, { categories: [food] }],
    [`category_ids=${food},${rent}`, { categories: [food, rent] }],
    [`category_ids=${food},${rent},${fun}&exclude_transfers=true&type=expense`, { categories: [food, rent, fun], noTransfers: true, type: 'expense' }],
    [`category_ids=${food}&category_ids=${food}`, { categories: [food] }],
    [`category_ids=${strangerCategory}`, { categories: [strangerCategory] }],
    [`category_ids=${rent}&wallet_ids=${bank}&intent=regular`, { categories: [rent], wallets: [bank], intents: ['regular'] }],
  ];
  for (const [query, f] of filters) {
    const res = await req('GET', `/api/v1/transactions?limit=2&${query}`);
    t.equal(res.status, 200, query);
    const expected = await scratchTotals(uid, f);
    t.same({ total: res.body.data.total, totals: res.body.data.totals }, expected, query || 'no filter');
    t.equal(res.body.data.last_page, Math.max(1, Math.ceil(expected.total / 2)), `${query}: last_page`);
  }
  t.ok((await scratchTotals(uid, { categories: [food, rent] })).total < (await scratchTotals(uid, { categories: [food] })).total + (await scratchTotals(uid, { categories: [rent] })).total,
    'a transaction in two listed categories exists, so the double count was exercised');
  t.same(await summaryOffRows(other.user.id), [], "the other user's summary is untouched");
});

t.test('concurrent edits that cross categories in one wallet all succeed and keep the summary exact', async (t) => {
  const user = await api.newUser();
  const uid = user.user.id;
  const wallet = await fx.wallet(uid, { balance: '1000' });
  const [a, b] = [await fx.category(uid), await fx.category(uid)];
  const make = async (categories: number[]) =>
    (await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 5, wallet_id: wallet, categories } })).body.data.id as number;
  const [first, second] = [await make([a]), await make([b])];
  const swap = (id: number, categories: number[]) =>
    api.request('PUT', `/api/v1/transactions/${id}?type=expense`, { token: user.token, body: { updated_at: new Date().toISOString(), categories, description: `to ${categories.join(',')}` } });
  for (let round = 0; round < 8; round++) {
    const results = await Promise.all([swap(first, round % 2 ? [a] : [b]), swap(second, round % 2 ? [b] : [a])]);
    t.same(results.map((r) => r.status), [200, 200], `round ${round}`);
  }
  t.same(await summaryOffRows(uid), []);
});
