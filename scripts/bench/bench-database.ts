// The persistent bench database and the app on it, shared by the bench server and the
// assistant bench: PostgreSQL database `finance_bench` (BENCH_DB_NAME) on DATABASE_URL's
// server, else an embedded data directory under BENCH_DATA_DIR; BENCH_RESEED=1 starts over.
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';

export async function openBenchApp() {
  const dataDir = process.env.BENCH_DATA_DIR ?? path.join(tmpdir(), 'finance-bench');
  mkdirSync(dataDir, { recursive: true });
  const config = { ...loadConfig({ ...process.env, DATA_DIR: dataDir }), rateLimitAuth: 0, rateLimitApi: 0, logLevel: 'silent' as const };
  const databaseUrl = config.databaseUrl ? await benchDatabase(config.databaseUrl) : undefined;
  const embeddedDir = path.join(dataDir, 'embedded');
  if (!databaseUrl && process.env.BENCH_RESEED === '1') rmSync(embeddedDir, { recursive: true, force: true });
  const database = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : embeddedDir, poolSize: 20 });
  await migrateToLatest(database.db);
  const app = await buildApp({ config, database, logger: false });
  return { app, database, databaseUrl, dataDir, config };
}

async function benchDatabase(serverUrl: string): Promise<string> {
  const name = process.env.BENCH_DB_NAME ?? 'finance_bench';
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (process.env.BENCH_RESEED === '1') await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
