// The MCP OAuth authorization server's rows (migration 044): registered clients, authorization
// codes, grants (rows of the token table of kind 'mcp' with oauth_client_id) and refresh tokens.
// Codes and refresh tokens are kept as their SHA-256 only; each is consumed by one conditional
// UPDATE, so two processes racing for one of them cannot both win.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface NewClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
}

export async function insertOauthClient(db: Kysely<Database>, client: NewClient) {
  return db
    .insertInto('mcp_oauth_clients')
    .values({ client_id: client.clientId, client_name: client.clientName, redirect_uris: JSON.stringify(client.redirectUris) })
    .returning(['client_id', 'client_name', 'redirect_uris', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function findOauthClient(db: Kysely<Database>, clientId: string) {
  const row = await db.selectFrom('mcp_oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  return row && { clientId: row.client_id, clientName: row.client_name, redirectUris: JSON.parse(row.redirect_uris) as string[] };
}

export type OauthClient = NonNullable<Awaited<ReturnType<typeof findOauthClient>>>;

export interface NewCode {
  codeHash: string;
  clientId: string;
  userId: number;
  redirectUri: string;
  codeChallenge: string;
  scopes: string;
  resource: string;
  expiresAt: Date;
}

/** Records a code; codes that expired a day ago go with it (they only serve to recognise a replay). */
export async function insertOauthCode(db: Kysely<Database>, code: NewCode, now: Date): Promise<void> {
  await db.deleteFrom('mcp_oauth_codes').where('expires_at', '<', new Date(now.getTime() - 86_400_000)).execute();
  await db
    .insertInto('mcp_oauth_codes')
    .values({
      code_hash: code.codeHash,
      client_id: code.clientId,
      user_id: code.userId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      scopes: code.scopes,
      resource: code.resource,
      expires_at: code.expiresAt,
    })
    .execute();
}

/** Marks the code used and returns it; undefined when there is none, or it was used before (`replayedGrant` then names the grant issued from it). */
export async function consumeOauthCode(db: Kysely<Database>, codeHash: string, now: Date) {
  const fresh = await db
    .updateTable('mcp_oauth_codes')
    .set({ used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (fresh) return { code: fresh };
  const used = await db.selectFrom('mcp_oauth_codes').select('token_id').where('code_hash', '=', codeHash).executeTakeFirst();
  return { code: undefined, replayedGrant: used?.token_id ?? null };
}

export async function linkCodeToGrant(db: Kysely<Database>, codeHash: string, tokenId: number): Promise<void> {
  await db.updateTable('mcp_oauth_codes').set({ token_id: tokenId }).where('code_hash', '=', codeHash).execute();
}

/** A grant: a token row of kind 'mcp' naming its client, listed with the personal MCP tokens. */
export async function insertGrant(db: Kysely<Database>, grant: { userId: number; jti: string; name: string; scopes: string; clientId: string }) {
  return db
    .insertInto('tokens')
    .values({ user_id: grant.userId, jti: grant.jti, name: grant.name, kind: 'mcp', scopes: grant.scopes, expires_at: null, oauth_client_id: grant.clientId })
    .returning(['id', 'jti'])
    .executeTakeFirstOrThrow();
}

/** Revokes a grant (its access tokens are refused at their next request, its refresh tokens at their next use). */
export async function revokeGrant(db: Kysely<Database>, tokenId: number, now: Date): Promise<void> {
  await db.updateTable('tokens').set({ revoked_at: now }).where('id', '=', tokenId).where('oauth_client_id', 'is not', null).where('revoked_at', 'is', null).execute();
}

export async function insertRefreshToken(db: Kysely<Database>, tokenHash: string, tokenId: number, expiresAt: Date): Promise<void> {
  await db.insertInto('mcp_oauth_refresh_tokens').values({ token_hash: tokenHash, token_id: tokenId, expires_at: expiresAt }).execute();
}

/** The refresh token with its grant (the token row) and the grant's user, whatever its state: the caller decides. */
export async function findRefreshToken(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('mcp_oauth_refresh_tokens as r')
    .innerJoin('tokens', 'tokens.id', 'r.token_id')
    .select(['r.token_id', 'r.expires_at', 'r.used_at', 'tokens.jti', 'tokens.scopes', 'tokens.oauth_client_id', 'tokens.revoked_at', 'tokens.user_id'])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks the refresh token used; false when another request used it first. */
export async function consumeRefreshToken(db: Kysely<Database>, tokenHash: string, tokenId: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('mcp_oauth_refresh_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  // the used ones of this grant are kept only to recognise a reuse; those expired are of no use
  await db.deleteFrom('mcp_oauth_refresh_tokens').where('token_id', '=', tokenId).where('expires_at', '<', now).execute();
  return result.numUpdatedRows > 0n;
}
