// The CSV column mapping each user last confirmed per header signature (migration 014): the
// next export with the same columns is read with it, without asking again.
import type { Kysely } from 'kysely';
import type { CsvReadingOverride } from '../domain/statements/csv-statement.js';
import type { Database } from './schema.js';

export async function rememberedMapping(db: Kysely<Database>, userId: number, signature: string): Promise<CsvReadingOverride | undefined> {
  const row = await db
    .selectFrom('import_column_mappings')
    .select('mapping')
    .where('user_id', '=', userId)
    .where('header_signature', '=', signature)
    .executeTakeFirst();
  return row?.mapping as CsvReadingOverride | undefined;
}

export async function rememberMapping(db: Kysely<Database>, userId: number, signature: string, mapping: CsvReadingOverride, now: Date): Promise<void> {
  const value = JSON.stringify(mapping);
  await db
    .insertInto('import_column_mappings')
    .values({ user_id: userId, header_signature: signature, mapping: value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.constraint('import_column_mappings_user_signature_key').doUpdateSet({ mapping: value, updated_at: now }))
    .execute();
}
