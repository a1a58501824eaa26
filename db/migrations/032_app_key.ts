// 032 the key that signs tokens, kept in the database: without APP_KEY, every process of a
// deployment reads the one key here (db/app-key.ts), so a token one process issued is
// accepted by the others. One row at most (the check on `id`); the first process to start
// inserts it, the others find it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_key')
    .addColumn('id', 'smallint', (c) => c.primaryKey().defaultTo(1).check(sql`id = 1`))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_key').execute();
}
