// Fires due reminders, every minute. Each due reminder is handled in its own database
// transaction with its row locked (SKIP LOCKED: two workers share the work, never both take
// one reminder) and re-checked as still due under the lock, so an occurrence fires exactly
// once however often and on however many processes the job runs. Firing creates the
// notification on the channels the user's preferences allow, records `last_triggered_at`,
// clears a snooze and moves `next_trigger_at` to the rule's first occurrence after now
// (missed occurrences fire once, they are not replayed); a one-off reminder, or a rule with no
// occurrence left, becomes `completed`.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { notifyUser } from '../db/notification-delivery.js';
import { dueReminderIds, lockDueReminder } from '../db/reminders.js';
import { recordWebhookEvent } from '../db/webhook-outbox.js';
import type { Database } from '../db/schema.js';
import { nextTriggerAt } from '../domain/reminder-schedule.js';
import type { JobDefinition } from '../server/jobs.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';

const BATCH = 100;

export const fireRemindersJob: JobDefinition = {
  name: 'fire-reminders',
  cron: '* * * * *',
  async run({ db, services, log }) {
    const fired = await fireDueReminders(db, services.now(), log);
    if (fired > 0) {
      log.info({ fired }, 'reminders fired');
      await services.jobs.send(DELIVER_EMAILS_JOB);
    }
  },
};

/** Fires every reminder due at `now`; returns how many fired. */
export async function fireDueReminders(db: Kysely<Database>, now: Date, log?: FastifyBaseLogger): Promise<number> {
  let fired = 0;
  let afterId = 0;
  for (;;) {
    const due = await dueReminderIds(db, now, afterId, BATCH);
    for (const id of due) {
      try {
        if (await fireReminder(db, id, now)) fired++;
      } catch (error) {
        // One broken reminder must not stop the others; it stays due and is retried next run.
        log?.error({ err: error, reminderId: id }, 'firing a reminder failed');
      }
    }
    if (due.length < BATCH) return fired;
    afterId = due[due.length - 1];
  }
}

async function fireReminder(db: Kysely<Database>, id: number, now: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const reminder = await lockDueReminder(trx, id, now);
    if (!reminder) return false; // another worker holds it, or it already fired
    await notifyUser(trx, reminder.user_id, 'reminders', {
      type: 'reminder',
      title: reminder.title,
      body: reminder.description ?? '',
      data: { reminder_id: reminder.id, reminder_type: reminder.type },
      reminderId: reminder.id,
      at: now,
    });
    const next = reminder.repeat_rule ? nextTriggerAt(reminder, now) : null;
    await trx
      .updateTable('reminders')
      .set({
        last_triggered_at: now,
        next_trigger_at: next,
        snoozed_until: null,
        status: next ? 'active' : 'completed',
        updated_at: now,
        last_synced_at: now,
      })
      .where('id', '=', reminder.id)
      .execute();
    await recordWebhookEvent(trx, reminder.user_id, 'reminder.fired', reminder.id, now);
    return true;
  });
}
