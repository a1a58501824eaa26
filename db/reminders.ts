// Reminder rows seen from the code that schedules them: the handlers (create, update, snooze,
// pause, resume) and the firing job share how a state change moves `next_trigger_at`.
import type { Kysely } from 'kysely';
import { scheduledTriggerAt, type ReminderTiming } from '../domain/reminder-schedule.js';
import type { Database, ReminderStatus } from './schema.js';

export interface ScheduleState extends ReminderTiming {
  status: ReminderStatus;
  snoozed_until: Date | null;
}

/**
 * `next_trigger_at` and `snoozed_until` after a reminder is created or its timing or status
 * changes at `now`: a snoozed reminder fires at `snoozed_until`; a completed or cancelled one
 * never fires again; otherwise as on create (the one-off time, or the rule's next occurrence).
 */
export function rescheduled(state: ScheduleState, now: Date): { next_trigger_at: Date | null; snoozed_until: Date | null } {
  switch (state.status) {
    case 'snoozed':
      return { next_trigger_at: state.snoozed_until ?? scheduledTriggerAt(state, now), snoozed_until: state.snoozed_until };
    case 'completed':
    case 'cancelled':
      return { next_trigger_at: null, snoozed_until: null };
    default:
      return { next_trigger_at: scheduledTriggerAt(state, now), snoozed_until: null };
  }
}

/** Ids of live reminders due at `now` (active or snoozed), in id order after `afterId`. */
export async function dueReminderIds(db: Kysely<Database>, now: Date, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('reminders')
    .select('id')
    .where('next_trigger_at', '<=', now)
    .where('deleted_at', 'is', null)
    .where('status', 'in', ['active', 'snoozed'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** The reminder, locked for this transaction, when it is still due; undefined when another worker holds it or it fired. */
export function lockDueReminder(db: Kysely<Database>, id: number, now: Date) {
  return db
    .selectFrom('reminders')
    .selectAll()
    .where('id', '=', id)
    .where('next_trigger_at', '<=', now)
    .where('deleted_at', 'is', null)
    .where('status', 'in', ['active', 'snoozed'])
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}
