// `make bench` (part 2): GET /api/v1/stats with its defaults (last 30 days, every section) for
// one user with BENCH_STATS_ROWS transactions (default 1,000,000, spread over three years),
// through the full app. Seeding is one INSERT … SELECT generate_series. On PostgreSQL it runs
// in a throwaway database that is dropped at the end. The service runs in a child process
// (this file with `serve`) so the load generator does not share its event loop.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';

const ROWS = Number(process.env.BENCH_STATS_ROWS ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

if (process.argv[2] === 'serve') await serve();
else await measure();

async function measure() {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`stats bench server exited with ${code}`)));
  });
  const target = JSON.parse(line) as { url: string; token: string; database: string; seedSeconds: number };
  const load = async (seconds: number, connections = CONNECTIONS) => {
    const result = await autocannon({ url: target.url, connections, duration: seconds, headers: { authorization: `Bearer ${target.token}` } });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
    return result;
  };
  try {
    await load(2); // warm-up
    console.log(`\nGET /api/v1/stats (defaults) on the ${target.database} database, ${ROWS} transactions (seeded in ${target.seedSeconds.toFixed(1)} s)`);
    for (const connections of [1, CONNECTIONS]) {
      const result = await load(DURATION, connections);
      const figures = `${result.requests.average.toFixed(1)} req/s   p50 ${result.latency.p50.toFixed(1)} ms   p99 ${result.latency.p99.toFixed(1)} ms`;
      console.log(`${String(connections).padStart(3)} connection(s), ${DURATION} s: ${figures}`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

async function serve() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'finance-bench-stats-'));
  const config = { ...loadConfig({ ...process.env, DATA_DIR: dataDir }), rateLimitAuth: 0, rateLimitApi: 0, logLevel: 'silent' as const };
  const scratch = config.databaseUrl ? await scratchDatabase(config.databaseUrl) : undefined;
  const database = await openDatabase({ databaseUrl: scratch?.url, dataDir: scratch ? undefined : dataDir });
  await migrateToLatest(database.db);
  const app = await buildApp({ config, database, logger: false });
  const registered = await app.inject({
    method: 'POST',
    url: '/api/register',
    payload: { email: `bench-stats-${Date.now()}@example.test`, password: 'benchmark-password', first_name: 'Bench' },
  });
  const { token, user } = registered.json().data as { token: string; user: { id: number } };
  const started = performance.now();
  await seed(database.db, user.id);
  const seedSeconds = (performance.now() - started) / 1000;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(JSON.stringify({ url: `${address}/api/v1/stats`, token, database: database.kind, seedSeconds }));
  process.on('SIGTERM', async () => {
    await app.close();
    await database.close();
    await scratch?.drop();
    process.exit(0);
  });
}

/** Two wallets (USD, EUR), categories and a party, then ROWS transactions in one statement. */
async function seed(db: Awaited<ReturnType<typeof openDatabase>>['db'], userId: number) {
  const wallet = (name: string, currency: string) =>
    db.insertInto('wallets').values({ user_id: userId, name, slug: name.toLowerCase(), type: 'bank', currency }).returning('id').executeTakeFirstOrThrow();
  const [dollars, euros] = [(await wallet('Dollars', 'USD')).id, (await wallet('Euros', 'EUR')).id];
  const category = (name: string, type: 'income' | 'expense') =>
    db.insertInto('categories').values({ user_id: userId, name, slug: `bench-${name.toLowerCase()}`, type }).returning('id').executeTakeFirstOrThrow();
  const [salary, food] = [(await category('Salary', 'income')).id, (await category('Food', 'expense')).id];
  const party = await db.insertInto('parties').values({ user_id: userId, name: 'Shop' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('configurations')
    .values({ user_id: userId, key: 'manual-exchange-rates', type: 'string', value: JSON.stringify(JSON.stringify({ 'EUR-USD': 1.1 })) })
    .execute();
  // Every 5th row is income; one in three is in euros; times spread evenly over 3 years up to now.
  await sql`
    insert into transactions (user_id, wallet_id, type, amount, datetime, description, party_id)
    select ${userId}::bigint, case when i % 3 = 0 then ${euros}::bigint else ${dollars}::bigint end,
           case when i % 5 = 0 then 'income' else 'expense' end,
           (i % 10000 + 1) / 100.0,
           now() - (i::bigint * 3 * 365 * 1440 / ${ROWS}::int) * interval '1 minute',
           'bench ' || i, case when i % 4 = 0 then ${party.id}::bigint end
    from generate_series(1, ${ROWS}::int) as i`.execute(db);
  await sql`
    insert into transaction_categories (transaction_id, category_id, user_id)
    select id, case when type = 'income' then ${salary}::bigint else ${food}::bigint end, user_id
    from transactions where user_id = ${userId} and id % 2 = 0`.execute(db);
  await sql`vacuum analyze transactions`.execute(db);
  await sql`vacuum analyze transaction_categories`.execute(db);
}

/** A database only for this run, on the server of `serverUrl`. */
async function scratchDatabase(serverUrl: string) {
  const name = `finance_bench_stats_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
