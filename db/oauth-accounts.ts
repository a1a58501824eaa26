// Social login records: the states handed out by GET /oauth/{driver}/login (single use, 10
// minutes) and the links between a provider's user id and an account (oauth_accounts).
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { seedNewAccount } from './account-defaults.js';
import { isUniqueViolation } from './errors.js';
import type { Database } from './schema.js';
import { revokeAllTokens } from './tokens.js';
import { USER_RECORD_COLUMNS, type UserRecord } from './users.js';

const hashOf = (state: string) => createHash('sha256').update(state).digest('hex');

/** Records `state` for `provider` until `expiresAt`; a state given again starts over. */
export async function rememberOAuthState(db: Kysely<Database>, provider: string, state: string, codeVerifier: string, expiresAt: Date, now: Date) {
  await db.deleteFrom('oauth_states').where('expires_at', '<=', now).execute();
  await db
    .insertInto('oauth_states')
    .values({ provider, state_hash: hashOf(state), code_verifier: codeVerifier, expires_at: expiresAt })
    .onConflict((oc) =>
      oc.columns(['provider', 'state_hash']).doUpdateSet({ code_verifier: codeVerifier, expires_at: expiresAt, created_at: now }),
    )
    .execute();
}

/** Uses up a live state: its PKCE code verifier, or undefined when unknown, expired or already used. */
export async function takeOAuthState(db: Kysely<Database>, provider: string, state: string, now: Date): Promise<string | undefined> {
  const row = await db
    .deleteFrom('oauth_states')
    .where('provider', '=', provider)
    .where('state_hash', '=', hashOf(state))
    .where('expires_at', '>', now)
    .returning('code_verifier')
    .executeTakeFirst();
  return row?.code_verifier;
}


/** The account already linked to this provider user, if any. */
export function findLinkedUser(db: Kysely<Database>, provider: string, providerUserId: string): Promise<UserRecord | undefined> {
  return db
    .selectFrom('oauth_accounts')
    .innerJoin('users', 'users.id', 'oauth_accounts.user_id')
    .select(USER_RECORD_COLUMNS)
    .where('oauth_accounts.provider', '=', provider)
    .where('oauth_accounts.provider_user_id', '=', providerUserId)
    .executeTakeFirst();
}

export interface NewOAuthUser {
  provider: string;
  providerUserId: string;
  /** An address the provider has verified. */
  email: string;
  firstName: string;
  lastName: string | null;
}

/**
 * The account with the verified e-mail address, linked to the provider user; or a new account
 * (no password, e-mail verified, seeded like a registration) when none has it. Returns whether
 * it was created. Two first logins racing for one address end with one account.
 */
export async function linkOrCreateUser(db: Kysely<Database>, identity: NewOAuthUser, now: Date): Promise<{ user: UserRecord; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('users')
          .select(USER_RECORD_COLUMNS)
          .where(sql<string>`lower(email)`, '=', identity.email.toLowerCase())
          .executeTakeFirst();
        const user = existing
          ? existing.email_verified_at === null
            ? await claimUnverifiedAccount(trx, existing.id, now)
            : existing
          : await insertUser(trx, identity, now);
        if (!existing) await seedNewAccount(trx, user.id);
        await link(trx, user.id, identity);
        return { user, created: !existing };
      });
    } catch (error) {
      if (attempt < 2 && isUniqueViolation(error, 'users_email_lower_key')) continue;
      throw error;
    }
  }
}

/** USER_RECORD_COLUMNS without the table prefix, for `returning`. */
const RECORD_COLUMNS = USER_RECORD_COLUMNS.map((column) => column.slice('users.'.length) as keyof UserRecord & string);

function insertUser(trx: Kysely<Database>, identity: NewOAuthUser, now: Date): Promise<UserRecord> {
  return trx
    .insertInto('users')
    .values({
      email: identity.email,
      first_name: identity.firstName,
      last_name: identity.lastName,
      password_hash: null,
      email_verified_at: now,
    })
    .returning(RECORD_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Someone may have registered the address before its owner without ever proving it (account
 * pre-hijacking). The provider has now proved who owns it: the owner takes the account over,
 * so the unproven password and every token issued with it stop working.
 */
async function claimUnverifiedAccount(trx: Kysely<Database>, userId: number, now: Date): Promise<UserRecord> {
  await revokeAllTokens(trx, userId, now);
  return trx
    .updateTable('users')
    .set({ password_hash: null, email_verified_at: now, updated_at: now })
    .where('id', '=', userId)
    .returning(RECORD_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Links the provider user to the account. An account keeps its first link per provider (a
 * second provider account with the same verified address still signs in, by e-mail).
 */
async function link(trx: Kysely<Database>, userId: number, identity: NewOAuthUser) {
  await trx
    .insertInto('oauth_accounts')
    .values({ user_id: userId, provider: identity.provider, provider_user_id: identity.providerUserId, email: identity.email })
    .onConflict((oc) => oc.doNothing())
    .execute();
}
