// The MCP OAuth token endpoint's two grants (docs/mcp.md, "OAuth"): an authorization code
// exchanged once, with its PKCE verifier, for a grant's first tokens; a refresh token rotated for
// new ones. A code presented twice, or a refresh token presented after its rotation, is taken for
// a stolen one: the grant issued from it is revoked, so every token of the family dies with it.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { consumeOauthCode, consumeRefreshToken, findRefreshToken, insertGrant, insertRefreshToken, linkCodeToGrant, revokeGrant, type OauthClient } from '../db/mcp-oauth.js';
import type { Database } from '../db/schema.js';
import type { AppServices } from './services.js';

/** An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): `error`, a description, the status. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly statusCode = 400,
  ) {
    super(description);
  }
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
/** 256 random bits, URL-safe: codes and refresh tokens. */
export const randomSecret = () => randomBytes(32).toString('base64url');
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const PKCE_TEXT = /^[A-Za-z0-9._~-]{43,128}$/;

/** The same URL however it was written (a trailing slash on the origin, the case of the host). */
export function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

export interface GrantContext {
  db: Kysely<Database>;
  services: AppServices;
  client: OauthClient;
  /** PUBLIC_URL/mcp: the one resource tokens are issued for. */
  resource: string;
  form: Record<string, string | undefined>;
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const required = (form: GrantContext['form'], name: string): string => {
  const value = form[name];
  if (!value) throw new OAuthError('invalid_request', `The ${name} parameter is required.`);
  return value;
};

function checkResource(ctx: GrantContext, boundTo: string): void {
  const asked = ctx.form.resource;
  if (asked !== undefined && !sameUrl(asked, boundTo)) throw new OAuthError('invalid_target', `Tokens are issued only for ${ctx.resource}.`);
}

/** grant_type=authorization_code */
export async function exchangeCode(ctx: GrantContext): Promise<TokenAnswer> {
  const code = required(ctx.form, 'code');
  const verifier = required(ctx.form, 'code_verifier');
  const redirectUri = required(ctx.form, 'redirect_uri');
  const now = ctx.services.now();
  const hash = sha256(code);
  const consumed = await consumeOauthCode(ctx.db, hash, now);
  if (!consumed.code) {
    if (consumed.replayedGrant !== null && consumed.replayedGrant !== undefined) {
      await revokeGrant(ctx.db, consumed.replayedGrant, now);
      throw new OAuthError('invalid_grant', 'The code was already used; the tokens issued from it are revoked.');
    }
    throw new OAuthError('invalid_grant', 'The code is not valid.');
  }
  const row = consumed.code;
  if (row.client_id !== ctx.client.clientId) throw new OAuthError('invalid_grant', 'The code was issued to another client.');
  if (row.expires_at.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'The code expired; sign in again.');
  if (row.redirect_uri !== redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri is not the one of the authorization request.');
  if (!PKCE_TEXT.test(verifier) || !equalText(sha256(verifier), row.code_challenge)) throw new OAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
  checkResource(ctx, row.resource);

  return ctx.db.transaction().execute(async (trx) => {
    const grant = await insertGrant(trx, { userId: row.user_id, jti: randomUUID(), name: `${ctx.client.clientName} (OAuth)`, scopes: row.scopes, clientId: ctx.client.clientId });
    await linkCodeToGrant(trx, hash, grant.id);
    return tokensFor(ctx, trx, { id: grant.id, jti: grant.jti, userId: row.user_id, scopes: row.scopes }, now);
  });
}

/** grant_type=refresh_token */
export async function refreshTokens(ctx: GrantContext): Promise<TokenAnswer> {
  const presented = required(ctx.form, 'refresh_token');
  const now = ctx.services.now();
  const hash = sha256(presented);
  const row = await findRefreshToken(ctx.db, hash);
  if (!row || row.oauth_client_id !== ctx.client.clientId) throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
  if (row.revoked_at) throw new OAuthError('invalid_grant', 'The access was revoked; sign in again.');
  if (row.expires_at.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'The refresh token expired; sign in again.');
  checkResource(ctx, ctx.resource);
  const granted = (row.scopes ?? '').split(' ');
  const asked = ctx.form.scope?.split(' ').filter(Boolean) ?? [];
  if (asked.some((scope) => !granted.includes(scope))) throw new OAuthError('invalid_scope', `The grant allows only: ${granted.join(' ')}.`);
  // a used one again, or another request rotating it at the same moment: a copy is in other hands
  if (row.used_at || !(await consumeRefreshToken(ctx.db, hash, row.token_id, now))) {
    await revokeGrant(ctx.db, row.token_id, now);
    throw new OAuthError('invalid_grant', 'The refresh token was already used; the access is revoked. Sign in again.');
  }
  return tokensFor(ctx, ctx.db, { id: row.token_id, jti: row.jti, userId: row.user_id, scopes: row.scopes ?? '' }, now);
}

async function tokensFor(ctx: GrantContext, db: Kysely<Database>, grant: { id: number; jti: string; userId: number; scopes: string }, now: Date): Promise<TokenAnswer> {
  const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = ctx.services.config.mcpOAuth;
  const refreshToken = randomSecret();
  await insertRefreshToken(db, sha256(refreshToken), grant.id, new Date(now.getTime() + refreshTokenTtlSeconds * 1000));
  const accessToken = await ctx.services.tokens.issueMcpAccess({ jti: grant.jti, userId: grant.userId, clientId: ctx.client.clientId }, ctx.resource, now, accessTokenTtlSeconds);
  return { access_token: accessToken, token_type: 'Bearer', expires_in: accessTokenTtlSeconds, refresh_token: refreshToken, scope: grant.scopes };
}

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
