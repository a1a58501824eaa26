// What splits cost the reads that show and count them (issue 44): the first page of the
// transaction list and GET /stats (a year, and the default window) with 30% of the
// transactions split into two lines against the same ledger with none, as a ratio of medians.
// Runs on a THROWAWAY PostgreSQL database (BENCH_DB_NAME, default finance_splits_bench, on
// DATABASE_URL's server; dropped at the end), seeded with BENCH_SPLITS_ROWS transactions
// (default 50,000) by the bench seed. Usage:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/splits.ts
import pg from 'pg';
import { sql } from 'kysely';

process.env.BENCH_DB_NAME ??= 'finance_splits_bench';
process.env.BENCH_RESEED = '1';
const { openBenchApp } = await import('./bench-database.js');
const { BENCH_PASSWORD, ensureSeeded } = await import('./seed.js');

const ROWS = Number(process.env.BENCH_SPLITS_ROWS ?? 50_000);
const RUNS = Number(process.env.BENCH_SPLITS_RUNS ?? 15);
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL: a PostgreSQL server for the throwaway database');

const { app, database } = await openBenchApp({ responseCacheBytes: 0 });
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
try {
  const [user] = await ensureSeeded(database.db, app, [{ label: 'splits', rows: ROWS }], (line) => console.error(line));
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { email: user!.email, password: BENCH_PASSWORD } });
  const token = login.json().data.token as string;
  const urls = ['/api/v1/transactions?limit=20', '/api/v1/transactions?limit=100', '/api/v1/stats', '/api/v1/stats?start_date=2025-01-01&end_date=2025-12-31'];
  const measure = async () => {
    const result = new Map<string, number>();
    for (const url of urls) {
      const times: number[] = [];
      for (let run = 0; run < RUNS + 2; run++) {
        const started = performance.now();
        const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        if (run >= 2) times.push(performance.now() - started); // two warm-ups
      }
      result.set(url, median(times));
    }
    return result;
  };
  await sql`analyze`.execute(database.db); // both sides measured on fresh statistics
  const before = await measure();
  // 30% of the user's incomes and expenses (not transfer legs) split in two lines: the first
  // line keeps the first category, the second another of the user's categories
  const started = performance.now();
  await sql`
    with picked as (
      select t.id, t.user_id, t.amount, row_number() over (order by t.id) as n
        from transactions t where t.user_id = ${user!.userId} and t.transfer_id is null and t.deleted_at is null and t.id % 10 < 3)
    insert into transaction_splits (transaction_id, user_id, position, amount, category_id)
    select p.id, p.user_id, line.position, line.amount, line.category_id
      from picked p
      cross join lateral (values
        (0, round(p.amount * 0.6, 4), (select min(category_id) from transaction_categories tc where tc.transaction_id = p.id)),
        (1, p.amount - round(p.amount * 0.6, 4), (${sql.lit(user!.categories[0] ?? null)})::bigint)) as line(position, amount, category_id)
     where round(p.amount * 0.6, 4) > 0 and p.amount - round(p.amount * 0.6, 4) > 0`.execute(database.db);
  const splitSeconds = (performance.now() - started) / 1000;
  const { rows } = await sql<{ split: string; total: string }>`
    select (select count(distinct transaction_id) from transaction_splits where user_id = ${user!.userId})::text as split,
           (select count(*) from transactions where user_id = ${user!.userId} and transfer_id is null and deleted_at is null)::text as total`.execute(database.db);
  await sql`analyze`.execute(database.db);
  const after = await measure();
  console.log(`\nSplits on PostgreSQL, ${ROWS} transactions, ${rows[0].split} of ${rows[0].total} split in two lines (written in ${splitSeconds.toFixed(1)} s); medians of ${RUNS}`);
  for (const url of urls) {
    const [a, b] = [before.get(url)!, after.get(url)!];
    console.log(`  ${url.padEnd(58)} none ${a.toFixed(1)} ms   30% split ${b.toFixed(1)} ms   ratio ${(b / a).toFixed(2)}`);
  }
} finally {
  await app.close();
  await database.close();
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${process.env.BENCH_DB_NAME} WITH (FORCE)`);
  await admin.end();
}
