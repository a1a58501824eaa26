// Reading one of a user's configuration entries, for code that depends on a setting
// (negative balances, time zone, avatar). The configurations endpoints own writing them.
import type { Kysely } from 'kysely';
import type { Database, JsonValue } from './schema.js';

/** The live value of the user's configuration `key`, or undefined when it is not set. */
export async function settingOf(db: Kysely<Database>, userId: number, key: string): Promise<JsonValue | undefined> {
  return (await settingsOf(db, userId, [key])).get(key);
}

/** The live values of several of the user's configuration entries in one statement (keys not set are absent). */
export async function settingsOf(db: Kysely<Database>, userId: number, keys: string[]): Promise<Map<string, JsonValue>> {
  const rows = await db
    .selectFrom('configurations')
    .select(['key', 'value'])
    .where('user_id', '=', userId)
    .where('key', 'in', keys)
    .where('deleted_at', 'is', null)
    .execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}
