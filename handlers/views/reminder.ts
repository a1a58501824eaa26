import type { components } from '../../generated/api.js';
import type { SyncedRow } from '../../db/sync.js';
import { syncFields } from './sync.js';

export type ReminderView = components['schemas']['Reminder'];
export type ReminderRow = SyncedRow<'reminders'>;

export function toReminder(row: ReminderRow): ReminderView {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return Object.assign(syncFields(row, 'reminder'), {
    title: row.title,
    description: row.description,
    type: row.type,
    trigger_at: iso(row.trigger_at),
    due_at: iso(row.due_at),
    repeat_rule: row.repeat_rule,
    timezone: row.timezone,
    status: row.status,
    priority: row.priority,
    snoozed_until: iso(row.snoozed_until),
    last_triggered_at: iso(row.last_triggered_at),
    next_trigger_at: iso(row.next_trigger_at),
    metadata: row.metadata,
    source: row.source,
    // The reference's polymorphic subject is only ever a budget (migration 004).
    remindable_type: row.budget_id === null ? null : 'budget',
    remindable_id: row.budget_id,
  });
}
