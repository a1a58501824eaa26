// Queries on the users table. E-mail and username compare case-insensitively (their unique
// indexes are on lower(...)), phone exactly.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, UsersTable } from './schema.js';
import { settingOf } from './settings.js';

/** A user as the service handles it: every column but the password hash. */
export type UserRecord = Omit<Selectable<UsersTable>, 'password_hash'>;

export type UserIdentifier = { email: string } | { phone: string } | { username: string };

export function findUserForLogin(db: Kysely<Database>, identifier: UserIdentifier) {
  let query = db.selectFrom('users').selectAll();
  if ('email' in identifier) query = query.where(sql<string>`lower(email)`, '=', identifier.email.toLowerCase());
  else if ('phone' in identifier) query = query.where('phone', '=', identifier.phone);
  else query = query.where(sql<string>`lower(username)`, '=', identifier.username.toLowerCase());
  return query.executeTakeFirst();
}

/** Which of the unique fields are already taken by another account. */
export async function takenIdentityFields(
  db: Kysely<Database>,
  fields: { email: string; username?: string; phone?: string },
): Promise<Array<'email' | 'username' | 'phone'>> {
  const rows = await db
    .selectFrom('users')
    .select(['email', 'username', 'phone'])
    .where((eb) =>
      eb.or([
        eb(sql<string>`lower(email)`, '=', fields.email.toLowerCase()),
        ...(fields.username ? [eb(sql<string>`lower(username)`, '=', fields.username.toLowerCase())] : []),
        ...(fields.phone ? [eb('phone', '=', fields.phone)] : []),
      ]),
    )
    .execute();
  const taken = new Set<'email' | 'username' | 'phone'>();
  for (const row of rows) {
    if (row.email.toLowerCase() === fields.email.toLowerCase()) taken.add('email');
    if (fields.username && row.username?.toLowerCase() === fields.username.toLowerCase()) taken.add('username');
    if (fields.phone && row.phone === fields.phone) taken.add('phone');
  }
  return [...taken];
}

/** The user's `avatar` configuration entry, shown as `avatar_url`. */
export async function avatarOf(db: Kysely<Database>, userId: number): Promise<string | null> {
  const avatar = await settingOf(db, userId, 'avatar');
  return typeof avatar === 'string' ? avatar : null;
}

/**
 * Deletes the account in one transaction. Every user-owned table references users with
 * ON DELETE CASCADE, so the rows go with it, tokens included (so every token stops working).
 */
export async function deleteUserAndEverythingOwned(db: Kysely<Database>, userId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('users').where('id', '=', userId).execute();
  });
}
