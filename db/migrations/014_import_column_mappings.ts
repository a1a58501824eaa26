// 014 import column mappings: the column mapping a user confirmed for a bank's CSV layout,
// keyed by the header's signature (its normalised column names), so the next export of the
// same bank is read with it without asking again (issue 11).
import { sql, type Kysely } from 'kysely';
import { withId, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(withUser(withId(db.schema.createTable('import_column_mappings'))))
    .addColumn('header_signature', 'text', (c) => c.notNull())
    .addColumn('mapping', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addUniqueConstraint('import_column_mappings_user_signature_key', ['user_id', 'header_signature'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_column_mappings').execute();
}
