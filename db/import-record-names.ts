// Parties found by exact name, or created: what an import does for a name that the user's
// records do not have yet (confirm's auto_create_parties, the CSV import). Wallets are in
// import-wallets.ts, categories in category-names.ts. Inside the caller's transaction.
import type { Transaction } from 'kysely';
import { lockCategoryNames } from './category-names.js';
import type { Database } from './schema.js';

const timestamps = (now: Date) => ({ created_at: now, updated_at: now, last_synced_at: now });

/**
 * The live party with this exact name, or a new one of `type`. A missing name is checked again
 * under the user's names lock (category-names.ts) before the insert: two imports at once make it once.
 */
export async function findOrCreateParty(trx: Transaction<Database>, userId: number, name: string, now: Date, type: Database['parties']['type'] = null): Promise<number> {
  const find = () =>
    trx.selectFrom('parties').select('id').where('user_id', '=', userId).where('name', '=', name).where('deleted_at', 'is', null).orderBy('id').executeTakeFirst();
  const found = await find();
  if (found) return found.id;
  await lockCategoryNames(trx, userId);
  const foundNow = await find();
  if (foundNow) return foundNow.id;
  const made = await trx.insertInto('parties').values({ user_id: userId, name, type, ...timestamps(now) }).returning('id').executeTakeFirstOrThrow();
  return made.id;
}

/**
 * findOrCreateParty for many names at once (an import's batch): the live parties with these
 * exact names, the missing ones created in one insert under the names lock; by name.
 */
export async function findOrCreateParties(trx: Transaction<Database>, userId: number, names: string[], now: Date): Promise<Map<string, number>> {
  const unique = [...new Set(names)];
  const found = new Map<string, number>();
  const find = async (wanted: string[]) => {
    if (wanted.length === 0) return;
    const rows = await trx.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('name', 'in', wanted).where('deleted_at', 'is', null).orderBy('id').execute();
    for (const row of rows) if (!found.has(row.name)) found.set(row.name, row.id);
  };
  await find(unique);
  if (found.size === unique.length) return found;
  await lockCategoryNames(trx, userId);
  await find(unique.filter((name) => !found.has(name)));
  const missing = unique.filter((name) => !found.has(name));
  if (missing.length > 0) {
    const made = await trx.insertInto('parties').values(missing.map((name) => ({ user_id: userId, name, type: null, ...timestamps(now) }))).returning(['id', 'name']).execute();
    for (const row of made) found.set(row.name, row.id);
  }
  return found;
}
