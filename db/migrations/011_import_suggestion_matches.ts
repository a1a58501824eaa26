// 011 import suggestion matches: what analysis matched a suggestion to, kept on the row. The
// API shows `wallet_id`, `party_id` and `category_id` (the caller's records the suggestion's
// names matched) and `warnings` (problems the extractor met on the row); 005 kept only the
// names. The ids are owned foreign keys that go null when the record is hard-deleted.
// A partial index finds the sessions the analysis job has to (re)start every minute without
// scanning every session ever made.
import { sql, type Kysely } from 'kysely';
import { ownedFk } from './helpers.js';

const MATCHES = [
  ['wallet_id', 'wallets'],
  ['party_id', 'parties'],
  ['category_id', 'categories'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('import_suggestions')
    .addColumn('wallet_id', 'bigint')
    .addColumn('party_id', 'bigint')
    .addColumn('category_id', 'bigint')
    .addColumn('warnings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  for (const [column, table] of MATCHES) {
    await ownedFk(db, 'import_suggestions', column, table, 'set null');
    await db.schema
      .createIndex(`import_suggestions_${column}_idx`)
      .on('import_suggestions')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  await db.schema
    .createIndex('import_sessions_unfinished_idx')
    .on('import_sessions')
    .columns(['status', 'updated_at'])
    .where(sql.ref('status'), 'in', sql`('analyzing', 'extracting', 'enriching', 'checking')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('import_sessions_unfinished_idx').execute();
  await db.schema
    .alterTable('import_suggestions')
    .dropColumn('wallet_id')
    .dropColumn('party_id')
    .dropColumn('category_id')
    .dropColumn('warnings')
    .execute();
}
