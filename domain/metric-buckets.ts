// The period and the series buckets of the admin metrics, in UTC. Bucket keys match what
// PostgreSQL's to_char gives for the same instant (see db/admin-metrics.ts):
// day `YYYY-MM-DD`, ISO week `IYYY-"W"IW`, month `YYYY-MM`.

export type Granularity = 'day' | 'week' | 'month';

const DAY_MS = 86_400_000;

export interface MetricsPeriod {
  /** 00:00:00.000 UTC of the first day. */
  start: Date;
  /** 23:59:59.999 UTC of today. */
  end: Date;
}

/** `days` days ending today (today included). */
export function metricsPeriod(now: Date, days: number): MetricsPeriod {
  const today = startOfUtcDay(now);
  return { start: new Date(today.getTime() - (Math.max(1, days) - 1) * DAY_MS), end: new Date(today.getTime() + DAY_MS - 1) };
}

export function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

export function startOfUtcMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The bucket key of an instant. */
export function bucketKey(at: Date, granularity: Granularity): string {
  const iso = at.toISOString();
  if (granularity === 'day') return iso.slice(0, 10);
  if (granularity === 'month') return iso.slice(0, 7);
  const { year, week } = isoWeek(at);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Every bucket key from the one holding `start` to the one holding `end`, in order. */
export function bucketKeys(period: MetricsPeriod, granularity: Granularity): string[] {
  const keys: string[] = [];
  let cursor = bucketStart(period.start, granularity);
  while (cursor <= period.end) {
    keys.push(bucketKey(cursor, granularity));
    cursor = nextBucket(cursor, granularity);
  }
  return keys;
}

function bucketStart(at: Date, granularity: Granularity): Date {
  const day = startOfUtcDay(at);
  if (granularity === 'day') return day;
  if (granularity === 'month') return startOfUtcMonth(at);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS);
}

function nextBucket(at: Date, granularity: Granularity): Date {
  if (granularity === 'day') return new Date(at.getTime() + DAY_MS);
  if (granularity === 'week') return new Date(at.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** ISO 8601 week-numbering year and week of a UTC instant. */
function isoWeek(at: Date): { year: number; week: number } {
  const day = startOfUtcDay(at);
  const weekday = (day.getUTCDay() + 6) % 7; // Monday 0
  const thursday = new Date(day.getTime() + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  // Week 1 holds the year's first Thursday, so a week's Thursday decides its year and number.
  return { year, week: 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) };
}

/** The series over the keys, zero where no row counted. */
export function zeroFilled(keys: string[], counts: Array<{ bucket: string; count: number }>): Array<{ date: string; value: number }> {
  const byKey = new Map(counts.map((row) => [row.bucket, Number(row.count)]));
  return keys.map((key) => ({ date: key, value: byKey.get(key) ?? 0 }));
}
