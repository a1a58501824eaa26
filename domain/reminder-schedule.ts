// When a reminder fires. `repeat_rule` is an RFC 5545 RRULE value evaluated in the reminder's
// IANA time zone: BYHOUR/BYMINUTE/BYDAY are wall-clock values there, so a 09:00 daily reminder
// stays at 09:00 local across daylight-saving changes.
//
// The rrule package is used in "floating" mode only: its dates carry wall-clock fields in their
// UTC slots (rrule's own tzid support returns such floating dates too, and mixes in the
// process's zone). We convert the DTSTART and the search bound to wall-clock time in the zone,
// let rrule count, and convert each result back to the instant it names in the zone.
// Pure: no SQL, no clock.
import rrulePackage from 'rrule';
import type { Options } from 'rrule';
import { offsetMs } from './time-zone.js';

const { RRule } = rrulePackage;
type RRuleInstance = InstanceType<typeof RRule>;

export interface ReminderTiming {
  /** The first (or only) time it fires; DTSTART of the rule. */
  trigger_at: Date | null;
  repeat_rule: string | null;
  timezone: string;
  /** DTSTART when there is no trigger_at (the reminder's creation time). */
  created_at: Date;
}

// ---- parsing ------------------------------------------------------------------------------

const WEEKDAY = '(?:MO|TU|WE|TH|FR|SA|SU)';
const list = (item: string) => new RegExp(`^${item}(?:,${item})*$`);
const signed = (max: number) => (value: string) => value.split(',').every((n) => /^[+-]?\d{1,3}$/.test(n) && Math.abs(Number(n)) >= 1 && Math.abs(Number(n)) <= max);
const unsigned = (min: number, max: number) => (value: string) => value.split(',').every((n) => /^\d{1,2}$/.test(n) && Number(n) >= min && Number(n) <= max);

/** What each RRULE part may hold (RFC 5545 3.3.10); rrule itself accepts nonsense such as INTERVAL=x. */
const PARTS: Record<string, (value: string) => boolean> = {
  FREQ: (v) => /^(?:YEARLY|MONTHLY|WEEKLY|DAILY|HOURLY|MINUTELY|SECONDLY)$/.test(v),
  INTERVAL: (v) => /^\d{1,4}$/.test(v) && Number(v) >= 1,
  COUNT: (v) => /^\d{1,5}$/.test(v) && Number(v) >= 1,
  UNTIL: (v) => /^\d{8}(?:T\d{6}Z?)?$/.test(v) && !Number.isNaN(untilDate(v).getTime()),
  BYSECOND: unsigned(0, 60),
  BYMINUTE: unsigned(0, 59),
  BYHOUR: unsigned(0, 23),
  BYDAY: (v) => list(`[+-]?(?:\\d{1,2})?${WEEKDAY}`).test(v) && v.split(',').every((d) => Math.abs(parseInt(d, 10) || 1) <= 53 && parseInt(d, 10) !== 0),
  BYMONTHDAY: signed(31),
  BYYEARDAY: signed(366),
  BYWEEKNO: signed(53),
  BYMONTH: unsigned(1, 12),
  BYSETPOS: signed(366),
  WKST: (v) => new RegExp(`^${WEEKDAY}$`).test(v),
};

function untilDate(value: string): Date {
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}))?/.exec(value) ?? [];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  return date.getUTCDate() === Number(d) ? date : new Date(NaN);
}

/** The rule in canonical form (upper case, no `RRULE:` prefix), or the reason it is not a valid RRULE. */
export function parseRepeatRule(text: string): { rule: string } | { error: string } {
  const rule = text.trim().replace(/^RRULE:/i, '').toUpperCase();
  const seen = new Set<string>();
  for (const part of rule.split(';')) {
    const [name, value, extra] = part.split('=');
    if (extra !== undefined || !value || !(name in PARTS)) return { error: `"${part}" is not a rule part (e.g. FREQ=DAILY;BYHOUR=9;BYMINUTE=0).` };
    if (seen.has(name)) return { error: `${name} appears twice.` };
    if (!PARTS[name](value)) return { error: `${name}=${value} is not a valid value.` };
    seen.add(name);
  }
  if (!seen.has('FREQ')) return { error: 'FREQ is required (e.g. FREQ=DAILY).' };
  if (seen.has('COUNT') && seen.has('UNTIL')) return { error: 'COUNT and UNTIL cannot both be set.' };
  if (!monthDaysPossible(rule)) return { error: 'BYMONTHDAY names no day of the months in BYMONTH.' };
  const finer = TIME_PARTS_NOT_ALLOWED[/(?:^|;)FREQ=([A-Z]+)/.exec(rule)![1]]?.find((name) => seen.has(name));
  if (finer) return { error: `${finer} cannot be combined with a FREQ finer than DAILY (e.g. FREQ=DAILY;BYHOUR=9;BYMINUTE=0).` };
  return { rule };
}

/**
 * Time-of-day filters at or above a sub-daily FREQ (HOURLY;INTERVAL=2;BYHOUR=1,
 * MINUTELY;BYHOUR=3;BYDAY=MO, ...): the rrule package (2.8) steps hour by hour or minute by
 * minute waiting for a match and, for many of them, never returns, which would hang the
 * process on a request or in the firing job. Finer parts (HOURLY;BYMINUTE=0,30) are fine.
 */
