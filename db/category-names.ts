// Category names are unique per user among live categories, ignoring case, of either type. No
// unique index can say that and still let tombstones keep their names, so every check of a
// name and the write that follows it run under one advisory lock per user.
import { sql, type Transaction } from 'kysely';
import type { EntryType } from '../domain/ledger.js';
import type { Database } from './schema.js';
import { uniqueSlug } from './slugs.js';

/** Serialises the user's category-name checks with the writes that follow them (imports' wallet and party names use it too). */
export async function lockCategoryNames(trx: Transaction<Database>, userId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`categories:${userId}`}::text, 0))`.execute(trx);
}

/** The user's live category with this name (ignoring case; of either type), else a new one of `type`. */
export async function findOrCreateCategoryByName(trx: Transaction<Database>, userId: number, name: string, type: EntryType, now: Date): Promise<number> {
  await lockCategoryNames(trx, userId);
  const found = await trx
    .selectFrom('categories')
    .select('id')
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])))
    .orderBy('id')
    .executeTakeFirst();
  if (found) return found.id;
  const row = await trx
    .insertInto('categories')
    .values({ user_id: userId, name, slug: await uniqueSlug(trx, 'categories', userId, name), type, created_at: now, updated_at: now, last_synced_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
