// Recurring schedules. Occurrences lie on a grid anchored at the transaction's datetime:
// anchor + k × interval × period (k ≥ 1), in UTC. A month or year step onto a day the target
// month lacks falls on that month's last day, and the grid stays anchored (Jan 31 monthly →
// Feb 28, Mar 31, ...), so stepping never drifts. Pure: transaction writes and the scheduled
// job that materialises occurrences both use it.

export type RecurrencePeriod = 'daily' | 'weekly' | 'monthly' | 'yearly';

export interface Schedule {
  anchor: Date;
  period: RecurrencePeriod;
  /** Periods between occurrences, at least 1. */
  interval: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The k-th occurrence (k ≥ 1) of a schedule. */
export function occurrence(schedule: Schedule, k: number): Date {
  const steps = k * schedule.interval;
  switch (schedule.period) {
    case 'daily':
      return new Date(schedule.anchor.getTime() + steps * DAY_MS);
    case 'weekly':
      return new Date(schedule.anchor.getTime() + steps * 7 * DAY_MS);
    case 'monthly':
      return addMonthsClamped(schedule.anchor, steps);
    case 'yearly':
      return addMonthsClamped(schedule.anchor, steps * 12);
  }
}

/**
 * The first occurrence strictly after `after`: the `next_scheduled_at` of a rule created or
 * rescheduled at `after` (past occurrences are not back-filled), and the step that follows
 * an occurrence the job has just created (`after` = that occurrence).
 */
export function nextOccurrence(schedule: Schedule, after: Date): Date {
  let k = Math.max(1, estimatedSteps(schedule, after));
  while (k > 1 && occurrence(schedule, k - 1).getTime() > after.getTime()) k--;
  while (occurrence(schedule, k).getTime() <= after.getTime()) k++;
  return occurrence(schedule, k);
}

/** Roughly how many steps separate the anchor from `after`; nextOccurrence corrects it. */
function estimatedSteps(schedule: Schedule, after: Date): number {
  const { anchor, period, interval } = schedule;
  if (period === 'daily' || period === 'weekly') {
    const stepMs = interval * (period === 'daily' ? 1 : 7) * DAY_MS;
    return Math.floor((after.getTime() - anchor.getTime()) / stepMs);
  }
  const months = (after.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (after.getUTCMonth() - anchor.getUTCMonth());
  return Math.floor(months / (interval * (period === 'yearly' ? 12 : 1)));
}

function addMonthsClamped(date: Date, months: number): Date {
  const firstOfTarget = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
  const lastDay = new Date(Date.UTC(firstOfTarget.getUTCFullYear(), firstOfTarget.getUTCMonth() + 1, 0)).getUTCDate();
  firstOfTarget.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return firstOfTarget;
}
