// The token table: every access token is a row, so logout and password resets can revoke.
import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { PREPARE_ONCE } from './kept-plans.js';
import { USER_RECORD_COLUMNS } from './users.js';

export async function insertToken(db: Kysely<Database>, userId: number, jti: string, expiresAt: Date, name = 'api') {
  return db
    .insertInto('tokens')
    .values({ user_id: userId, jti, name, expires_at: expiresAt })
    .returning(['id', 'expires_at'])
    .executeTakeFirstOrThrow();
}

function liveTokenWithUser(db: Kysely<Database>, jti: string, now: Date) {
  // an MCP token (migration 039) never authenticates an API request
  return liveRowWithUser(db, jti).where('tokens.kind', '=', 'api').where('tokens.expires_at', '>', now);
}

/** A token row named by `jti`, not revoked, with its user and what a request reads with it. */
function liveRowWithUser(db: Kysely<Database>, jti: string) {
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
    ])
    .where('tokens.jti', '=', jti)
    .where('tokens.revoked_at', 'is', null);
}

type LiveTokenWithUser = Awaited<ReturnType<ReturnType<typeof liveTokenWithUser>['executeTakeFirst']>>;

// Every authenticated request runs this statement: it is built and compiled once, with markers
// where the values go, instead of through Kysely's immutable builders on every request.
const JTI_MARK = '\u0000jti';
const NOW_MARK = new Date(0);
let liveTokenStatement: CompiledQuery | undefined;

/**
 * The live token named by `jti` with its user, in one query; undefined when revoked or expired.
 * It reads no sync horizon: that costs a scan of every backend's state (pg_stat_get_activity),
 * which a kept answer never needs, so a feed reads it only when it reads rows (db/feed.ts).
 */
export async function findLiveTokenWithUser(db: Kysely<Database>, jti: string, now: Date): Promise<LiveTokenWithUser> {
  let statement = liveTokenStatement;
  if (!statement) {
    const compiled = liveTokenWithUser(db, JTI_MARK, NOW_MARK).compile();
    // every request runs it: prepared once per connection (db/kept-plans.ts)
    liveTokenStatement = statement = { ...compiled, sql: PREPARE_ONCE + compiled.sql };
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

// ---- MCP tokens (migration 039): personal tokens of the MCP server, rows of kind 'mcp' ----

export async function insertMcpToken(db: Kysely<Database>, userId: number, jti: string, name: string, scopes: readonly string[]) {
  return db
    .insertInto('tokens')
    .values({ user_id: userId, jti, name, kind: 'mcp', scopes: scopes.join(' '), expires_at: null })
    .returning(['id', 'name', 'scopes'])
    .executeTakeFirstOrThrow();
}

/** The live MCP token named by `jti` with its user and scopes (an API token is not one); undefined when revoked. */
export async function findLiveMcpTokenWithUser(db: Kysely<Database>, jti: string, now: Date) {
  return liveRowWithUser(db, jti)
    .select(['tokens.scopes', 'tokens.last_used_at as tokenLastUsedAt'])
    .where('tokens.kind', '=', 'mcp')
    .where((eb) => eb.or([eb('tokens.expires_at', 'is', null), eb('tokens.expires_at', '>', now)]))
    .executeTakeFirst();
}

/** Stamps the token's last use, at most once a minute (a write per MCP request would be a write per tool call). */
export async function touchMcpToken(db: Kysely<Database>, tokenId: number, lastUsedAt: Date | null, now: Date): Promise<void> {
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < 60_000) return;
  await db.updateTable('tokens').set({ last_used_at: now }).where('id', '=', tokenId).execute();
}

/** The user's live MCP tokens, newest first. */
export async function listMcpTokens(db: Kysely<Database>, userId: number) {
  return db
    .selectFrom('tokens')
    .select(['id', 'name', 'scopes', 'last_used_at', 'created_at'])
    .where('user_id', '=', userId)
    .where('kind', '=', 'mcp')
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes the user's live MCP token `tokenId`; false when there is none such (another user's, an API token, revoked). */
export async function revokeMcpToken(db: Kysely<Database>, userId: number, tokenId: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('tokens')
    .set({ revoked_at: now })
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .where('kind', '=', 'mcp')
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
