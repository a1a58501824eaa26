// The signing key shared by every process of a deployment (table app_key, migration 032).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * The deployment's key: `candidate` becomes it when none is kept yet, else the kept one wins.
 * Processes starting at once each offer their own candidate; the insert lets one through and
 * every process reads back the same row.
 */
export async function keepFirstAppKey(db: Kysely<Database>, candidate: string): Promise<string> {
  await db.insertInto('app_key').values({ key: candidate }).onConflict((oc) => oc.column('id').doNothing()).execute();
  const row = await db.selectFrom('app_key').select('key').executeTakeFirstOrThrow();
  return row.key;
}
