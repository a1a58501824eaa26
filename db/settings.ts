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

const CURRENCY_CODE = /^[A-Za-z]{3}$/;

/** A `default-currency` value as a currency code, USD when unset or not a code. */
export const currencyOf = (value: unknown): string => (typeof value === 'string' && CURRENCY_CODE.test(value.trim()) ? value.trim().toUpperCase() : 'USD');

/** The user's configuration `default-currency`, else USD. */
export async function targetCurrency(db: Kysely<Database>, userId: number): Promise<string> {
  return currencyOf(await settingOf(db, userId, 'default-currency'));
}
