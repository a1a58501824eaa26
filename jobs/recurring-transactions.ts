// Materialises recurring transactions: every due occurrence of a rule becomes one
// transaction dated on its occurrence, copying the template's amount, type, wallet, intent,
// description, party, group and categories; then `next_scheduled_at` advances from that
// occurrence. Each rule is handled in its own database transaction with the rule row locked
// (SKIP LOCKED, so two workers share the work), and the occurrence's unique key backs that
// up: running the job twice, or on two processes, never creates an occurrence twice. A rule's
// new expenses are checked against the user's budgets like any other write (db/budget-alerts.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { withBudgetAlerts, type AlertBudgets } from '../db/budget-alerts.js';
import { warmBudgetRates } from '../db/budget-spending.js';
import type { Database } from '../db/schema.js';
import { nextOccurrence } from '../domain/recurrence.js';
import { applyRulesToEntry, loadUserRules } from '../handlers/shared/transaction-rules.js';
import { createTransactionEntry } from '../handlers/shared/transaction-writes.js';
import { splitLinesOf } from '../db/transaction-splits.js';
import type { JobDefinition } from '../server/jobs.js';
import type { AppServices } from '../server/services.js';

/** At most this many missed occurrences of one rule are caught up per run. */
const CATCH_UP_LIMIT = 400;
const BATCH = 100;

export const recurringTransactionsJob: JobDefinition = {
  name: 'materialise-recurring-transactions',
  cron: '* * * * *',
  resumeAtStart: true,
  async run({ db, services, log }) {
    const created = await materialiseDueOccurrences(db, services, services.now(), log);
    if (created > 0) log.info({ created }, 'recurring transactions materialised');
  },
};

/**
 * Creates every occurrence due at `now`; returns how many transactions were made. `services`
 * converts budget spending and nudges the delivery of the alert e-mails this raised.
 */
export function materialiseDueOccurrences(db: Kysely<Database>, services: AppServices, now: Date, log?: FastifyBaseLogger): Promise<number> {
  return withBudgetAlerts(services, log, (alert) => materialiseAll(db, services, now, alert, log));
}

async function materialiseAll(db: Kysely<Database>, services: AppServices, now: Date, alert: AlertBudgets, log?: FastifyBaseLogger): Promise<number> {
  let created = 0;
  let afterId = 0;
  for (;;) {
    const due = await db
      .selectFrom('recurring_rules')
      .select(['id', 'user_id'])
      .where('next_scheduled_at', '<=', now)
      .where((eb) => eb.or([eb('recurrence_ends_at', 'is', null), eb('next_scheduled_at', '<=', eb.ref('recurrence_ends_at'))]))
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    for (const { id, user_id } of due) {
      try {
        // the alerts inside the rule's transaction convert with rates resolved here, before it
        await warmBudgetRates(db, services, user_id);
        created += await materialiseRule(db, id, now, alert);
      } catch (error) {
        // One broken rule must not stop the others; it is retried on the next run.
        log?.error({ err: error, ruleId: id }, 'materialising a recurring transaction failed');
      }
    }
    if (due.length < BATCH) return created;
    afterId = due[due.length - 1].id;
  }
}

async function materialiseRule(db: Kysely<Database>, ruleId: number, now: Date, alert: AlertBudgets): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rule = await trx
      .selectFrom('recurring_rules')
      .selectAll()
      .where('id', '=', ruleId)
      .where('next_scheduled_at', '<=', now)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!rule) return 0; // another worker holds it, or it is no longer due

    const template = await trx
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', rule.transaction_id)
      .where('user_id', '=', rule.user_id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!template) return 0; // deleting a transaction removes its rule; nothing to copy meanwhile
    const categoryIds = (
      await trx.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', template.id).execute()
    ).map((link) => link.category_id);
    // each occurrence is split like its template
    const splits = await splitLinesOf(trx, rule.user_id, template.id);

    const schedule = { anchor: template.datetime, period: rule.recurrence_period, interval: rule.recurrence_interval };
    const endsAt = rule.recurrence_ends_at;
    let at = rule.next_scheduled_at;
    let made = 0;
    let lastMade: number | undefined;
    const userRules = await loadUserRules(trx, rule.user_id);
    while (at <= now && (!endsAt || at <= endsAt) && made < CATCH_UP_LIMIT) {
      const occurrence = await applyRulesToEntry(
        trx,
        rule.user_id,
        {
          type: template.type,
          amount: template.amount,
          walletId: template.wallet_id,
          datetime: at,
          intent: template.intent,
          description: template.description,
          partyId: template.party_id,
          groupId: template.group_id,
          categoryIds,
          splits,
          occurrenceOf: { parentId: template.id, at },
        },
        now,
        {},
        userRules,
      );
      lastMade = await createTransactionEntry(trx, rule.user_id, occurrence, now);
      made++;
      at = nextOccurrence(schedule, at);
    }
    await trx.updateTable('recurring_rules').set({ next_scheduled_at: at, updated_at: now }).where('id', '=', rule.id).execute();
    // the occurrences share the template's wallet, group and categories: one check covers them all
    if (lastMade !== undefined) await alert(trx, rule.user_id, lastMade);
    return made;
  });
}
