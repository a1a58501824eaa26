// The benchmark's ledgers, seeded once per bench database and reused by later runs: a
// `bench_seed` row per seeded user is written last, so a user is seeded again only when its row
// is missing (first run, a changed row count, or a seed that was interrupted).
// Each user: 5 wallets (4 USD, 1 EUR, with a manual EUR-USD rate), 30 categories (24 expense,
// 6 income), 20 parties, 5 groups, `rows` transactions spread evenly over the 3 years up to the
// seed (1 in 5 an income; 3 in 4 categorised, 1 in 20 of those twice; parties, groups), of which
// 2% are the legs of transfers and 1 in 500 incomes is a refund; balances equal the ledger.
// The user labelled `main` also gets 50 budgets of each period type. All in a few
// `INSERT … SELECT generate_series` statements.
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface SeedPlan {
  label: string;
  rows: number;
}

export interface SeededUser extends SeedPlan {
  userId: number;
  email: string;
  wallets: number[];
  categories: number[];
  /** Budget ids of the main user by period type. */
  budgets: Record<string, number[]>;
  seedSeconds: number;
}

export const BENCH_PASSWORD = 'benchmark-password';
export const PERIOD_TYPES = ['weekly', 'monthly', 'yearly', 'custom'] as const;
const BUDGETS_PER_PERIOD = 50;

/** The seeded users of the plan, seeding those the bench database does not have yet. */
export async function ensureSeeded(db: Kysely<Database>, app: FastifyInstance, plan: SeedPlan[], log: (line: string) => void): Promise<SeededUser[]> {
  await sql`create table if not exists bench_seed (label text primary key, rows int not null, seeded jsonb not null)`.execute(db);
  const users: SeededUser[] = [];
  for (const entry of plan) {
    const { rows } = await sql<{ rows: number; seeded: SeededUser }>`select rows, seeded from bench_seed where label = ${entry.label}`.execute(db);
    if (rows[0]?.rows === entry.rows) {
      users.push(rows[0].seeded);
      continue;
    }
    log(`seeding ${entry.label}: ${entry.rows} transactions…`);
    const started = performance.now();
    const user = await seedUser(db, app, entry);
    user.seedSeconds = (performance.now() - started) / 1000;
    log(`seeded ${entry.label} in ${user.seedSeconds.toFixed(1)} s`);
    await sql`insert into bench_seed (label, rows, seeded) values (${entry.label}, ${entry.rows}, ${JSON.stringify(user)}::jsonb)
      on conflict (label) do update set rows = excluded.rows, seeded = excluded.seeded`.execute(db);
    users.push(user);
  }
  return users;
}

