// A process's life as a load balancer sees it, behind GET /health/live and /health/ready:
// - starting: listening while the database is migrated and the signing key settled; liveness
//   answers (a long migration is not mistaken for a hung process), readiness and every other
//   operation answer 503, so nothing reaches a half-migrated schema;
// - serving: ready while the database answers within READINESS_TIMEOUT_MS;
// - draining: from the shutdown signal on, readiness answers 503 so balancers stop sending,
//   while requests still arriving are served; after SHUTDOWN_DELAY the server closes and
//   waits for the requests in flight (drainAndClose).
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { HttpError } from './errors.js';

export type Phase = 'starting' | 'serving' | 'draining';

/** The operations that answer in every phase: the balancer's probes. */
export const HEALTH_OPERATIONS: ReadonlySet<string> = new Set(['getLiveness', 'getReadiness']);

/** Seconds a balancer or client is told to wait before asking again. */
const RETRY_AFTER_SECONDS = '5';

export const notReady = (message: string) => new HttpError(503, message, undefined, { 'retry-after': RETRY_AFTER_SECONDS });

export class Lifecycle {
  private ping: Promise<void> | undefined;

  constructor(
    private current: Phase = 'serving',
    private readonly timeoutMs = 2000,
  ) {}

  get phase(): Phase {
    return this.current;
  }

  /** Migrated and keyed: requests may come. */
  serve(): void {
    if (this.current === 'starting') this.current = 'serving';
  }

  /** The shutdown signal arrived: readiness turns false at once, for good. */
  drain(): void {
    this.current = 'draining';
  }

  /** Why this process should get no traffic now, or undefined when it is ready. */
  async unreadyReason(db: Kysely<Database>): Promise<string | undefined> {
    if (this.current === 'starting') return 'The service is starting: the database is being migrated.';
    if (this.current === 'draining') return 'The service is shutting down.';
    return this.databaseProblem(db);
  }

  /**
   * The database answers a trivial query within the bound. Checks arriving together share one
   * query, so a flood of probes costs one connection; a query past the bound is abandoned, so
   * a database that comes back is seen by the next check.
   */
  private async databaseProblem(db: Kysely<Database>): Promise<string | undefined> {
    const ping = (this.ping ??= sql`select 1`.execute(db).then(() => undefined));
    const timeout = new AbortController();
    try {
      const outcome = await Promise.race([
        ping.then(() => 'answered' as const, () => 'failed' as const),
        delay(this.timeoutMs, 'timed out' as const, { signal: timeout.signal }),
      ]);
      if (outcome === 'answered') return undefined;
      return outcome === 'failed' ? 'The database cannot be reached.' : `The database did not answer within ${this.timeoutMs} ms.`;
    } finally {
      timeout.abort();
      if (this.ping === ping) this.ping = undefined;
    }
  }
}

/** While starting, every operation but the health checks answers 503 in the envelope. */
export function holdRequestsWhileStarting(app: FastifyInstance, lifecycle: Lifecycle, exempt: ReadonlySet<string>): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const operationId = request.routeOptions.config.operationId;
    if (lifecycle.phase !== 'starting' || !operationId || exempt.has(operationId)) return done();
    done(notReady('The service is starting. Try again in a few seconds.'));
  });
}

/**
 * The graceful stop: readiness turns false first, then after `delayMs` (balancers have
 * probed and stopped sending) the server stops accepting and waits for the requests in flight.
 */
export async function drainAndClose(app: FastifyInstance, delayMs: number): Promise<void> {
  app.services.lifecycle.drain();
  if (delayMs > 0) await delay(delayMs);
  await app.close();
}
