// The persistent bench database and the app on it, shared by the bench server and the
// assistant bench: PostgreSQL database `finance_bench` (BENCH_DB_NAME) on DATABASE_URL's
// server, else an embedded data directory under BENCH_DATA_DIR; BENCH_RESEED=1 starts over.
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, POSTGRES_SESSION_OPTIONS } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';

const BENCH_DB_NAME = process.env.BENCH_DB_NAME ?? 'finance_bench';

/** The service's configuration from the environment, without rate limits or logs. */
export function benchConfig(dataDir = path.join(tmpdir(), 'finance-bench')) {
  return { ...loadConfig({ ...process.env, DATA_DIR: dataDir }), rateLimitAuth: 0, rateLimitApi: 0, logLevel: 'silent' as const };
}

/** The bench database's address on the server of `serverUrl`. */
function benchDatabaseUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DB_NAME}`;
  return url.toString();
}

/**
 * A pool on the seeded bench database (DATABASE_URL's server) whose sessions are set as the
 * service's, for the tools that measure statements in-process (explain, stats-medians).
 */
export function seededBenchPool(max: number, applicationName?: string): { pool: pg.Pool; connectionString: string } {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL: the PostgreSQL server holding the bench database');
  const connectionString = benchDatabaseUrl(serverUrl);
  const pool = new pg.Pool({ connectionString, max, options: POSTGRES_SESSION_OPTIONS, application_name: applicationName });
  return { pool, connectionString };
}

/** `overrides`: e.g. `responseCacheBytes: 0` for the tools that measure what building a page costs (a kept answer would be measured instead). */
export async function openBenchApp(overrides: Partial<ReturnType<typeof benchConfig>> = {}) {
  const dataDir = process.env.BENCH_DATA_DIR ?? path.join(tmpdir(), 'finance-bench');
  mkdirSync(dataDir, { recursive: true });
  const config = { ...benchConfig(dataDir), ...overrides };
  const databaseUrl = config.databaseUrl ? await benchDatabase(config.databaseUrl) : undefined;
  const embeddedDir = path.join(dataDir, 'embedded');
  if (!databaseUrl && process.env.BENCH_RESEED === '1') rmSync(embeddedDir, { recursive: true, force: true });
  const database = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : embeddedDir, poolSize: 20 });
  await migrateToLatest(database.db);
  // BENCH_LOG_LEVEL=info logs as the deployed service does (to /dev/null: pino's cost, not a terminal's)
  const level = process.env.BENCH_LOG_LEVEL;
  const app = await buildApp({ config, database, logger: level ? { level, stream: createWriteStream('/dev/null') } : false });
  // settled before any request, as server/main.ts does: made lazily inside the first register's
  // transaction it would wait, on the embedded database, for the connection that transaction holds
  await app.services.appKey();
  return { app, database, databaseUrl, dataDir, config };
}

async function benchDatabase(serverUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (process.env.BENCH_RESEED === '1') await admin.query(`DROP DATABASE IF EXISTS ${BENCH_DB_NAME} WITH (FORCE)`);
  const exists = await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB_NAME]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${BENCH_DB_NAME}`);
  await admin.end();
  return benchDatabaseUrl(serverUrl);
}