const TIME_PARTS_NOT_ALLOWED: Record<string, string[]> = {
  HOURLY: ['BYHOUR'],
  MINUTELY: ['BYHOUR', 'BYMINUTE'],
  SECONDLY: ['BYHOUR', 'BYMINUTE', 'BYSECOND'],
};

/**
 * False for a rule such as BYMONTH=2;BYMONTHDAY=30, which never occurs: rrule would search
 * day by day up to the year 9999 (seconds of CPU) before answering "no occurrence".
 */
function monthDaysPossible(rule: string): boolean {
  const value = (name: string) => new RegExp(`(?:^|;)${name}=([^;]+)`).exec(rule)?.[1];
  const monthDays = value('BYMONTHDAY')?.split(',').map((n) => Math.abs(Number(n)));
  if (!monthDays) return true;
  const months = value('BYMONTH')?.split(',').map(Number) ?? [1];
  const longest = Math.max(...months.map((m) => [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]));
  return Math.min(...monthDays) <= longest;
}

// ---- wall-clock time in a zone --------------------------------------------------------------

/** The wall-clock time at `instant` in `zone`, as a floating date (wall-clock in the UTC fields). */
export function toWallClock(instant: Date, zone: string): Date {
  const seconds = Math.floor(instant.getTime() / 1000) * 1000;
  return new Date(seconds + offsetMs(instant, zone));
}

/**
 * The instant a wall-clock time (floating date) names in `zone`. An ambiguous time (clocks
 * going back) is its first occurrence; a time skipped by clocks going forward is moved forward
 * by the gap (02:30 on a spring-forward night is 03:30 of the new offset).
 */
export function fromWallClock(wall: Date, zone: string): Date {
  const DAY = 86_400_000;
  const before = offsetMs(new Date(wall.getTime() - DAY), zone);
  const after = offsetMs(new Date(wall.getTime() + DAY), zone);
  const valid = [before, after]
    .map((offset) => new Date(wall.getTime() - offset))
    .filter((instant) => toWallClock(instant, zone).getTime() === Math.floor(wall.getTime() / 1000) * 1000)
    .sort((a, b) => a.getTime() - b.getTime());
  return valid[0] ?? new Date(wall.getTime() - before);
}

// ---- occurrences ----------------------------------------------------------------------------

/** Length of one period of the fixed-length frequencies, in ms of (floating) wall-clock time. */
const PERIOD_MS: Partial<Record<number, number>> = {
  [RRule.SECONDLY]: 1000,
  [RRule.MINUTELY]: 60_000,
  [RRule.HOURLY]: 3_600_000,
  [RRule.DAILY]: 86_400_000,
  [RRule.WEEKLY]: 7 * 86_400_000,
};

function ruleOf(timing: ReminderTiming, rule: string, after: Date): RRuleInstance {
  const start = timing.trigger_at ?? timing.created_at;
  const options: Partial<Options> = RRule.parseString(rule);
  // UNTIL is an instant (UTC, RFC 5545); compare it with floating dates as wall-clock time.
  if (options.until) options.until = toWallClock(options.until, timing.timezone);
  let dtstart = toWallClock(start, timing.timezone);
  // rrule walks every period from DTSTART: a MINUTELY rule started a year ago costs half a
  // million steps per evaluation. Without COUNT (which counts from DTSTART), moving DTSTART by
  // whole periods (INTERVAL included) keeps every occurrence, so start one period before `after`.
  const period = options.count ? undefined : PERIOD_MS[options.freq!];
  if (period) {
    const step = period * (options.interval ?? 1);
    const periods = Math.floor((toWallClock(after, timing.timezone).getTime() - dtstart.getTime()) / step) - 1;
    if (periods > 0) dtstart = new Date(dtstart.getTime() + periods * step);
  }
  return new RRule({ ...options, dtstart, tzid: null });
}

/** The first occurrence of the reminder strictly after `after`, or null when there is none. */
export function nextTriggerAt(timing: ReminderTiming, after: Date): Date | null {
  if (!timing.repeat_rule) return timing.trigger_at && timing.trigger_at > after ? timing.trigger_at : null;
  const parsed = parseRepeatRule(timing.repeat_rule);
  if ('error' in parsed) return null;
  const rule = ruleOf(timing, parsed.rule, after);
  // Occurrences are whole seconds; a wall-clock hour repeated in autumn maps to one instant, so
  // step past any occurrence that lands at or before `after`.
  let wall = toWallClock(after, timing.timezone);
  for (let guard = 0; guard < 4; guard++) {
    const next: Date | null = rule.after(wall, false);
    if (!next) return null;
    const instant = fromWallClock(next, timing.timezone);
    if (instant > after) return instant;
    wall = next;
  }
  return null;
}

/**
 * `next_trigger_at` of a reminder created, resumed or rescheduled at `now`: `trigger_at` for a
 * one-off reminder (a past time fires on the next scheduler run), else the rule's first
 * occurrence after now.
 */
export function scheduledTriggerAt(timing: ReminderTiming, now: Date): Date | null {
  return timing.repeat_rule ? nextTriggerAt(timing, now) : timing.trigger_at;
}
