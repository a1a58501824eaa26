// Calendar days in a time zone (an IANA name the runtime knows; see isTimeZone).
// Day filters compare instants with the bounds computed here, so queries keep using the
// datetime index and need no time-zone data in the database.

/** The instant a calendar day (`YYYY-MM-DD`) starts in `timeZone`. */
export function startOfDay(day: string, timeZone: string): Date {
  const [year, month, date] = day.split('-').map(Number);
  const wallClock = Date.UTC(year, month - 1, date);
  // The offset at the guessed instant, then again at the corrected one (DST changes at midnight).
  let instant = wallClock - offsetMs(new Date(wallClock), timeZone);
  instant = wallClock - offsetMs(new Date(instant), timeZone);
  return new Date(instant);
}

/** The instant the day after `day` starts in `timeZone` (an exclusive upper bound). */
export function startOfNextDay(day: string, timeZone: string): Date {
  const [year, month, date] = day.split('-').map(Number);
  const next = new Date(Date.UTC(year, month - 1, date + 1)).toISOString().slice(0, 10);
  return startOfDay(next, timeZone);
}

/** Local wall-clock time minus UTC at `instant`, in milliseconds. */
export function offsetMs(instant: Date, timeZone: string): number {
  const parts = wallClockFormat(timeZone).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(instant.getTime() / 1000) * 1000;
}

/** A formatter per time zone, made once: making one costs far more than using it (an import asks per row). */
const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

function wallClockFormat(timeZone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    wallClockFormats.set(timeZone, format);
  }
  return format;
}
