// Reminders: the caller's reminders (synced records on the shared flow of
// handlers/shared/crud.ts) and their state changes (snooze, pause, resume). `next_trigger_at`
// follows from the timing fields (domain/reminder-schedule.ts); the fire-reminders job fires
// them.
import { isTimeZone } from '../domain/configuration-keys.js';
import { parseRepeatRule } from '../domain/reminder-schedule.js';
import { rescheduled } from '../db/reminders.js';
import type { ReminderStatus } from '../db/schema.js';
import { selectSynced } from '../db/sync.js';
import { ok } from '../server/envelope.js';
import { invalidField, validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { toReminder, type ReminderRow, type ReminderView } from './views/reminder.js';

const reminders = syncedResource<ReminderRow, ReminderView>({
  table: 'reminders',
  label: 'Reminder',
  select: (db, userId) => selectSynced(db, 'reminders', userId),
  view: toReminder,
  order: [['reminders.id', 'asc']],
});

interface TimingInput {
  trigger_at?: string | null;
  due_at?: string | null;
  repeat_rule?: string | null;
  timezone?: string;
}

/** The timing fields of a create or update body, checked and converted (422 keyed by field). */
function timingFrom(body: TimingInput) {
  const errors: FieldErrors = {};
  const instant = (field: 'trigger_at' | 'due_at') => {
    const value = body[field];
    if (value === undefined || value === null) return value;
    // An instant needs its zone: a wall-clock time alone names no moment.
    if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(value) || Number.isNaN(Date.parse(value))) {
      errors[field] = [`The ${field} must be an ISO 8601 date-time with a zone (e.g. 2026-04-30T15:17:54Z).`];
      return undefined;
    }
    return new Date(value);
  };
  const triggerAt = instant('trigger_at');
  const dueAt = instant('due_at');
  let repeatRule = body.repeat_rule;
  if (typeof repeatRule === 'string') {
    const parsed = parseRepeatRule(repeatRule);
    if ('error' in parsed) errors.repeat_rule = [`The repeat rule is not a valid RRULE: ${parsed.error}`];
    else repeatRule = parsed.rule;
  }
  if (body.timezone !== undefined && !isTimeZone(body.timezone)) errors.timezone = ['The timezone field must be a valid timezone.'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { trigger_at: triggerAt, due_at: dueAt, repeat_rule: repeatRule, timezone: body.timezone };
}

const json = (value: Record<string, unknown> | null | undefined) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));

/** The caller's live reminder after a state change written by `change`. */
async function changeState(
  ctx: HandlerContext<'snoozeReminder'> | HandlerContext<'pauseReminder'> | HandlerContext<'resumeReminder'>,
  change: (row: ReminderRow, now: Date) => { status: ReminderStatus; snoozed_until?: Date | null; next_trigger_at?: Date | null },
  message: string,
) {
  const { db, user, params, services } = ctx;
  const row = await reminders.liveOr404(db, user.id, params.id);
  const now = services.now();
  await db
    .updateTable('reminders')
    .set({ ...change(row, now), updated_at: now, last_synced_at: now })
    .where('id', '=', row.id)
    .where('user_id', '=', user.id)
    .execute();
  return ok(toReminder((await reminders.load(db, user.id, row.id))!), message);
}

/** `until`, or `duration` minutes from now (the web client's form); 422 on `until` when neither gives a later time. */
function snoozedUntil(body: { until?: string; duration?: number }, now: Date): Date {
  if (body.until === undefined) {
    if (body.duration === undefined) throw invalidField('until', 'The until field is required when duration is not present.');
    return new Date(now.getTime() + body.duration * 60_000);
  }
  const until = Date.parse(body.until);
  if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(body.until) || Number.isNaN(until)) {
    throw invalidField('until', 'The until must be an ISO 8601 date-time with a zone (e.g. 2026-04-30T15:17:54Z).');
  }
  if (until <= now.getTime()) throw invalidField('until', 'The until must be a time after now.');
  return new Date(until);
}

export const reminderHandlers = {
  listReminders: (ctx: HandlerContext<'listReminders'>) =>
    reminders.list(ctx, (q) => (ctx.query.status ? q.where('reminders.status', '=', ctx.query.status) : q)),

  getReminder: (ctx: HandlerContext<'getReminder'>) => reminders.show(ctx),

  createReminder: (ctx: HandlerContext<'createReminder'>) => {
    const { body } = ctx;
    const timing = timingFrom(body);
    return reminders.create(ctx, async (trx, columns) => {
      const now = ctx.services.now();
      const schedule = {
        trigger_at: timing.trigger_at ?? null,
        repeat_rule: timing.repeat_rule ?? null,
        timezone: timing.timezone ?? 'UTC',
        created_at: now,
      };
      const row = await trx
        .insertInto('reminders')
        .values({
          ...columns,
          title: body.title,
          description: body.description ?? null,
          type: body.type ?? 'custom',
          ...schedule,
          due_at: timing.due_at ?? null,
          priority: body.priority ?? 0,
          metadata: json(body.metadata) ?? null,
          status: 'active',
          ...rescheduled({ ...schedule, status: 'active', snoozed_until: null }, now),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    });
  },

  updateReminder: (ctx: HandlerContext<'updateReminder'>) => {
    const { body } = ctx;
    // The body is checked before the id is looked up (spec).
    const timing = timingFrom(body);
    const changesSchedule = (['trigger_at', 'repeat_rule', 'timezone', 'status'] as const).some((field) => body[field] !== undefined);
    return reminders.update(ctx, async (trx, row, columns) => {
      const changed = {
        title: body.title,
        description: body.description,
        type: body.type,
        ...timing,
        status: body.status,
        priority: body.priority,
        metadata: json(body.metadata),
      };
      const merged = {
        trigger_at: changed.trigger_at === undefined ? row.trigger_at : changed.trigger_at,
        repeat_rule: changed.repeat_rule === undefined ? row.repeat_rule : changed.repeat_rule,
        timezone: changed.timezone ?? row.timezone,
        status: changed.status ?? row.status,
        snoozed_until: row.snoozed_until,
        created_at: row.created_at,
      };
      await trx
        .updateTable('reminders')
        .set({
          // Kysely leaves out undefined values: a field the body omits keeps its value.
          ...columns,
          ...changed,
          ...(changesSchedule ? rescheduled(merged, columns.updated_at) : {}),
        })
        .where('id', '=', row.id)
        .execute();
    });
  },

  deleteReminder: (ctx: HandlerContext<'deleteReminder'>) => reminders.remove(ctx),

  // the body is judged once the reminder is found: another user's reminder is 404 whatever the body
  snoozeReminder: (ctx: HandlerContext<'snoozeReminder'>) =>
    changeState(
      ctx,
      (_row, now) => {
        const at = snoozedUntil(ctx.body, now);
        return { status: 'snoozed', snoozed_until: at, next_trigger_at: at };
      },
      'Reminder snoozed',
    ),

  pauseReminder: (ctx: HandlerContext<'pauseReminder'>) => changeState(ctx, () => ({ status: 'paused' }), 'Reminder paused'),

  resumeReminder: (ctx: HandlerContext<'resumeReminder'>) =>
    changeState(ctx, (row, now) => ({ status: 'active', ...rescheduled({ ...row, status: 'active', snoozed_until: null }, now) }), 'Reminder resumed'),
} satisfies Partial<Handlers>;
