// Calendar days in a time zone (an IANA name the runtime knows; see isTimeZone).
// Day filters compare instants with the bounds computed here, so queries keep using the
// datetime index and need no time-zone data in the database.

// Each start costs two formatToParts (a page of 50 budgets asks for 100 of a few distinct days):
// kept per zone and day, bounded like the formatters.
const starts = new Map<string, number>();

/** The instant a calendar day (`YYYY-MM-DD`) starts in `timeZone`. */
export function startOfDay(day: string, timeZone: string): Date {
  const key = `${timeZone} ${day}`;
  let start = starts.get(key);
  if (start === undefined) {
    start = computeStartOfDay(day, timeZone);
    if (starts.size >= 10000) starts.clear();
    starts.set(key, start);
  }
  return new Date(start);
}

function computeStartOfDay(day: string, timeZone: string): number {
  const [year, month, date] = day.split('-').map(Number);
  const wallClock = Date.UTC(year, month - 1, date);
  // The offset at the guessed instant, then again at the corrected one (DST changes at midnight).
  const instant = wallClock - offsetMs(new Date(wallClock), timeZone);
  return wallClock - offsetMs(new Date(instant), timeZone);
}

/** The instant the day after `day` starts in `timeZone` (an exclusive upper bound). */
export function startOfNextDay(day: string, timeZone: string): Date {
  const [year, month, date] = day.split('-').map(Number);
  const next = new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10);
  return startOfDay(next, timeZone);
}

// Making a formatter costs far more than using one (a page of 50 budgets made 200 of them):
// one per zone and kind, kept (zone names come from users' settings: the map is bounded).
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(kind: 'wall' | 'day', timeZone: string): Intl.DateTimeFormat {
  const key = `${kind} ${timeZone}`;
  let format = formatters.get(key);
  if (!format) {
    format =
      kind === 'day'
        ? new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
        : new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    if (formatters.size >= 1000) formatters.clear();
    formatters.set(key, format);
  }
  return format;
}

/** The calendar day of `instant` in `timeZone`, `YYYY-MM-DD` (en-CA formats dates so). */
export function localDay(instant: Date, timeZone: string): string {
  return formatter('day', timeZone).format(instant);
}

/** Local wall-clock time minus UTC at `instant`, in milliseconds. */
export function offsetMs(instant: Date, timeZone: string): number {
  const parts = formatter('wall', timeZone).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(instant.getTime() / 1000) * 1000;
}
