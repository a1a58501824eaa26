// Throughput of one, two and three service processes on one PostgreSQL database (docs/scaling.md):
// the built service (`npm run build` first) started as `node dist/server/main.js` children, each
// with its own data folder and no APP_KEY, and autocannon spreading a fixed number of
// connections over them: GET /v1/user (the baseline), a list page of 50 transactions, and a
// create. Prints a Markdown table. Run: DATABASE_URL=postgres://... npx tsx scripts/bench/fleet.ts
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 12);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL (a PostgreSQL server) is needed: the embedded database is one process');
if (!existsSync(path.join(ROOT, 'dist', 'server', 'main.js'))) throw new Error('build the service first: npm run build');

const name = 'finance_fleet_bench';
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`drop database if exists ${name} with (force)`);
await admin.query(`create database ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const databaseUrl = url.toString();
const database = await openDatabase({ databaseUrl });
await migrateToLatest(database.db);
await database.close();

interface Member {
  url: string;
  child: ChildProcess;
  dataDir: string;
}
let nextPort = 38_100;

async function startMember(): Promise<Member> {
  const port = nextPort++;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'finance-fleet-bench-'));
  const child = spawn(process.execPath, ['--max-old-space-size=192', path.join(ROOT, 'dist', 'server', 'main.js')], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_API: '0', RATE_LIMIT_AUTH: '0', RUN_JOBS: 'false', SHUTDOWN_DELAY: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let waited = 0; waited < 60_000; waited += 200) {
    if (await fetch(`${base}/api/health/ready`).then((r) => r.ok, () => false)) return { url: base, child, dataDir };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`a process did not get ready on ${base}`);
}

async function stopMember(member: Member): Promise<void> {
  const exited = new Promise((resolve) => member.child.once('exit', resolve));
  member.child.kill('SIGTERM');
  await exited;
  rmSync(member.dataDir, { recursive: true, force: true });
}

type Route = { label: string; method: 'GET' | 'POST'; path: string; body?: () => string };

/** Requests a second over every member at once, the connections spread evenly. */
async function throughput(members: Member[], route: Route, token: string): Promise<number> {
  const runs = members.map((member, i) =>
    autocannon({
      url: `${member.url}/api${route.path}`,
      method: route.method,
      connections: Math.floor(CONNECTIONS / members.length) + (i < CONNECTIONS % members.length ? 1 : 0),
      duration: SECONDS,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(route.body ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: route.body!() }) }] } : {}),
    }),
  );
  const results = await Promise.all(runs);
  const failed = results.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (failed > 0) console.error(`${route.label}: ${failed} requests failed: ${JSON.stringify(results.map((r) => r.statusCodeStats))}, errors ${results.map((r) => r.errors).join('+')}`);
  return results.reduce((sum, r) => sum + r.requests.average, 0);
}

const fleet: Member[] = [await startMember()];
const registered = await (
  await fetch(`${fleet[0]!.url}/api/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'fleet-bench@example.test', password: 'correct horse battery', first_name: 'Fleet', last_name: 'Bench' }) })
).json();
const token: string = registered.data.token;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const wallet: number = (await (await fetch(`${fleet[0]!.url}/api/v1/wallets`, { headers: auth })).json()).data.data[0].id;
for (let i = 0; i < 500; i++) {
  await fetch(`${fleet[0]!.url}/api/v1/transactions`, { method: 'POST', headers: auth, body: JSON.stringify({ type: 'expense', amount: 1 + (i % 50), wallet_id: wallet, description: `seed ${i}` }) });
}

const routes: Route[] = [
  { label: 'GET /v1/user', method: 'GET', path: '/v1/user' },
  { label: 'GET /v1/transactions?limit=50', method: 'GET', path: '/v1/transactions?page=1&limit=50' },
  { label: 'POST /v1/transactions', method: 'POST', path: '/v1/transactions', body: () => JSON.stringify({ type: 'income', amount: 2.5, wallet_id: wallet, client_id: `${randomUUID()}:${randomUUID()}` }) },
];
const table: Record<string, number[]> = Object.fromEntries(routes.map((r) => [r.label, []]));
for (let size = 1; size <= 3; size++) {
  while (fleet.length < size) fleet.push(await startMember());
  for (const route of routes) table[route.label]!.push(await throughput(fleet, route, token));
  console.error(`${size} process(es) measured`);
}
await Promise.all(fleet.map(stopMember));
await admin.query(`drop database if exists ${name} with (force)`);
await admin.end();

console.log(`| route (${CONNECTIONS} connections, ${SECONDS} s each) | 1 process | 2 processes | 3 processes |`);
console.log('|---|---|---|---|');
for (const [label, values] of Object.entries(table)) console.log(`| ${label} | ${values.map((v) => `${Math.round(v)} req/s`).join(' | ')} |`);
