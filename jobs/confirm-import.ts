// Confirms a whole import session (`POST /v1/import/confirm` with `accept_all`) a batch of
// CONFIRM_BATCH suggestions per database transaction (shared/import-confirm-batch.ts). The
// request starts the run (the session's metadata `confirm`) and nudges this job; the schedule
// and the start of the job runner take up runs whose nudge was lost or whose worker died.
//
// Every suggestion is imported once: a batch locks the session row (SKIP LOCKED: a second
// worker passes it by) and its suggestions, writes them, marks them imported and moves the
// run's `next_index` in one commit, so a crash loses only the batch in flight and the next run
// resumes after the last commit; a suggestion already imported (by an earlier batch, or a
// small confirm that got its lock first) is counted `already_imported` and left alone. The last
// batch's commit also ends the confirm (sessionConfirmed: import.confirmed recorded with it).
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { userTimeZoneOrUtc } from '../db/budget-spending.js';
import { lockConfirmRun, lockSuggestionBatch, runAfterBatch, runningConfirmIds, saveConfirmRun } from '../db/import-confirm-runs.js';
import { CONFIRM_IMPORT_JOB } from '../db/job-names.js';
import { analyzeGrownLedger } from '../db/table-maintenance.js';
import { CONFIRM_BATCH, confirmSuggestionBatch } from '../handlers/shared/import-confirm-batch.js';
import { sessionConfirmed, type ConfirmItem } from '../handlers/shared/import-confirm.js';
import { statementBalancesOf } from '../handlers/views/import-session.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';

export const confirmImportJob: JobDefinition<{ sessionId?: number }> = {
  name: CONFIRM_IMPORT_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run(ctx, data) {
    const ids = typeof data.sessionId === 'number' ? [data.sessionId] : await runningConfirmIds(ctx.db);
    for (const id of ids) {
      try {
        await runConfirm(ctx, id);
      } catch (error) {
        // one session must not stop the others; the schedule retries it
        ctx.log.error({ err: error, sessionId: id }, 'confirming an import session failed');
      }
    }
  },
};

/**
 * Batch after batch until the run is done or another worker holds the session (`batches`
 * stops it earlier, as a worker that dies between two commits would: tests use it).
 */
export async function runConfirm(ctx: JobContext, sessionId: number, options: { batches?: number } = {}): Promise<void> {
  const { db, services, log } = ctx;
  const head = await db.selectFrom('import_sessions').select('user_id').where('id', '=', sessionId).executeTakeFirst();
  if (!head) return;
  const userId = head.user_id;
  const timeZone = await userTimeZoneOrUtc(db, userId);
  await withBudgetAlerts(
    services,
    log,
    async (alert) => {
      for (let batches = 1; ; batches++) {
        const step = await db.transaction().execute(async (trx) => {
          const locked = await lockConfirmRun(trx, sessionId);
          if (!locked) return undefined;
          const { session, run } = locked;
          const now = services.now();
          const batch = await lockSuggestionBatch(trx, sessionId, run.next_index, CONFIRM_BATCH);
          const request = { session_id: sessionId, auto_create_wallets: run.auto_create_wallets, auto_create_parties: run.auto_create_parties, auto_create_categories: run.auto_create_categories };
          const items = new Map((run.items as unknown as ConfirmItem[]).map((item) => [item.index, item]));
          const counts = await confirmSuggestionBatch(trx, { db, userId, session, balances: statementBalancesOf(session), request, timeZone, now, alert, log }, batch, items);
          const next = runAfterBatch(run, batch, counts, batch.length < CONFIRM_BATCH, now);
          await saveConfirmRun(trx, sessionId, next, now);
          if (next.state === 'done' && next.created_count > 0) await sessionConfirmed(trx, session, now);
          return next;
        });
        if (!step || step.state === 'done' || batches === options.batches) return step;
        await analyzeGrownLedger(db); // the next batch's triggers planned for the ledger as it is now
      }
    },
    { db, userId },
  );
}
