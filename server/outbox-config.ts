// What the two outboxes drained by a job (webhook deliveries, pushes) are configured by alike:
// <PREFIX>_TIMEOUT_MS, _MAX_ATTEMPTS, _RETRY_BASE_MS, _RETRY_MAX_MS and _CONCURRENCY, read and
// checked with the rest of the configuration in server/config.ts.

export type Env = Record<string, string | undefined>;
/** Reads an integer setting, recording a problem (and giving the fallback) when it is out of range. */
export type IntReader = (name: string, fallback: number, min?: number, max?: number) => number;

export interface OutboxDeliveryConfig {
  /** The most one attempt may take, connection to last byte (<PREFIX>_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** Attempts of one row before it is given up (<PREFIX>_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Wait after the first failed attempt, doubled after each further one (<PREFIX>_RETRY_BASE_MS, default 30 s). */
  retryBaseMs: number;
  /** Longest wait between two attempts (<PREFIX>_RETRY_MAX_MS, default 1 h). */
  retryMaxMs: number;
  /** Receivers (endpoints, subscriptions) one process serves side by side (<PREFIX>_CONCURRENCY, default 8; jobs/fair-turns.ts). */
  concurrency: number;
}

export function outboxDeliveryFrom(prefix: 'WEBHOOK' | 'PUSH', int: IntReader, defaultMaxAttempts: number): OutboxDeliveryConfig {
  return {
    timeoutMs: int(`${prefix}_TIMEOUT_MS`, 10_000, 100, 120_000),
    maxAttempts: int(`${prefix}_MAX_ATTEMPTS`, defaultMaxAttempts, 1, 50),
    retryBaseMs: int(`${prefix}_RETRY_BASE_MS`, 30_000, 0, 86_400_000),
    retryMaxMs: int(`${prefix}_RETRY_MAX_MS`, 3_600_000, 0, 86_400_000),
    concurrency: int(`${prefix}_CONCURRENCY`, 8, 1, 64),
  };
}
