// One way into the database for the whole service: PostgreSQL through `pg` when a URL is
// given, otherwise the embedded PGlite served on a loopback port and reached through the very
// same `pg` + Kysely path, so no query knows which one it runs on.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { poolKeepingPlans } from './kept-plans.js';
import type { Database } from './schema.js';

export type DatabaseKind = 'postgresql' | 'embedded';

export interface DatabaseHandle {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /** A connection string other components (the job queue) can use. */
  connectionString: string;
  /** Embedded only: the data directory as an uncompressed tarball, the form `startFrom` takes. */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL URL; without it the embedded database is used. */
  databaseUrl?: string;
  /** Folder that keeps the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  /**
   * A dump of an embedded data directory (PGlite's dumpDataDir) that a new embedded database
   * starts from instead of an empty cluster: tests load a migrated one rather than run
   * initdb and every migration per file.
   */
  startFrom?: Blob;
  poolSize?: number;
  /** PostgreSQL: keep the plans of KEEP_PLAN statements per connection (db/kept-plans.ts); default on. */
  keepPlans?: boolean;
}

// numeric stays a string (exact money); bigint ids become numbers (they stay far below 2^53);
// timestamptz and date are parsed by pg into Date / kept as 'YYYY-MM-DD' strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.keepPlans ?? true);
  return openEmbedded(options.dataDir, options.poolSize ?? 10, options.startFrom);
}

function kyselyOver(pool: pg.Pool, keepPlans = false): Kysely<Database> {
  // An idle connection dropped by the server (restart, failover, a dropped test database)
  // is an event to log, not a crash: the pool replaces it on the next query.
  pool.on('error', (error) => console.error(`database connection lost: ${error.message}`));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: keepPlans ? poolKeepingPlans(pool) : pool }) });
}

/**
 * Settings of every session the service opens on PostgreSQL (scripts/bench uses them too).
 * - JIT off: the planner's estimate for a window aggregation over a large ledger crosses
 *   jit_above_cost, and compiling took ~930 ms of a 958 ms budget-progress query at 1M rows
 *   (EXPLAIN ANALYZE, PostgreSQL 15) whose execution alone took 30 ms.
 * - No parallel workers: a request's statements read a few hundred rows, but an estimate grown
 *   stale (summary tables written since their last analyze) made the planner start two workers
 *   for a 2 ms read of `GET /stats`; launching them took ~50 ms, and under concurrent requests
 *   the workers only compete for the same cores (docs/performance.md, "Parallel workers off").
 */
export const POSTGRES_SESSION_OPTIONS = '-c jit=off -c max_parallel_workers_per_gather=0';

async function openPostgres(connectionString: string, poolSize: number, keepPlans: boolean): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString, max: poolSize, options: POSTGRES_SESSION_OPTIONS });
  const db = kyselyOver(pool, keepPlans);
  return { db, kind: 'postgresql', connectionString, close: () => db.destroy() };
}

async function openEmbedded(dataDir: string | undefined, poolSize: number, startFrom: Blob | undefined): Promise<DatabaseHandle> {
  // Loaded lazily: a PostgreSQL deployment never pays for the embedded engine.
  const { PGlite } = await import('@electric-sql/pglite');
  // trigram indexes serve the transaction list's substring search (022)
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { serveEmbedded } = await import('./embedded-server.js');
  let dataPath: string | undefined;
  if (dataDir) {
    dataPath = path.join(dataDir, 'pgdata');
    mkdirSync(dataPath, { recursive: true });
  }
  const pglite = await PGlite.create(dataPath, { extensions: { pg_trgm }, loadDataDir: startFrom });
  const server = await serveEmbedded(pglite);
  const connectionString = `postgres://postgres@${server.host}:${server.port}/postgres`;
  const pool = new pg.Pool({ connectionString, max: poolSize });
  const db = kyselyOver(pool);
  return {
    db,
    kind: 'embedded',
    connectionString,
    dumpDataDir: () => pglite.dumpDataDir('none'),
    async close() {
      await db.destroy();
      await server.stop();
      await pglite.close();
    },
  };
}