/** Registers a user through the API (so its row is exactly what the app writes). */
export async function registerUser(app: FastifyInstance, label: string): Promise<{ userId: number; email: string; token: string }> {
  const email = `bench-${label}-${Date.now()}@example.test`;
  const res = await app.inject({ method: 'POST', url: '/api/register', payload: { email, password: BENCH_PASSWORD, first_name: 'Bench' } });
  if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`);
  const data = res.json().data as { token: string; user: { id: number } };
  return { userId: data.user.id, email, token: data.token };
}

async function seedUser(db: Kysely<Database>, app: FastifyInstance, plan: SeedPlan): Promise<SeededUser> {
  const { userId, email } = await registerUser(app, plan.label);
  const ids = async (table: 'wallets' | 'categories' | 'parties' | 'groups', values: Record<string, unknown>[]) =>
    (await db.insertInto(table).values(values.map((v) => ({ user_id: userId, ...v })) as any).returning('id').execute()).map((row) => Number(row.id));
  const walletKinds = [
    ['Checking', 'bank', 'USD'],
    ['Cash', 'cash', 'USD'],
    ['Card', 'credit_card', 'USD'],
    ['Euro account', 'bank', 'EUR'],
    ['Savings', 'bank', 'USD'],
  ];
  const wallets = await ids(
    'wallets',
    walletKinds.map(([name, type, currency], i) => ({ name, slug: `bench-wallet-${i}`, type, currency, opening_balance: '100000' })),
  );
  const expenseCategories = await ids('categories', Array.from({ length: 24 }, (_, i) => ({ name: `Expense ${i}`, slug: `bench-expense-${i}`, type: 'expense' })));
  const incomeCategories = await ids('categories', Array.from({ length: 6 }, (_, i) => ({ name: `Income ${i}`, slug: `bench-income-${i}`, type: 'income' })));
  const parties = await ids('parties', Array.from({ length: 20 }, (_, i) => ({ name: `Party ${i}` })));
  const groups = await ids('groups', Array.from({ length: 5 }, (_, i) => ({ name: `Group ${i}`, slug: `bench-group-${i}` })));
  await db
    .insertInto('configurations')
    .values({ user_id: userId, key: 'manual-exchange-rates', type: 'string', value: JSON.stringify(JSON.stringify({ 'EUR-USD': 1.1 })) })
    .execute();

  // The rows carry the change stamps they would have had, written over three years: the
  // database's own stamping (012) would date them all now.
  const stamped = ['transactions', 'transfers', 'refunds'];
  for (const table of stamped) await sql`alter table ${sql.table(table)} disable trigger ${sql.id(`${table}_sync_stamp`)}`.execute(db);
  try {
    const transfers = Math.floor(plan.rows / 100); // 2 legs each: 2% of the rows
    const regular = plan.rows - 2 * transfers;
    const span = sql`(3 * 365 * 1440)::bigint`; // minutes in three years
    await sql`
      insert into transactions (user_id, wallet_id, type, amount, datetime, description, party_id, group_id, created_at, updated_at, last_synced_at)
      select ${userId}::bigint, (${wallets}::bigint[])[1 + (i / 5) % 5],
             case when i % 5 = 0 then 'income' else 'expense' end,
             (i % 10000 + 1) / 100.0, d.at, 'bench ' || i,
             case when i % 4 = 0 then (${parties}::bigint[])[1 + i % 20] end,
             case when i % 7 = 0 then (${groups}::bigint[])[1 + i % 5] end,
             d.at, d.at, d.at
      from generate_series(1, ${regular}::int) as i
      cross join lateral (select now() - ((${regular}::bigint - i) * ${span} / ${regular}::bigint) * interval '1 minute' as at) d`.execute(db);
    await sql`
      insert into transaction_categories (transaction_id, category_id, user_id)
      select id, case when type = 'income' then (${incomeCategories}::bigint[])[1 + id % 6] else (${expenseCategories}::bigint[])[1 + id % 24] end, user_id
      from transactions where user_id = ${userId} and id % 4 <> 0
      union all
      select id, (${expenseCategories}::bigint[])[1 + (id + 1) % 24], user_id
      from transactions where user_id = ${userId} and type = 'expense' and id % 4 <> 0 and id % 20 = 1`.execute(db);
    // Transfers from the first three USD wallets to savings, legs dated as the transfer.
    await sql`
      with made as (
        insert into transfers (user_id, from_wallet_id, to_wallet_id, amount, received_amount, datetime, created_at, updated_at, last_synced_at)
        select ${userId}::bigint, (${wallets}::bigint[])[1 + j % 3], ${wallets[4]}::bigint, (j % 500 + 1)::numeric, (j % 500 + 1)::numeric, d.at, d.at, d.at, d.at
        from generate_series(1, ${transfers}::int) as j
        cross join lateral (select now() - ((${transfers}::bigint - j) * ${span} / greatest(${transfers}::bigint, 1)) * interval '1 minute' as at) d
        returning id, from_wallet_id, to_wallet_id, amount, received_amount, datetime
      )
      insert into transactions (user_id, wallet_id, type, amount, datetime, transfer_id, description, created_at, updated_at, last_synced_at)
      select ${userId}::bigint, from_wallet_id, 'expense', amount, datetime, id, 'transfer out', datetime, datetime, datetime from made
      union all
      select ${userId}::bigint, to_wallet_id, 'income', received_amount, datetime, id, 'transfer in', datetime, datetime, datetime from made`.execute(db);
    // One income in 500 refunds the expense made just before it (same wallet).
    await sql`
      with marked as (
        update transactions r set is_refund = true, refund_of_transaction_id = e.id
        from transactions e
        where r.user_id = ${userId} and r.type = 'income' and r.transfer_id is null and r.id % 2500 = 0
          and e.id = r.id - 1 and e.user_id = r.user_id and e.type = 'expense' and e.transfer_id is null
        returning r.id, r.refund_of_transaction_id, r.datetime
      )
      insert into refunds (user_id, refund_transaction_id, original_transaction_id, created_at, updated_at, last_synced_at)
      select ${userId}::bigint, id, refund_of_transaction_id, datetime, datetime, datetime from marked`.execute(db);
    await sql`
      update wallets w set balance = w.opening_balance + coalesce((
        select sum(case when t.type = 'income' then t.amount else -t.amount end)
        from transactions t where t.wallet_id = w.id and t.deleted_at is null), 0)
      where w.user_id = ${userId}`.execute(db);
  } finally {
    for (const table of stamped) await sql`alter table ${sql.table(table)} enable trigger ${sql.id(`${table}_sync_stamp`)}`.execute(db);
  }

  const budgets: Record<string, number[]> = {};
  if (plan.label === 'main') {
    for (const period of PERIOD_TYPES) budgets[period] = await seedBudgets(db, userId, period, { wallets, categories: expenseCategories, groups });
  }
  // every table, the summaries the triggers filled included: a server with autovacuum off (this
  // machine's CI server) would otherwise plan their reads for one row each (sort-based groupings
  // of thousands of rows); vacuum also sets the visibility map that index-only scans need
  await sql`vacuum analyze`.execute(db);
  return { ...plan, userId, email, wallets, categories: [...expenseCategories, ...incomeCategories], budgets, seedSeconds: 0 };
}

/** 50 budgets of one period type: targets in turn none, a category, a wallet, a group, two categories; 1 in 5 in EUR; 1 in 3 rolling over. */
async function seedBudgets(db: Kysely<Database>, userId: number, period: string, refs: { wallets: number[]; categories: number[]; groups: number[] }): Promise<number[]> {
  const start = period === 'custom' ? sql`(now() - interval '20 days')::date` : sql`(now() - interval '2 years')::date`;
  const end = period === 'custom' ? sql`(now() + interval '40 days')::date` : sql`null::date`;
  const { rows } = await sql<{ id: number; n: number }>`
    insert into budgets (user_id, name, slug, amount, currency, period_type, start_date, end_date, rollover_enabled)
    select ${userId}::bigint, ${period} || ' budget ' || n, 'bench-' || ${period} || '-' || n, (1000 + n * 100)::numeric,
           case when n % 5 = 0 then 'EUR' else 'USD' end, ${period}, ${start}, ${end}, ${period} <> 'custom' and n % 3 = 0
    from generate_series(1, ${BUDGETS_PER_PERIOD}::int) as n
    returning id, substring(slug from '[0-9]+$')::int as n`.execute(db);
  const targets = rows.flatMap(({ id, n }) => {
    const of = (target_type: string, key: string, value: number) => ({ user_id: userId, budget_id: id, target_type, [key]: value });
    switch (n % 5) {
      case 1:
        return [of('category', 'category_id', refs.categories[n % refs.categories.length])];
      case 2:
        return [of('wallet', 'wallet_id', refs.wallets[n % refs.wallets.length])];
      case 3:
        return [of('group', 'group_id', refs.groups[n % refs.groups.length])];
      case 4:
        return [of('category', 'category_id', refs.categories[n % refs.categories.length]), of('category', 'category_id', refs.categories[(n + 1) % refs.categories.length])];
      default:
        return [];
    }
  });
  if (targets.length) await db.insertInto('budget_targets').values(targets as any).execute();
  return rows.map((row) => Number(row.id));
}
