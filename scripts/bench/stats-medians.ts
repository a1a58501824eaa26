// In-process medians of GET /stats routes (app.inject, one request at a time) for the bench's
// main user on the bench PostgreSQL database, to compare code changes without the HTTP stack,
// and the CPU per request of the service and of the database backends (a second pass):
//   DATABASE_URL=postgres://… BENCH_DB_NAME=… npx tsx scripts/bench/stats-medians.ts [runs]
// STATS_ROUTES (comma list) may name any GET route; `{weekly}`, `{monthly}`, `{yearly}` or
// `{custom}` in a route stands for the main user's 50 seeded budgets of that period type, taken
// in turn request by request (as the bench's budgets part does):
//   STATS_ROUTES='/api/v1/budgets?limit=50,/api/v1/budgets/{yearly}/progress'
import { Kysely, PostgresDialect } from 'kysely';
import '../../db/connection.js'; // the app's type parsers
import { poolKeepingPlans } from '../../db/kept-plans.js';
import type { Database } from '../../db/schema.js';
import { buildApp } from '../../server/app.js';
import { benchConfig, seededBenchPool } from './bench-database.js';
import { processCpuMs } from './probes.js';
import { BENCH_PASSWORD } from './seed.js';

const runs = Number(process.argv[2] ?? 15);
const { pool, connectionString } = seededBenchPool(10, 'stats-medians');
// without kept answers: every request builds its answer
const config = { ...benchConfig(), responseCacheBytes: 0 };
// plans kept as the service keeps them (db/connection.ts); DATABASE_KEEP_PLANS=0 measures without
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: config.databaseKeepPlans ? poolKeepingPlans(pool) : pool }) });
const app = await buildApp({ config, database: { db, kind: 'postgresql', connectionString, close: () => db.destroy() }, logger: false });
const { rows } = await pool.query(`select seeded->>'email' as email, seeded->'budgets' as budgets from bench_seed where label = 'main'`);
const budgetIds = rows[0].budgets as Record<string, number[]>;
/** The route of request `i`: a `{period}` placeholder becomes that period type's budgets in turn. */
const routeAt = (route: string, i: number) => route.replace(/\{(\w+)\}/, (_, period: string) => String(budgetIds[period][i % budgetIds[period].length]));
const login = await app.inject({ method: 'POST', url: '/api/v1/login', payload: { email: rows[0].email, password: BENCH_PASSWORD } });
const headers = { authorization: `Bearer ${login.json().data.token as string}` };
const routes = (process.env.STATS_ROUTES ?? '/api/v1/stats,/api/v1/stats?preset=current_month,/api/v1/stats?preset=last_3_months,/api/v1/stats?preset=all_time,/api/v1/stats?period=day')
  .split(',');
/** CPU time (ms) of the database backends of this pool so far (/proc: the server must run on this machine). */
async function backendsCpuMs(): Promise<number> {
  const { rows: backends } = await pool.query(`select pid from pg_stat_activity where application_name = 'stats-medians'`);
  return backends.reduce((sum: number, { pid }: { pid: number }) => sum + processCpuMs(pid), 0);
}

for (const route of routes) {
  for (let i = 0; i < (route.includes('{') ? 50 : 1); i++) await app.inject({ method: 'GET', url: routeAt(route, i), headers });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: routeAt(route, i), headers });
    times.push(performance.now() - started);
    if (res.statusCode !== 200) throw new Error(`${route}: ${res.statusCode} ${res.body}`);
  }
  times.sort((a, b) => a - b);
  // CPU per request: this process (the service) and the database backends serving its pool
  const cpu = { service: process.cpuUsage(), database: await backendsCpuMs() };
  for (let i = 0; i < runs; i++) await app.inject({ method: 'GET', url: routeAt(route, i), headers });
  const service = process.cpuUsage(cpu.service);
  const database = (await backendsCpuMs()) - cpu.database;
  const perRequest = (ms: number) => (ms / runs).toFixed(1);
  console.log(
    `${route.padEnd(44)} median ${times[Math.floor(times.length / 2)].toFixed(1)} ms, min ${times[0].toFixed(1)}, max ${times.at(-1)!.toFixed(1)}; ` +
      `CPU per request: service ${perRequest((service.user + service.system) / 1000)} ms, database ${perRequest(database)} ms`,
  );
}
await app.close();
await db.destroy();
