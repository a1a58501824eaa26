// Concurrent transfers never lose an update: after many simultaneous creates, updates and
// deletes between two wallets (and 100 transfers among three), the sum of both balances is unchanged and each balance equals
// its ledger (opening balance + live incomes − live expenses, summed in SQL). Runs on whichever
// database the harness uses: embedded by default, PostgreSQL with DATABASE_URL.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';
import { walletsOffLedger } from './helpers/ledger-invariant.js';

const api = await startApp(t);
const user = await api.newUser();

async function wallet(balance: string): Promise<number> {
  const row = await api.db
    .insertInto('wallets')
    .values({ user_id: user.user.id, name: 'Concurrent', slug: `c-${randomUUID()}`, type: 'bank', currency: 'USD', opening_balance: balance, balance })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const a = await wallet('1000');
const b = await wallet('1000');

/** Each wallet's stored balance beside the balance its live transactions add up to. */
async function ledger() {
  const { rows } = await sql<{ id: number; balance: string; ledger: string }>`
    select w.id, w.balance::text as balance,
           (w.opening_balance + coalesce(sum(case when t.type = 'income' then t.amount else -t.amount end)
                                          filter (where t.deleted_at is null), 0))::text as ledger
    from wallets w left join transactions t on t.wallet_id = w.id
    where w.id in (${a}, ${b})
    group by w.id order by w.id`.execute(api.db);
  const { rows: [sum] } = await sql<{ total: string }>`select sum(balance)::text as total from wallets where id in (${a}, ${b})`.execute(api.db);
  return { rows, total: sum.total };
}

function checkLedger(t: Test, state: Awaited<ReturnType<typeof ledger>>) {
  t.equal(state.total, '2000.0000', 'the sum of both balances is unchanged');
  for (const row of state.rows) t.equal(row.balance, row.ledger, `wallet ${row.id}: balance = opening + live incomes − live expenses`);
}

const transferBody = (i: number) => ({
  amount: (i % 7) + 1.25,
  from_wallet_id: i % 2 === 0 ? a : b,
  to_wallet_id: i % 2 === 0 ? b : a,
});

t.test('100 simultaneous transfers back and forth', async (t) => {
  const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => api.request('POST', '/api/v1/transfer', { token: user.token, body: transferBody(i) })));
  t.same([...new Set(responses.map((r) => r.status))], [201], 'every transfer is made');
  const state = await ledger();
  checkLedger(t, state);
  t.not(state.rows[0].balance, '1000.0000', 'money did move');
});

t.test('simultaneous updates, deletes and creates', async (t) => {
  const list = await api.request('GET', '/api/v1/transfers?limit=100', { token: user.token });
  const ids: number[] = list.body.data.data.map((x: { id: number }) => x.id);
  t.equal(ids.length, 100);
  const requests = [
    ...ids.slice(0, 30).map((id) => api.request('DELETE', `/api/v1/transfers/${id}`, { token: user.token })),
    // each deleted twice at once: the balance is reverted once
    ...ids.slice(0, 10).map((id) => api.request('DELETE', `/api/v1/transfers/${id}`, { token: user.token })),
    ...ids.slice(30, 60).map((id, i) => api.request('PUT', `/api/v1/transfers/${id}`, { token: user.token, body: { amount: i + 0.5 } })),
    ...ids.slice(60, 70).map((id) => api.request('PUT', `/api/v1/transfers/${id}`, { token: user.token, body: { from_wallet_id: b, to_wallet_id: a } })),
    ...Array.from({ length: 40 }, (_, i) => api.request('POST', '/api/v1/transfer', { token: user.token, body: transferBody(i + 1) })),
  ];
  const statuses = (await Promise.all(requests)).map((r) => r.status);
  t.ok(statuses.every((s) => s === 200 || s === 201 || s === 404), 'only successes and lost delete races');
  t.equal(statuses.filter((s) => s === 404).length, 10, 'of two simultaneous deletes, one finds the transfer gone');
  checkLedger(t, await ledger());
  const { n } = await api.db
    .selectFrom('transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', user.user.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  t.equal(Number(n), 110);
});

t.test('100 simultaneous transfers among three wallets, every direction', async (t) => {
  const trio = await api.newUser();
  const make = async (balance: string) =>
    (
      await api.db
        .insertInto('wallets')
        .values({ user_id: trio.user.id, name: 'Trio', slug: `t-${randomUUID()}`, type: 'bank', currency: 'USD', opening_balance: balance, balance })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const wallets = [await make('500'), await make('500'), await make('500')];
  // i picks one of the six ordered pairs; amounts vary so a lost update would show in the sums
  const pairs = wallets.flatMap((from) => wallets.filter((to) => to !== from).map((to) => [from, to] as const));
  const responses = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      api.request('POST', '/api/v1/transfer', { token: trio.token, body: { amount: (i % 5) + 0.75, from_wallet_id: pairs[i % 6][0], to_wallet_id: pairs[i % 6][1] } }),
    ),
  );
  t.same([...new Set(responses.map((r) => r.status))], [201], 'every transfer is made (none could overdraw: at most 100 × 4.75 leaves a wallet)');
  t.same(await walletsOffLedger(api.db, trio.user.id), [], 'each balance equals its ledger');
  const { rows } = await sql<{ total: string }>`select sum(balance)::text as total from wallets where user_id = ${trio.user.id} and name = 'Trio'`.execute(api.db);
  t.equal(rows[0].total, '1500.0000', 'the three balances still add up to 1500');
  const legs = await api.db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', trio.user.id).where('transfer_id', 'is not', null).executeTakeFirstOrThrow();
  t.equal(Number(legs.n), 200, 'two legs per transfer, none twice');
});
