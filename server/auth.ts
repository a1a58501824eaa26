// Bearer tokens: a JWT (HS256, signed with APP_KEY) whose `jti` names a row of the token
// table. A request is authenticated only when the signature, the expiry and the row agree.
import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { findLiveTokenWithUser, insertToken } from '../db/tokens.js';
import { unauthorized } from './errors.js';
import type { AuthUser } from './handler-types.js';

const ISSUER = 'finance-service';

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    appKey: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = new TextEncoder().encode(appKey);
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
      .sign(this.key);
    return { token, expiresAt };
  }

  /** The user behind an `Authorization: Bearer …` header, or a 401. */
  async authenticate(db: Kysely<Database>, header: string | undefined, now: Date): Promise<AuthUser> {
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw unauthorized();
    let jti: string | undefined;
    try {
      const { payload } = await jwtVerify(match[1], this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: now,
      });
      jti = payload.jti;
    } catch {
      throw unauthorized();
    }
    if (!jti) throw unauthorized();
    const row = await findLiveTokenWithUser(db, jti, now);
    if (!row) throw unauthorized();
    return row as AuthUser;
  }
}
