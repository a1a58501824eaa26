// `synced_since` as clients send it: ISO 8601 with or without fractional seconds (whatever
// their count), with or without a zone (UTC assumed). Compared at whole seconds, rounded
// down, so rows of that second are sent again rather than ever skipped.

const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

export function parseSyncedSince(text: string): Date | undefined {
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [, date, time = '00:00:00', zone = 'Z'] = match;
  const normalisedZone = zone.toUpperCase() === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const parsed = new Date(`${date}T${time.length === 5 ? `${time}:00` : time}${normalisedZone}`);
  if (Number.isNaN(parsed.getTime())) return undefined;
  // Date rolls 2026-02-30 over into March: a day that does not exist is not a time.
  const [year, month, day] = date.split('-').map(Number);
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day) return undefined;
  parsed.setUTCMilliseconds(0);
  return parsed;
}
