// A migrated database for each test file without running every migration per file. The
// migrated schema is built once for each content of the migrations and copied per file:
// - embedded: a dump of a migrated PGlite data directory, kept in .tap/templates/ and loaded
//   by each file's in-memory PGlite (initdb and 31 migrations took ~8 s per file);
// - PostgreSQL: a template database, copied by CREATE DATABASE ... TEMPLATE.
// scripts/test.ts builds both before a run; a file run on its own builds what is missing.
// test/migrated-copy.test.ts checks that a copy is exactly what the migrations produce.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { PROJECT_ROOT } from './project.js';

const ROOT = PROJECT_ROOT;
const TEMPLATE_DIR = path.join(ROOT, '.tap', 'templates');
const TEMPLATE_PREFIX = 'finance_template_';

/** Names the migrated schema: the migrations' sources, the migrator and the embedded engine's version. */
export const MIGRATIONS_DIGEST = (() => {
  const hash = createHash('sha256');
  const migrationsDir = path.join(ROOT, 'db', 'migrations');
  const files = readdirSync(migrationsDir).sort().map((name) => path.join(migrationsDir, name));
  for (const file of [...files, path.join(ROOT, 'db', 'migrate.ts'), path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
})();

export type ThrowawayDatabase = DatabaseHandle & { dropDatabase?: () => Promise<void> };

/** A database that exists only for the caller: migrated, empty, and gone after `close`/`dropDatabase`. */
export async function throwawayDatabase(options: { poolSize?: number } = {}): Promise<ThrowawayDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ startFrom: await embeddedTemplate(), poolSize: options.poolSize });
  const name = `finance_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await createFromTemplate(serverUrl, name);
  const handle = await openDatabase({ databaseUrl: databaseUrl(serverUrl, name), poolSize: options.poolSize ?? 5 });
  return { ...handle, dropDatabase: () => dropDatabase(serverUrl, name) };
}

// ---- embedded ----------------------------------------------------------------------------

let embeddedDump: Promise<Blob> | undefined;

/** The migrated embedded data directory as a tarball, built on the first call of this digest. */
export function embeddedTemplate(): Promise<Blob> {
  return (embeddedDump ??= (async () => {
    const file = path.join(TEMPLATE_DIR, `embedded-${MIGRATIONS_DIGEST}.tar`);
    if (!existsSync(file)) await buildEmbeddedTemplate(file);
    return new Blob([readFileSync(file)]);
  })());
}

async function buildEmbeddedTemplate(file: string): Promise<void> {
  const database = await openDatabase({});
  try {
    await migrateToLatest(database.db);
    // A checkpoint first: a dump of unflushed work makes every copy replay the WAL when it
    // starts ("not properly shut down; automatic recovery"), ~1 s more per test file.
    await sql`checkpoint`.execute(database.db);
    const dump = await database.dumpDataDir!();
    mkdirSync(TEMPLATE_DIR, { recursive: true });
    // Written aside and renamed: a file running at the same time reads a whole dump or none.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    await database.close();
  }
  for (const old of readdirSync(TEMPLATE_DIR)) {
    if (old.startsWith('embedded-') && !old.includes(MIGRATIONS_DIGEST)) rmSync(path.join(TEMPLATE_DIR, old), { force: true });
  }
}

// ---- PostgreSQL --------------------------------------------------------------------------

export const POSTGRES_TEMPLATE = `${TEMPLATE_PREFIX}${MIGRATIONS_DIGEST}`;

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(serverUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * The template database of this digest, built if missing. Builders take an advisory lock, so
 * of several test processes starting at once one migrates and the others wait for it; a
 * template is marked IS_TEMPLATE only once migrated, so a half-built one is never copied.
 */
export async function postgresTemplate(serverUrl: string): Promise<string> {
  await onServer(serverUrl, async (client) => {
    const ready = async () =>
      (await client.query<{ ready: boolean }>('select datistemplate as ready from pg_database where datname = $1', [POSTGRES_TEMPLATE])).rows[0]?.ready === true;
    if (await ready()) return;
    await client.query(`select pg_advisory_lock(hashtext('${TEMPLATE_PREFIX}'))`);
    try {
      if (await ready()) return;
      await client.query(`DROP DATABASE IF EXISTS ${POSTGRES_TEMPLATE} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${POSTGRES_TEMPLATE}`);
      const database = await openDatabase({ databaseUrl: databaseUrl(serverUrl, POSTGRES_TEMPLATE), poolSize: 1 });
      try {
        await migrateToLatest(database.db);
      } finally {
        await database.close();
      }
      // No connections to a template: CREATE DATABASE refuses to copy one that has any.
      await client.query(`ALTER DATABASE ${POSTGRES_TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
      // Templates of migrations that are gone (this checkout's older states) go too.
      const stale = await client.query<{ datname: string }>(`select datname from pg_database where datname like '${TEMPLATE_PREFIX}%' and datname <> $1`, [POSTGRES_TEMPLATE]);
      for (const { datname } of stale.rows) {
        await client.query(`ALTER DATABASE ${datname} WITH IS_TEMPLATE false`);
        await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
      }
    } finally {
      await client.query(`select pg_advisory_unlock(hashtext('${TEMPLATE_PREFIX}'))`);
    }
  });
  return POSTGRES_TEMPLATE;
}

/** A new database copied from the template (built first if missing or dropped meanwhile). */
export async function createFromTemplate(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const template = await postgresTemplate(serverUrl);
    try {
      await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
      return;
    } catch (error) {
      // 3D000: the template was dropped since it was checked (another checkout's run rebuilt its own)
      if ((error as { code?: string }).code !== '3D000' || attempt > 2) throw error;
    }
  }
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
