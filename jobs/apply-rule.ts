// "Apply to existing" of one rule (POST /v1/rules/{id}/apply): the user's live incomes and
// expenses in id order, APPLY_BATCH per database transaction, each batch's changes and the run's
// progress (`after_id`, `processed`, `changed`) committed together. A batch locks its run (SKIP
// LOCKED: a second worker passes it by), so a crash loses only the batch in flight and the next
// run resumes after the last commit; a transaction already as the rule makes it is not written
// again, so the run is idempotent. The request nudges the job; the schedule and the runner's start
// take up runs whose nudge was lost. The budgets whose spending a batch moved are judged once per
// batch (budget alerts), as after an import's batch.
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { APPLY_RULE_JOB } from '../db/job-names.js';
import { existingChunk, lockRunningApplication, runningApplicationIds } from '../db/rule-applications.js';
import { applyExistingChanges, ruleForExisting } from '../handlers/shared/rule-existing.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';

export const APPLY_BATCH = 500;

export const applyRuleJob: JobDefinition<{ applicationId?: number }> = {
  name: APPLY_RULE_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run(ctx, data) {
    const ids = typeof data.applicationId === 'number' ? [data.applicationId] : await runningApplicationIds(ctx.db);
    for (const id of ids) {
      try {
        await runApplication(ctx, id);
      } catch (error) {
        // one run must not stop the others; the schedule retries it
        ctx.log.error({ err: error, applicationId: id }, 'applying a rule to existing transactions failed');
      }
    }
  },
};

/** Batch after batch until the run is done or another worker holds it (`batches` stops it earlier, for tests). */
export async function runApplication(ctx: JobContext, applicationId: number, options: { batches?: number } = {}): Promise<void> {
  const owner = await ctx.db.selectFrom('rule_applications').select('user_id').where('id', '=', applicationId).executeTakeFirst();
  if (!owner) return;
  for (let batches = 1; ; batches++) {
    // a batch that files expenses under new categories or groups judges the budgets it moved, as a create does
    const more = await withBudgetAlerts(
      ctx.services,
      ctx.log,
      (alert) =>
        ctx.db.transaction().execute(async (trx) => {
          const run = await lockRunningApplication(trx, applicationId);
          if (!run) return false;
          const now = ctx.services.now();
          const rule = await trx.selectFrom('rules').selectAll().where('id', '=', run.rule_id).where('user_id', '=', run.user_id).where('deleted_at', 'is', null).executeTakeFirst();
          const chunk = rule ? await existingChunk(trx, run.user_id, run.after_id, APPLY_BATCH) : [];
          let changed = 0;
          // one expense per wallet, group and categories stands for the batch's (the budgets' totals are what is judged)
          const moved = new Map<string, number>();
          if (rule && chunk.length > 0) {
            const onExisting = await ruleForExisting(trx, run.user_id, rule);
            for (const tx of chunk) {
              const { changes } = onExisting(tx);
              if (!changes || !(await applyExistingChanges(trx, run.user_id, tx, changes, now))) continue;
              changed++;
              if (tx.type === 'expense' && (changes.category_ids || changes.group_id || changes.splits)) {
                const categories = changes.category_ids?.to ?? tx.categoryIds;
                moved.set(`${tx.walletId}:${changes.group_id?.to ?? tx.groupId}:${categories.join(',')}`, tx.id);
              }
            }
          }
          if (moved.size > 0) await alert(trx, run.user_id, [...moved.values()]);
          const done = chunk.length < APPLY_BATCH;
          await trx
            .updateTable('rule_applications')
            .set({ after_id: chunk.at(-1)?.id ?? run.after_id, processed: run.processed + chunk.length, changed: run.changed + changed, state: done ? 'done' : 'running', updated_at: now })
            .where('id', '=', run.id)
            .execute();
          return !done;
        }),
      { db: ctx.db, userId: owner.user_id },
    );
    if (!more || (options.batches !== undefined && batches >= options.batches)) return;
  }
}
