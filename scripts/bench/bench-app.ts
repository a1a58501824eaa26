// Plumbing shared by the benchmarks that need a seeded service: the measuring process spawns
// itself with `serve`, the child builds the app on a scratch database (PostgreSQL when
// DATABASE_URL is set, else embedded), seeds it, listens and prints one JSON line describing
// its target; the parent loads it with autocannon and stops the child with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type DatabaseHandle } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { scratchDatabase } from './seed-ledger.js';

export interface BenchApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  token: string;
  userId: number;
  /** Listens on a free port, prints `target` (plus the base URL) as the one stdout line, and cleans up on SIGTERM. */
  serve(target: { route: string } & Record<string, unknown>): Promise<void>;
}

/** In the child: the app on a scratch database with one registered user. */
export async function startBenchApp(name: string): Promise<BenchApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `finance-bench-${name}-`));
  const config = { ...loadConfig({ ...process.env, DATA_DIR: dataDir }), rateLimitAuth: 0, rateLimitApi: 0, logLevel: 'silent' as const };
  const scratch = config.databaseUrl ? await scratchDatabase(config.databaseUrl, `finance_bench_${name}`) : undefined;
  const database = await openDatabase({ databaseUrl: scratch?.url, dataDir: scratch ? undefined : dataDir });
  await migrateToLatest(database.db);
  const app = await buildApp({ config, database, logger: false });
  const registered = await app.inject({
    method: 'POST',
    url: '/api/register',
    payload: { email: `bench-${name}-${Date.now()}@example.test`, password: 'benchmark-password', first_name: 'Bench' },
  });
  const { token, user } = registered.json().data as { token: string; user: { id: number } };
  return {
    app,
    database,
    token,
    userId: user.id,
    async serve(target) {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      console.log(JSON.stringify({ ...target, url: `${address}${target.route}`, token, database: database.kind }));
      process.on('SIGTERM', async () => {
        await app.close();
        await database.close();
        await scratch?.drop();
        process.exit(0);
      });
    },
  };
}

export interface ServedTarget {
  url: string;
  token: string;
  database: string;
}

/** In the parent: runs `script serve` and waits for its target line. */
export async function spawnBenchServer<T extends ServedTarget>(script: string): Promise<{ target: T; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server ${path.basename(script)} exited with ${code}`)));
  });
  return { target: JSON.parse(line) as T, child };
}

/** GET load on the target; any non-2xx answer or error fails the benchmark. */
export async function loadTarget(target: ServedTarget, seconds: number, connections: number) {
  const result = await autocannon({ url: target.url, connections, duration: seconds, headers: { authorization: `Bearer ${target.token}` } });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

export const loadFigures = (result: autocannon.Result) =>
  `${result.requests.average.toFixed(1)} req/s   p50 ${result.latency.p50.toFixed(1)} ms   p99 ${result.latency.p99.toFixed(1)} ms`;
