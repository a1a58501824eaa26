// The date range of GET /stats: a preset, or start/end dates each defaulting on its own, as
// whole calendar days in the user's time zone, and the window of the same length just before
// it (for comparisons and trends). Pure: the caller gives the current time and the zone.
import { startOfDay, startOfNextDay } from './time-zone.js';

export const STATS_PRESETS = ['all_time', 'current_week', 'current_month', 'last_3_months', 'last_30_days'] as const;
export type StatsPreset = (typeof STATS_PRESETS)[number];

export interface StatsRangeRequest {
  preset?: StatsPreset;
  /** `YYYY-MM-DD` */
  startDate?: string;
  /** `YYYY-MM-DD` */
  endDate?: string;
}

export interface StatsRange {
  /** First day, `YYYY-MM-DD`. */
  startDay: string;
  /** Last day, `YYYY-MM-DD`. */
  endDay: string;
  /** The instant the first day starts (inclusive). */
  from: Date;
  /** The instant after the last day ends (exclusive). */
  before: Date;
  /** Calendar days in the range. */
  days: number;
  /** First day of the window of `days` days just before the range. */
  previousStartDay: string;
  /** The instant that window starts; it ends at `from`. */
  previousFrom: Date;
}

/** The range asked for, or undefined when the end comes before the start. */
export function statsRange(request: StatsRangeRequest, now: Date, timeZone: string): StatsRange | undefined {
  const today = dayIn(now, timeZone);
  const [startDay, endDay] = request.preset
    ? [presetStart(request.preset, today), today]
    : [request.startDate ?? addDays(today, -30), request.endDate ?? today];
  if (endDay < startDay) return undefined;
  const days = daysBetween(startDay, endDay) + 1;
  const previousStartDay = addDays(startDay, -days);
  return {
    startDay,
    endDay,
    from: startOfDay(startDay, timeZone),
    before: startOfNextDay(endDay, timeZone),
    days,
    previousStartDay,
    previousFrom: startOfDay(previousStartDay, timeZone),
  };
}

function presetStart(preset: StatsPreset, today: string): string {
  switch (preset) {
    case 'all_time':
      return '2000-01-01';
    case 'current_week': {
      const weekday = (utcDate(today).getUTCDay() + 6) % 7; // Monday = 0
      return addDays(today, -weekday);
    }
    case 'current_month':
      return `${today.slice(0, 8)}01`;
    case 'last_3_months':
      return addMonths(today, -3);
    case 'last_30_days':
      return addDays(today, -30);
  }
}

/** The calendar day of `instant` in `timeZone`, `YYYY-MM-DD`. */
export function dayIn(instant: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/** A formatter per time zone, made once (making one costs far more than using it). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

export function addDays(day: string, count: number): string {
  const date = utcDate(day);
  date.setUTCDate(date.getUTCDate() + count);
  return date.toISOString().slice(0, 10);
}

/** The same day `count` months later (earlier when negative), clamped to the month's last day. */
export function addMonths(day: string, count: number): string {
  const date = utcDate(day);
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + count, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target.toISOString().slice(0, 10);
}

/** Whole days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  return Math.round((utcDate(b).getTime() - utcDate(a).getTime()) / 86_400_000);
}

/** English name of the weekday of a `YYYY-MM-DD` day. */
export function weekdayName(day: string): string {
  return ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][utcDate(day).getUTCDay()];
}

function utcDate(day: string): Date {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, date));
}
