// The lease both outboxes (webhook deliveries, pushes) are drained by: a worker claims the
// oldest due pending row by counting the attempt and moving next_attempt_at to the end of its
// lease, in one statement that skips rows another worker holds locked. So two workers never take
// one row at once, and a row whose worker died is due again when the lease runs out (at least once).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/** A claim outlives the attempt's time limit by this much before the row is due again. */
const LEASE_MARGIN_MS = 60_000;

/** When the lease of a claim made at `now` for an attempt of at most `attemptTimeoutMs` ends. */
export function leaseEnd(now: Date, attemptTimeoutMs: number): Date {
  return new Date(now.getTime() + attemptTimeoutMs + LEASE_MARGIN_MS);
}

export async function claimOldestDue<Row>(
  db: Kysely<Database>,
  table: 'webhook_deliveries' | 'push_deliveries',
  now: Date,
  leaseUntil: Date,
  /** Narrows the rows considered (e.g. one endpoint's). */
  among: RawBuilder<boolean> = sql<boolean>`true`,
): Promise<Row | undefined> {
  const claimed = await sql<Row>`
    update ${sql.table(table)} set attempts = attempts + 1, next_attempt_at = ${leaseUntil}, updated_at = ${now}
    where id = (
      select id from ${sql.table(table)}
      where status = 'pending' and next_attempt_at <= ${now} and ${among}
      order by next_attempt_at, id limit 1
      for update skip locked)
    returning *`.execute(db);
  return claimed.rows[0];
}

/**
 * The earliest moment after `now` at which a pending row falls due (a lease or a backoff
 * ending), or undefined when none will: the job asks to be woken then (jobs/outbox-wake.ts).
 */
export async function nextDueAfter(db: Kysely<Database>, table: 'webhook_deliveries' | 'push_deliveries', now: Date): Promise<Date | undefined> {
  const row = await sql<{ at: Date | null }>`
    select min(next_attempt_at) as at from ${sql.table(table)} where status = 'pending' and next_attempt_at > ${now}`.execute(db);
  const at = row.rows[0]?.at;
  return at ? new Date(at) : undefined;
}
