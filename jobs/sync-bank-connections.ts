// Syncs the bank connections that are due (each connection's next_sync_at, BANK_SYNC_INTERVAL_HOURS
// after its last sync). The schedule looks every 15 minutes; each due connection is claimed
// (its next time moved on) before its bridge is asked, so two workers never sync it at once
// from here, and a connection racing an on-demand sync is still written once (shared/bank-sync.ts).
import { claimDueConnections } from '../db/bank-connections.js';
import { SYNC_BANK_CONNECTIONS_JOB } from '../db/job-names.js';
import { syncConnection } from '../handlers/shared/bank-sync.js';
import type { JobDefinition } from '../server/jobs.js';

export const syncBankConnectionsJob: JobDefinition<Record<string, never>> = {
  name: SYNC_BANK_CONNECTIONS_JOB,
  cron: '*/15 * * * *',
  async run(ctx) {
    const now = ctx.services.now();
    // a claim outlives the slowest sync of the batch (requests are bounded by the timeout)
    const until = new Date(now.getTime() + 3_600_000);
    for (const id of await claimDueConnections(ctx.db, now, until)) {
      try {
        const outcome = await syncConnection(ctx, id);
        if (outcome.status === 'failed') ctx.log.warn({ bankConnectionId: id, reason: outcome.reason }, 'bank sync failed');
      } catch (error) {
        // one connection must not stop the others; it is due again when the claim runs out
        ctx.log.error({ err: error, bankConnectionId: id }, 'bank sync failed unexpectedly');
      }
    }
  },
};
