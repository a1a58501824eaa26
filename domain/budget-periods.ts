// Budget windows: which calendar days a budget's progress covers. Pure date arithmetic on local
// `YYYY-MM-DD` days (the caller turns "now" into the user's local day first).
//
// weekly, monthly and yearly windows are calendar-aligned (Monday–Sunday, 1st–last day of the
// month, 1 Jan–31 Dec), but never start before start_date (the first window is cut there) and
// never end after end_date (the last window is cut there). Before start_date the budget shows
// its first window, after end_date its last one. A custom budget is the single window
// start_date–end_date.
import { addDays, addMonths, daysBetween } from './stats-periods.js';

export type BudgetPeriodType = 'weekly' | 'monthly' | 'yearly' | 'custom';

/** The fields of a budget that decide its windows; dates are `YYYY-MM-DD`. */
export interface BudgetSchedule {
  period_type: BudgetPeriodType;
  start_date: string;
  end_date: string | null;
}

/** A window of local days, both ends inclusive. */
export interface BudgetWindow {
  start: string;
  end: string;
}

/** The calendar period (uncut) of `period_type` that contains `day`. */
function calendarPeriod(periodType: Exclude<BudgetPeriodType, 'custom'>, day: string): BudgetWindow {
  switch (periodType) {
    case 'weekly': {
      const [year, month, date] = day.split('-').map(Number);
      const mondayOffset = (new Date(Date.UTC(year, month - 1, date)).getUTCDay() + 6) % 7;
      const start = addDays(day, -mondayOffset);
      return { start, end: addDays(start, 6) };
    }
    case 'monthly': {
      const start = `${day.slice(0, 8)}01`;
      return { start, end: addDays(addMonths(start, 1), -1) };
    }
    case 'yearly':
      return { start: `${day.slice(0, 4)}-01-01`, end: `${day.slice(0, 4)}-12-31` };
  }
}

/** The calendar period containing `day`, cut to the budget's start and end dates. */
function windowAround(schedule: BudgetSchedule, day: string): BudgetWindow {
  if (schedule.period_type === 'custom') return customWindow(schedule);
  const period = calendarPeriod(schedule.period_type, day);
  const start = period.start < schedule.start_date ? schedule.start_date : period.start;
  const end = schedule.end_date !== null && period.end > schedule.end_date ? schedule.end_date : period.end;
  return { start, end };
}

function customWindow(schedule: BudgetSchedule): BudgetWindow {
  // end_date is required for custom budgets; an open one (never stored) runs from its start on.
  return { start: schedule.start_date, end: schedule.end_date ?? '9999-12-31' };
}

/** The last day the budget covers, or undefined when it is open-ended. */
function lastDay(schedule: BudgetSchedule): string | undefined {
  return schedule.end_date ?? undefined;
}

/** The window containing `today`; before start_date the first window, after end_date the last one. */
export function currentWindow(schedule: BudgetSchedule, today: string): BudgetWindow {
  if (today < schedule.start_date) return windowAround(schedule, schedule.start_date);
  const last = lastDay(schedule);
  if (last !== undefined && today > last) return windowAround(schedule, last);
  return windowAround(schedule, today);
}

/** The window after `window`; null after end_date and for custom budgets. */
export function nextWindow(schedule: BudgetSchedule, window: BudgetWindow): BudgetWindow | null {
  if (schedule.period_type === 'custom') return null;
  const last = lastDay(schedule);
  if (last !== undefined && window.end >= last) return null;
  return windowAround(schedule, addDays(window.end, 1));
}

/** The window before `window`; null for the first window and for custom budgets. */
export function previousWindow(schedule: BudgetSchedule, window: BudgetWindow): BudgetWindow | null {
  if (schedule.period_type === 'custom') return null;
  if (window.start <= schedule.start_date) return null;
  return windowAround(schedule, addDays(window.start, -1));
}

/** Number of days in the window, both ends included. */
export function daysInWindow(window: BudgetWindow): number {
  return daysBetween(window.start, window.end) + 1;
}

/**
 * Windows that ended before `today` (end < today), oldest first, starting after `after`
 * (exclusive) or from the first window; at most `limit` (the close job walks them in batches).
 */
export function endedWindows(schedule: BudgetSchedule, today: string, after: BudgetWindow | null, limit: number): BudgetWindow[] {
  const windows: BudgetWindow[] = [];
  let window: BudgetWindow | null = after === null ? windowAround(schedule, schedule.start_date) : nextWindow(schedule, after);
  while (window !== null && window.end < today && windows.length < limit) {
    windows.push(window);
    window = nextWindow(schedule, window);
  }
  return windows;
}
