// One way into the database for the whole service: PostgreSQL through `pg` when a URL is
// given, otherwise the embedded PGlite, run on a thread of its own and served on a loopback
// port, reached through the very same `pg` + Kysely path, so no query knows which one it runs on.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { poolKeepingPlans } from './kept-plans.js';
import type { EmbeddedReply, EmbeddedRequest, EmbeddedStart } from './embedded-worker.js';
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
  /** PostgreSQL: how long a query waits for a connection before failing (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/**
 * A database that does not answer fails a request within this bound (503, isDatabaseUnreachable)
 * rather than hold it open. It also bounds the wait for a free pooled connection, so it is far
 * above any wait a healthy pool makes.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

// numeric stays a string (exact money); bigint ids become numbers (they stay far below 2^53);
// timestamptz and date are parsed by pg into Date / kept as 'YYYY-MM-DD' strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.keepPlans ?? true, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
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
 *   the workers only compete for the same cores (docs/performance-history.md, "Parallel workers off").
 */
export const POSTGRES_SESSION_OPTIONS = '-c jit=off -c max_parallel_workers_per_gather=0';

async function openPostgres(connectionString: string, poolSize: number, keepPlans: boolean, connectTimeoutMs: number): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString, max: poolSize, options: POSTGRES_SESSION_OPTIONS, connectionTimeoutMillis: connectTimeoutMs });
  const db = kyselyOver(pool, keepPlans);
  return { db, kind: 'postgresql', connectionString, close: () => db.destroy() };
}

/** Network codes of a server that cannot be reached; SQLSTATE classes and codes of one that will not serve. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** The error says the database cannot be reached or will not serve now (not that a query is wrong): worth a 503 and a retry. */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  // pg's own words for a connection that timed out or dropped
  return /^(Connection terminated|timeout exceeded when trying to connect|timeout expired)/.test(error.message);
}

/**
 * The embedded database thread's script. Built (dist/), it is the .js file beside this one.
 * Run from the TypeScript sources through tsx (make dev, the scripts, a test run by tap), the
 * thread registers tsx before loading the .ts file: Node 20 does not carry a loader registered
 * with --import into worker threads.
 */
function embeddedWorkerScript(): [string | URL, { eval?: boolean }] {
  if (import.meta.filename.endsWith('.js')) return [new URL('./embedded-worker.js', import.meta.url), {}];
  const tsx = import.meta.resolve('tsx/esm/api');
  const script = new URL('./embedded-worker.ts', import.meta.url).href;
  return [`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`, { eval: true }];
}

async function openEmbedded(dataDir: string | undefined, poolSize: number, startFrom: Blob | undefined): Promise<DatabaseHandle> {
  let dataPath: string | undefined;
  if (dataDir) {
    dataPath = path.join(dataDir, 'pgdata');
    mkdirSync(dataPath, { recursive: true });
  }
  const tar = startFrom ? await startFrom.arrayBuffer() : undefined;
  // The engine runs on a thread of its own (embedded-worker.ts); a PostgreSQL deployment never loads it.
  const [script, evaluated] = embeddedWorkerScript();
  const worker = new Worker(script, {
    ...evaluated,
    workerData: { dataPath, startFrom: tar } satisfies EmbeddedStart,
    transferList: tar ? [tar] : [],
  });
  const pending = new Map<number, { resolve: (reply: EmbeddedReply) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const ask = (kind: EmbeddedRequest['kind']) =>
    new Promise<EmbeddedReply>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, kind } satisfies EmbeddedRequest);
    });
  let closing = false;
  const address = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    worker.on('message', (reply: EmbeddedReply) => {
      if (reply.kind === 'ready') resolve(reply);
      else if (reply.kind === 'failed') reject(new Error(`the embedded database did not start: ${reply.message}`));
      else {
        pending.get(reply.id)?.resolve(reply);
        pending.delete(reply.id);
      }
    });
    worker.once('error', reject);
    worker.on('exit', (code) => {
      reject(new Error(`the embedded database exited with code ${code} while starting`));
      for (const { reject: fail } of pending.values()) fail(new Error('the embedded database stopped'));
      pending.clear();
      if (!closing) console.error(`the embedded database stopped unexpectedly (code ${code})`);
    });
  });

  const connectionString = `postgres://postgres@${address.host}:${address.port}/postgres`;
  const pool = new pg.Pool({ connectionString, max: poolSize });
  const db = kyselyOver(pool);
  return {
    db,
    kind: 'embedded',
    connectionString,
    async dumpDataDir() {
      const reply = await ask('dump');
      if (reply.kind !== 'dumped') throw new Error(`dumping the embedded database failed: ${'message' in reply ? reply.message : reply.kind}`);
      return new Blob([reply.tar]);
    },
    async close() {
      if (closing) return;
      closing = true;
      await db.destroy();
      const reply = await ask('close');
      if (reply.kind !== 'closed') throw new Error(`closing the embedded database failed: ${'message' in reply ? reply.message : reply.kind}`);
    },
  };
}
