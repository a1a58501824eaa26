// Bearer tokens: a JWT (HS256, signed with APP_KEY) whose `jti` names a row of the token
// table. A request is authenticated only when the signature, the expiry and the row agree.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.js';
import { findLiveMcpTokenWithUser, findLiveTokenWithUser, insertMcpToken, insertToken, touchMcpToken } from '../db/tokens.js';
import { unauthorized } from './errors.js';
import type { AuthUser } from './handler-types.js';

const ISSUER = 'finance-service';
/** The audience of MCP tokens: an API request's check (which wants an expiry, and an 'api' row) never accepts one. */
export const MCP_AUDIENCE = 'mcp';

/** What an MCP token may do (McpScope in the spec). */
export type McpScope = 'read' | 'write';

/** The user behind an MCP token, with the token's scopes. */
export type McpUser = AuthUser & { scopes: ReadonlySet<McpScope> };

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

/** What a verified signature told us; the token row is still checked on every request. */
interface VerifiedClaims {
  jti: string;
  expiresAtMs: number;
}

export class TokenService {
  private key: CryptoKey | undefined;
  // Checking an HMAC costs ~150 µs; a token's claims never change, so each is checked once.
  private readonly verified = new LRUCache<string, VerifiedClaims>({ max: 10_000 });

  /** `appKey` settles the key on first use (server/app-key.ts): from APP_KEY, or the database. */
  constructor(
    private readonly appKey: () => Promise<string>,
    private readonly ttlSeconds: number,
  ) {}

  /** The HMAC key, imported once instead of on every sign and verify. */
  private async hmacKey(): Promise<CryptoKey> {
    this.key ??= await crypto.subtle.importKey('raw', new TextEncoder().encode(await this.appKey()), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    return this.key;
  }

  async issue(db: Kysely<Database>, userId: number, now: Date): Promise<IssuedToken> {
    const jti = randomUUID();
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    await insertToken(db, userId, jti, expiresAt);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(String(userId))
      .setJti(jti)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(await this.hmacKey());
    return { token, expiresAt };
  }

  /** The user behind an `Authorization: Bearer …` header, or a 401. */
  async authenticate(db: Kysely<Database>, header: string | undefined, now: Date): Promise<AuthUser> {
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw unauthorized();
    const claims = await this.verify(match[1], now);
    if (!claims || claims.expiresAtMs <= now.getTime()) throw unauthorized();
    const row = await findLiveTokenWithUser(db, claims.jti, now);
    if (!row) throw unauthorized();
    return row;
  }

  /** A personal MCP token: a JWT for audience `mcp` without expiry, naming a row of kind 'mcp'. */
  async issueMcp(db: Kysely<Database>, userId: number, name: string, scopes: readonly McpScope[], now: Date) {
    const jti = randomUUID();
    const row = await insertMcpToken(db, userId, jti, name, scopes);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(MCP_AUDIENCE)
      .setSubject(String(userId))
      .setJti(jti)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .sign(await this.hmacKey());
    return { id: row.id, name: row.name, token, scopes: [...scopes] };
  }

  /**
   * An OAuth access token for /mcp (docs/mcp.md, "OAuth"): a JWT for the audience `resource`
   * (RFC 8707: PUBLIC_URL/mcp) naming its grant's row, with a short expiry. The row is checked on
   * every request as a personal token's is, so revoking the grant refuses it at once.
   */
  async issueMcpAccess(grant: { jti: string; userId: number; clientId: string }, resource: string, now: Date, ttlSeconds: number): Promise<string> {
    return new SignJWT({ client_id: grant.clientId })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(resource)
      .setSubject(String(grant.userId))
      .setJti(grant.jti)
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(now.getTime() / 1000) + ttlSeconds)
      .sign(await this.hmacKey());
  }

  /**
   * The user behind an MCP token (`Authorization: Bearer …` at /mcp), or undefined: an API token
   * is not one. `resource` (PUBLIC_URL/mcp) is the audience OAuth access tokens must name.
   */
  async authenticateMcp(db: Kysely<Database>, header: string | undefined, now: Date, resource?: string): Promise<McpUser | undefined> {
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) return undefined;
    const jti = await this.verifyMcp(match[1], now, resource);
    if (!jti) return undefined;
    const row = await findLiveMcpTokenWithUser(db, jti, now);
    if (!row) return undefined;
    const { scopes, tokenLastUsedAt, ...user } = row;
    await touchMcpToken(db, user.tokenId, tokenLastUsedAt, now);
    return { ...user, scopes: new Set((scopes ?? '').split(' ').filter((s): s is McpScope => s === 'read' || s === 'write')) };
  }

  /** Verified MCP tokens: the row's jti and, for OAuth access tokens, when they expire. */
  private readonly verifiedMcp = new LRUCache<string, { jti: string; expiresAtMs: number | undefined; audience: string }>({ max: 1_000 });

  private async verifyMcp(token: string, now: Date, resource: string | undefined): Promise<string | undefined> {
    const known = this.verifiedMcp.get(token);
    if (known) {
      const live = (known.expiresAtMs === undefined || known.expiresAtMs > now.getTime()) && (known.audience === MCP_AUDIENCE || known.audience === resource);
      return live ? known.jti : undefined;
    }
    try {
      const audience = resource ? [MCP_AUDIENCE, resource] : MCP_AUDIENCE;
      const { payload } = await jwtVerify(token, await this.hmacKey(), { algorithms: ['HS256'], issuer: ISSUER, audience, currentDate: now });
      if (!payload.jti) return undefined;
      const tokenAudience = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
      // a personal token never expires; an OAuth access token must (a leaked one dies on its own)
      if (tokenAudience !== MCP_AUDIENCE && payload.exp === undefined) return undefined;
      this.verifiedMcp.set(token, { jti: payload.jti, expiresAtMs: payload.exp === undefined ? undefined : payload.exp * 1000, audience: tokenAudience ?? '' });
      return payload.jti;
    } catch {
      return undefined;
    }
  }

  private async verify(token: string, now: Date): Promise<VerifiedClaims | undefined> {
    const known = this.verified.get(token);
    if (known) return known;
    try {
      const { payload } = await jwtVerify(token, await this.hmacKey(), { algorithms: ['HS256'], issuer: ISSUER, currentDate: now });
      // an MCP token (audience mcp, no expiry) is not an API token
      if (!payload.jti || payload.exp === undefined || payload.aud !== undefined) return undefined;
      const claims = { jti: payload.jti, expiresAtMs: payload.exp * 1000 };
      this.verified.set(token, claims);
      return claims;
    } catch {
      return undefined;
    }
  }
}
