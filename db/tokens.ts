// The token table: every access token is a row, so logout and password resets can revoke.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { PREPARE_ONCE } from './kept-plans.js';
import { syncHorizonExpression } from './sync-horizon.js';
import { USER_RECORD_COLUMNS } from './users.js';

export async function insertToken(db: Kysely<Database>, userId: number, jti: string, expiresAt: Date, name = 'api') {
  return db
    .insertInto('tokens')
    .values({ user_id: userId, jti, name, expires_at: expiresAt })
    .returning(['id', 'expires_at'])
    .executeTakeFirstOrThrow();
}

function liveTokenWithUser(db: Kysely<Database>, jti: string, now: Date, withHorizon: boolean) {
  return db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .leftJoin('user_versions', 'user_versions.user_id', 'tokens.user_id')
    .select(['tokens.id as tokenId', ...USER_RECORD_COLUMNS])
    // read with the user, before any page (server/conditional.ts): no round trip of its own
    .select((eb) => [
      eb.fn.coalesce('user_versions.version', eb.lit(0)).as('dataVersion'),
      'user_versions.changed_at as dataChangedAt',
      eb.selectFrom('shared_versions').select('version').where('name', '=', 'exchange_rates').as('ratesVersion'),
      // a feed's sync horizon, read before anything the request reads (db/sync-horizon.ts): no round trip of its own
      (withHorizon ? syncHorizonExpression() : sql<Date | null>`null`).as('syncHorizon'),
    ])
    .where('tokens.jti', '=', jti)
    .where('tokens.revoked_at', 'is', null)
    .where('tokens.expires_at', '>', now);
}

type LiveTokenWithUser = Awaited<ReturnType<ReturnType<typeof liveTokenWithUser>['executeTakeFirst']>>;

// Every authenticated request runs this statement: it is built and compiled once, with markers
// where the values go, instead of through Kysely's immutable builders on every request.
const JTI_MARK = '\u0000jti';
const NOW_MARK = new Date(0);
const liveTokenStatements = new Map<boolean, CompiledQuery>();

/**
 * The live token named by `jti` with its user, in one query; undefined when revoked or expired.
 * `withHorizon`: with the sync horizon too (`syncHorizon`; null without), for a request that reads a feed.
 */
export async function findLiveTokenWithUser(db: Kysely<Database>, jti: string, now: Date, withHorizon = false): Promise<LiveTokenWithUser> {
  let statement = liveTokenStatements.get(withHorizon);
  if (!statement) {
    const compiled = liveTokenWithUser(db, JTI_MARK, NOW_MARK, withHorizon).compile();
    // every request runs it: prepared once per connection (db/kept-plans.ts)
    liveTokenStatements.set(withHorizon, (statement = { ...compiled, sql: PREPARE_ONCE + compiled.sql }));
  }
  const parameters = statement.parameters.map((value) => (value === JTI_MARK ? jti : value === NOW_MARK ? now : value));
  const { rows } = await db.executeQuery<NonNullable<LiveTokenWithUser>>({ ...statement, parameters });
  return rows[0];
}

export async function revokeToken(db: Kysely<Database>, tokenId: number, now: Date) {
  await db.updateTable('tokens').set({ revoked_at: now }).where('id', '=', tokenId).where('revoked_at', 'is', null).execute();
}

export async function revokeAllTokens(db: Kysely<Database>, userId: number, now: Date) {
  await db.updateTable('tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
}
