// Child process of scripts/bench.ts: the full service on the persistent bench database
// (PostgreSQL database `finance_bench` on DATABASE_URL's server, else an embedded data
// directory), seeded when it lacks a user of the plan, and on the same database a bare
// fastify app: GET /bare/user runs the same SQL as GET /api/v1/user with no validation, auth
// or envelope code, and GET /bench/ledger?user= lists the user's wallets whose balance is off
// their ledger. Prints one JSON line (addresses, tokens, seeded users), then serves until SIGTERM.
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { findLiveTokenWithUser } from '../../db/tokens.js';
import { avatarOf } from '../../db/users.js';
import { buildApp } from '../../server/app.js';
import { JobRunner } from '../../server/jobs.js';
import { jobs } from '../../jobs/index.js';
import { loadConfig } from '../../server/config.js';
import { walletsOffLedger } from '../../test/helpers/ledger-invariant.js';
import { openBenchApp } from './bench-database.js';
import { startFloor } from './floor.js';
import { registerProbes } from './probes.js';
import { BENCH_PASSWORD, ensureSeeded, registerUser, type SeedPlan } from './seed.js';

const log = (line: string) => console.error(`[bench server] ${line}`);
const { app, database, databaseUrl, dataDir, config } = await openBenchApp();

const main = Number(process.env.BENCH_ROWS ?? (databaseUrl ? 1_000_000 : 100_000));
const plan: SeedPlan[] = [
  { label: 'main', rows: main },
  ...[10_000, 100_000].filter((rows) => rows < main).map((rows) => ({ label: `${rows / 1000}k`, rows })),
];
const seeded = await ensureSeeded(database.db, app, plan, log);
// Earlier runs' import and write parts added rows since the seed's `vacuum analyze`; a server
// with autovacuum off (this machine's CI server) would plan this run's reads from statistics
// that lag them (docs/performance-history.md, "Parallel workers off"), so each run starts analysed.
const analysing = performance.now();
await sql`analyze`.execute(database.db);
log(`analysed in ${((performance.now() - analysing) / 1000).toFixed(1)} s`);
const users = [];
for (const user of seeded) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/login', payload: { email: user.email, password: BENCH_PASSWORD } });
  if (res.statusCode !== 200) throw new Error(`login ${user.label}: ${res.statusCode} ${res.body}`);
  users.push({ ...user, token: res.json().data.token as string });
}
// Writes go to a fresh user each run, so the seeded ledgers stay as seeded.
const writer = await registerUser(app, 'writes');
const writerWallets = await database.db
  .insertInto('wallets')
  .values(['A', 'B'].map((name) => ({ user_id: writer.userId, name, slug: `bench-${name}`, type: 'bank', currency: 'USD', opening_balance: '1000000' })))
  .returning('id')
  .execute();
await database.db.updateTable('wallets').set({ balance: '1000000' }).where('id', 'in', writerWallets.map((w) => w.id)).execute();

// The import parts need the job queue (the upload's rows are written by its job), as the
// service runs it; the other parts measure requests without background work.
const parts = process.env.BENCH_ONLY?.split(',').map((part) => part.trim()) ?? ['import'];
const runner = parts.includes('import') || parts.includes('import-session') ? new JobRunner(database.connectionString, jobs, { db: database.db, services: app.services, log: app.log }) : undefined;
await runner?.start();
app.services.jobs.attach(runner);

const full = await app.listen({ port: 0, host: '127.0.0.1' });
// the same service without kept answers (what compression costs a page that is not kept), and the floor (issue 40)
const uncachedApp = await buildApp({ config: { ...config, responseCacheBytes: 0 }, database, logger: false });
const uncached = await uncachedApp.listen({ port: 0, host: '127.0.0.1' });
const floor = database.kind === 'postgresql' ? await startFloor(database.connectionString, users[0].userId) : undefined;
const bare = Fastify({ logger: false });
const jti = decodeJwt(users[0].token).jti!;
bare.get('/bare/user', async () => {
  const user = await findLiveTokenWithUser(database.db, jti, new Date());
  return { success: true, message: 'Operation successful', data: { ...user, avatar_url: await avatarOf(database.db, user!.id) } };
});
bare.get<{ Querystring: { user: string } }>('/bench/ledger', async (request) => walletsOffLedger({ db: database.db } as never, Number(request.query.user)));
bare.get<{ Querystring: { user: string; after: string } }>('/bench/changed-since', async (request) => {
  // the updated_at from which exactly `after` rows of the user changed (for the sync pull)
  const row = await database.db
    .selectFrom('transactions')
    .select('updated_at')
    .where('user_id', '=', Number(request.query.user))
    .orderBy('updated_at', 'desc')
    .offset(Number(request.query.after))
    .limit(1)
    .executeTakeFirst();
  return { since: row?.updated_at ?? null };
});
// the service's live heap after a full collection (the child runs with --expose-gc): what a run retained
bare.get('/bench/heap', async () => {
  (globalThis as { gc?: () => void }).gc?.();
  return { heapMb: process.memoryUsage().heapUsed / 1048576 };
});
registerProbes(bare, database.db);
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

console.log(
  JSON.stringify({
    full,
    pid: process.pid,
    bare: bareUrl,
    uncached,
    floor: floor?.url,
    database: database.kind,
    users,
    writer: { ...writer, wallets: writerWallets.map((w) => Number(w.id)) },
  }),
);
process.on('SIGTERM', async () => {
  await app.close();
  await uncachedApp.close();
  await floor?.close();
  await runner?.stop();
  await bare.close();
  await database.close();
  process.exit(0);
});

/** The persistent bench database on the server of `serverUrl` (created when missing; BENCH_RESEED=1 drops it first). */
