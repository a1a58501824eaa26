// Test files start from a copy of a database migrated once (helpers/migrated-database.ts):
// the copy must be exactly what running the migrations produces, object by object and row
// by row, on the embedded database and on PostgreSQL.
import { sql, type Kysely } from 'kysely';
import t from 'tap';
import { openDatabase, type DatabaseHandle } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { dropDatabase, throwawayDatabase } from './helpers/migrated-database.js';

type Catalog = Record<string, unknown[]>;

const CATALOG_QUERIES: Record<string, string> = {
  extensions: `select extname, extversion from pg_extension order by 1`,
  relations: `select c.relname, c.relkind, c.reloptions::text, c.relpersistence from pg_class c
    where c.relnamespace = 'public'::regnamespace order by 1, 2`,
  columns: `select table_name, ordinal_position, column_name, data_type, udt_name, is_nullable, column_default,
      character_maximum_length, numeric_precision, numeric_scale, is_generated, generation_expression
    from information_schema.columns where table_schema = 'public' order by 1, 2`,
  constraints: `select conrelid::regclass::text as relation, conname, pg_get_constraintdef(oid) as definition
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
  indexes: `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2`,
  functions: `select proname, pg_get_function_identity_arguments(oid) as arguments, pg_get_functiondef(oid) as definition
    from pg_proc where pronamespace = 'public'::regnamespace and prokind in ('f', 'p') order by 1, 2`,
  triggers: `select tgrelid::regclass::text as relation, tgname, pg_get_triggerdef(oid) as definition
    from pg_trigger where not tgisinternal order by 1, 2`,
  views: `select viewname, definition from pg_views where schemaname = 'public' order by 1`,
  types: `select t.typname, t.typtype, array(select enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder)::text as labels
    from pg_type t where t.typnamespace = 'public'::regnamespace and t.typtype in ('e', 'd', 'c') and t.typrelid = 0 order by 1`,
  sequences: `select sequencename, data_type::text, start_value, increment_by, last_value from pg_sequences where schemaname = 'public' order by 1`,
  migrations: `select name from kysely_migration order by name`,
};

/** Every table's rows, digested (kysely's own bookkeeping is compared by name above: it records when each ran). */
async function tableContents(db: Kysely<any>): Promise<unknown[]> {
  const { rows: tables } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public'
    and tablename not in ('kysely_migration', 'kysely_migration_lock') order by 1`.execute(db);
  const contents = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ count: number; digest: string }>`select count(*)::int as count,
        md5(coalesce(string_agg(row_text, '|' order by row_text), '')) as digest
      from (select t::text as row_text from ${sql.table(name)} t) rows`.execute(db);
    contents.push({ table: name, ...rows[0] });
  }
  return contents;
}

async function catalogOf(database: DatabaseHandle): Promise<Catalog> {
  const catalog: Catalog = {};
  for (const [part, query] of Object.entries(CATALOG_QUERIES)) catalog[part] = (await sql.raw(query).execute(database.db)).rows;
  catalog.contents = await tableContents(database.db);
  return catalog;
}

/** A database brought up by running every migration, as a service's first start does. */
async function migratedFromScratch(): Promise<{ database: DatabaseHandle; drop: () => Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({});
    await migrateToLatest(database.db);
    return { database, drop: async () => {} };
  }
  const name = `finance_scratch_${process.pid}`;
  await dropDatabase(serverUrl, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = await openDatabase({ databaseUrl: serverUrl, poolSize: 1 });
  await sql.raw(`CREATE DATABASE ${name}`).execute(admin.db);
  await admin.close();
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
  await migrateToLatest(database.db);
  return { database, drop: () => dropDatabase(serverUrl, name) };
}

t.test('a copied database is exactly what the migrations produce', async (t) => {
  const scratch = await migratedFromScratch();
  const copy = await throwawayDatabase();
  t.teardown(async () => {
    await scratch.database.close();
    await scratch.drop();
    await copy.close();
    await copy.dropDatabase?.();
  });
  const [expected, actual] = [await catalogOf(scratch.database), await catalogOf(copy)];
  t.ok(expected.relations.length > 50 && expected.functions.length > 10 && expected.triggers.length > 10, 'the catalog compared is the real schema');
  t.equal(expected.migrations.length, 34, 'every migration ran');
  for (const part of Object.keys(expected)) t.same(actual[part], expected[part], part);

  // and a copy is a database of its own: what one file writes, no other copy sees
  await sql`create table written_by_one_copy (id int)`.execute(copy.db);
  const other = await throwawayDatabase();
  t.teardown(async () => {
    await other.close();
    await other.dropDatabase?.();
  });
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_tables where tablename = 'written_by_one_copy'`.execute(other.db);
  t.equal(rows[0].n, 0);
});
