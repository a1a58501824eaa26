// EXPLAIN (ANALYZE, BUFFERS) of every SQL statement a request runs, for the bench's main user on
// the bench PostgreSQL database (seeded by `make bench`):
//   DATABASE_URL=postgres://… npx tsx scripts/bench/explain.ts '/api/v1/stats?section=overview'
// Statements are captured through Kysely's query log while the request runs in-process, then
// each is explained on its own (write statements are skipped).
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import '../../db/connection.js'; // the app's type parsers (bigint as number, date as text)
import type { Database } from '../../db/schema.js';
import { buildApp } from '../../server/app.js';
import { benchConfig, seededBenchPool } from './bench-database.js';
import { BENCH_PASSWORD } from './seed.js';

const route = process.argv[2] ?? '/api/v1/stats';
const { pool, connectionString } = seededBenchPool(4);
const captured: CompiledQuery[] = [];
let capturing = false;
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool }),
  log: (event) => void (capturing && event.level === 'query' && captured.push(event.query)),
});
// without kept answers: the request below would be the warm-up's kept answer, no statement run
const app = await buildApp({ config: { ...benchConfig(), responseCacheBytes: 0 }, database: { db, kind: 'postgresql', connectionString, close: () => db.destroy() }, logger: process.env.BENCH_LOG === '1' });

const { rows } = await pool.query(`select seeded->>'email' as email from bench_seed where label = 'main'`);
const login = await app.inject({ method: 'POST', url: '/api/v1/login', payload: { email: rows[0].email, password: BENCH_PASSWORD } });
const token = login.json().data.token as string;
await app.inject({ method: 'GET', url: route, headers: { authorization: `Bearer ${token}` } }); // warm caches
capturing = true;
const started = performance.now();
const res = await app.inject({ method: 'GET', url: route, headers: { authorization: `Bearer ${token}` } });
capturing = false;
if (res.statusCode >= 400) console.log(res.body);
console.log(`${route}: ${res.statusCode} in ${(performance.now() - started).toFixed(1)} ms, ${captured.length} statements\n`);
for (const query of captured) {
  if (!/^\s*(select|with)/i.test(query.sql)) continue;
  const plan = await pool.query(`explain (analyze, buffers) ${query.sql}`, query.parameters as unknown[]);
  const total = plan.rows.at(-1)?.['QUERY PLAN'];
  console.log(`-- ${query.sql.replace(/\s+/g, ' ').slice(0, 160)}…\n-- ${total}`);
  for (const row of plan.rows) console.log(row['QUERY PLAN']);
  console.log();
}
await app.close();
await db.destroy();
