// The token table: every access token is a row, so logout and password resets can revoke.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { USER_RECORD_COLUMNS } from './users.js';

export async function insertToken(db: Kysely<Database>, userId: number, jti: string, expiresAt: Date, name = 'api') {
  return db
    .insertInto('tokens')
    .values({ user_id: userId, jti, name, expires_at: expiresAt })
    .returning(['id', 'expires_at'])
    .executeTakeFirstOrThrow();
}

/** The live token named by `jti` with its user, in one query; undefined when revoked or expired. */
export function findLiveTokenWithUser(db: Kysely<Database>, jti: string, now: Date) {
  return db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['tokens.id as tokenId', ...USER_RECORD_COLUMNS])
    .where('tokens.jti', '=', jti)
    .where('tokens.revoked_at', 'is', null)
    .where('tokens.expires_at', '>', now)
    .executeTakeFirst();
}

export async function revokeToken(db: Kysely<Database>, tokenId: number, now: Date) {
  await db.updateTable('tokens').set({ revoked_at: now }).where('id', '=', tokenId).where('revoked_at', 'is', null).execute();
}

export async function revokeAllTokens(db: Kysely<Database>, userId: number, now: Date) {
  await db.updateTable('tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
}
