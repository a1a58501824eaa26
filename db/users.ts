// Queries on the users table. E-mail and username compare case-insensitively (their unique
// indexes are on lower(...)), phone exactly.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, UsersTable } from './schema.js';
import { settingOf } from './settings.js';

/** A user as the service handles it: every column but the password hash. */
export type UserRecord = Omit<Selectable<UsersTable>, 'password_hash'>;

/** The columns of a UserRecord, for selects that join users. */
export const USER_RECORD_COLUMNS = [
  'users.id',
  'users.email',
  'users.first_name',
  'users.last_name',
  'users.username',
  'users.phone',
  'users.email_verified_at',
  'users.role',
  'users.created_at',
  'users.updated_at',
] as const;

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
 * Deletes the account inside the caller's transaction. Every user-owned table references
 * users with ON DELETE CASCADE, so the rows go with it, tokens included (so every token stops
 * working). Returns the storage keys of the account's files: their bytes are not rows, so
 * the caller removes them once the transaction has committed.
 */
export async function deleteUserAndEverythingOwned(trx: Transaction<Database>, userId: number): Promise<string[]> {
  // Locking the user first holds off new rows referencing it (their foreign-key check needs a
  // share lock on it), so no file can be added after its key was collected.
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  const files = await trx.deleteFrom('files').where('user_id', '=', userId).returning('path').execute();
  await trx.deleteFrom('users').where('id', '=', userId).execute();
  return files.map((file) => file.path);
}
