// What code of the database layer needs from the running app: the one exchange-rate lookup,
// the job-queue nudge and the clock. The app's services (server/services.ts) extend this, so
// db/ never imports server/.
import type { Kysely } from 'kysely';
import type { Decimal } from '../domain/money.js';
import type { Database, JsonValue } from './schema.js';

/**
 * The user's `manual-exchange-rates` configuration value as the caller has just read it
 * (undefined: not set), so a lookup for many pairs does not read it once per pair.
 */
export interface ReadManualRates {
  manualRates: JsonValue | undefined;
}

export interface RateService {
  /** Units of `to` per one unit of `from` for this user; 1 for the same currency; undefined when unknown. */
  rate(db: Kysely<Database>, userId: number, from: string, to: string, now: Date, read?: ReadManualRates): Promise<Decimal | undefined>;
  /** Rates from `base` to each currency, and the currencies with no rate. `read`: the manual rates, when the caller has them. */
  rates(
    db: Kysely<Database>,
    userId: number,
    base: string,
    currencies: string[],
    now: Date,
    read?: ReadManualRates,
  ): Promise<{ rates: Map<string, Decimal>; unavailable: string[] }>;
  /**
   * The same lookup without a remote provider (manual, remembered and stored rates, and a local
   * provider such as the bundled table): what code inside a database transaction uses, so no
   * network call ever holds a transaction open.
   * Callers warm it first with the full service, before the transaction opens.
   */
  withoutProvider(): RateService;
}

/** Queues a run of a background job now (jobs also run on their schedule without it). */
export interface JobQueue {
  send(name: string, data?: object): Promise<void>;
  /**
   * Queues a run of the job for the moment `at` (for whichever process's worker is free then),
   * when work falls due at a known time: a lease or a backoff of an outbox ending.
   */
  wakeAt?(name: string, at: Date): Promise<void>;
}

export interface DatabaseServices {
  /** Exchange rates (manual, stored, provider, reverse) for every part that converts money. */
  rates: RateService;
  /** Nudges background jobs after a commit (e.g. deliver-emails after queueEmail). */
  jobs: JobQueue;
  /** The current time; tests may replace it. */
  now: () => Date;
}
