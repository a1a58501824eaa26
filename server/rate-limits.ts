// Rate limits, per minute: the public account routes per IP and per e-mail
// (RATE_LIMIT_AUTH), authenticated routes per user (RATE_LIMIT_API), the other public routes
// (server info) per IP at RATE_LIMIT_API, so no route takes unlimited anonymous calls.
// Counting is @fastify/rate-limit's (in memory, or Redis when a client is given so several
// processes share counters); each limit is its own counter, so a request can be refused by either.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { Redis } from 'ioredis';
import type { OperationInfo } from '../generated/operations.js';
import type { Config } from './config.js';
import { HttpError } from './errors.js';

export interface RateLimits {
  forOperation(operation: OperationInfo): preHandlerAsyncHookHandler[];
  /** /mcp: the authenticated routes' per-user limit, one counter with them (a user's budget is one). */
  forMcp(): preHandlerAsyncHookHandler[];
  /**
   * The MCP OAuth endpoints (server/mcp-oauth.ts): registration and the token endpoint per IP at
   * RATE_LIMIT_API like the other public routes; the consent page's sign-in as the login is
   * limited (RATE_LIMIT_AUTH, per IP and per e-mail), with the same counters.
   */
  forMcpOAuth(kind: 'public' | 'sign-in'): preHandlerAsyncHookHandler[];
}

const MINUTE = 60_000;

function emailOf(request: FastifyRequest): string | undefined {
  const body = request.body as { email?: unknown; contact?: unknown } | undefined;
  // the verification-code routes name the address (or phone) `contact`: limited per contact
  const address = body?.email ?? body?.contact;
  return typeof address === 'string' ? address.trim().toLowerCase() : undefined;
}

export async function setupRateLimits(app: FastifyInstance, config: Config): Promise<RateLimits> {
  const redis = config.redisUrl ? new Redis(config.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1 }) : undefined;
  if (redis) {
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store (Redis) unavailable'));
    app.addHook('onClose', async () => void (await redis.quit()));
  }
  await app.register(rateLimit, { global: false, ...(redis ? { redis, nameSpace: config.redisKeyPrefix } : {}) });

  /** A preHandler that answers 429 (with Retry-After) once `key` used up `max` this minute. */
  const limit = (max: number, keyOf: (request: FastifyRequest) => string | undefined): preHandlerAsyncHookHandler => {
    const check = app.createRateLimit({
      max,
      timeWindow: MINUTE,
      keyGenerator: (request) => keyOf(request) ?? '',
      allowList: (request) => keyOf(request) === undefined,
      // A Redis outage must not take the API down with it: requests pass uncounted.
      skipOnError: true,
    });
    return async (request, reply) => {
      const outcome = await check(request);
      if (outcome.isAllowed || !outcome.isExceeded) return;
      reply.header('retry-after', String(outcome.ttlInSeconds));
      throw new HttpError(429, `Too many requests. Try again in ${outcome.ttlInSeconds} seconds.`);
    };
  };

  const authLimits =
    config.rateLimitAuth > 0
      ? [limit(config.rateLimitAuth, (r) => `auth-ip:${r.ip}`), limit(config.rateLimitAuth, (r) => (emailOf(r) ? `auth-email:${emailOf(r)}` : undefined))]
      : [];
  const apiLimits = config.rateLimitApi > 0 ? [limit(config.rateLimitApi, (r) => (r.user ? `api-user:${r.user.id}` : undefined))] : [];
  const publicLimits = config.rateLimitApi > 0 ? [limit(config.rateLimitApi, (r) => `public-ip:${r.ip}`)] : [];

  return {
    forOperation(operation) {
      if (!operation.public) return apiLimits;
      return operation.tag === 'Authentication' ? authLimits : publicLimits;
    },
    forMcp: () => apiLimits,
    forMcpOAuth: (kind) => (kind === 'sign-in' ? authLimits : publicLimits),
  };
}
