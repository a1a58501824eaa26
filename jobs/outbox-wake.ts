// After a crash, a row of an outbox (a webhook delivery, a push) claimed by the dead worker is
// due again when its lease ends, and a failed attempt's retry when its backoff ends. Neither
// moment is a commit, so no nudge comes then: without more, the row waited for the minute's
// schedule (90 to 120 s after a restart, issue 39). So every run of an outbox job ends by asking
// the queue for a run at the next moment a row falls due (a delayed job, kept in the database:
// it survives the process that asked). The run at start of a restarted process asks for the
// end of the dead worker's leases; a worker that dies while others live is covered by their
// minute schedule, which runs within its lease (the lease outlasts a minute).
import type { Kysely } from 'kysely';
import { nextDueAfter } from '../db/outbox-claims.js';
import type { Database } from '../db/schema.js';
import type { AppServices } from '../server/services.js';

export async function wakeWhenNextDue(db: Kysely<Database>, services: AppServices, table: 'webhook_deliveries' | 'push_deliveries', jobName: string): Promise<void> {
  const at = await nextDueAfter(db, table, services.now());
  if (at) await services.jobs.wakeAt(jobName, at);
}
