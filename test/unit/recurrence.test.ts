// Recurring schedules: occurrences anchored at the transaction's datetime, month ends clamped,
// and the first occurrence after a moment (no back-fill).
import t from 'tap';
import { nextOccurrence, occurrence, type Schedule } from '../../domain/recurrence.js';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

t.test('occurrences step by interval × period from the anchor', async (t) => {
  const anchor = at('2026-01-10T08:30:00.000Z');
  t.equal(iso(occurrence({ anchor, period: 'daily', interval: 1 }, 1)), '2026-01-11T08:30:00.000Z');
  t.equal(iso(occurrence({ anchor, period: 'daily', interval: 3 }, 2)), '2026-01-16T08:30:00.000Z');
  t.equal(iso(occurrence({ anchor, period: 'weekly', interval: 2 }, 1)), '2026-01-24T08:30:00.000Z');
  t.equal(iso(occurrence({ anchor, period: 'monthly', interval: 1 }, 13)), '2027-02-10T08:30:00.000Z');
  t.equal(iso(occurrence({ anchor, period: 'yearly', interval: 2 }, 1)), '2028-01-10T08:30:00.000Z');
});

t.test('a month step onto a missing day falls on the last day, and the grid stays anchored', async (t) => {
  const schedule: Schedule = { anchor: at('2026-01-31T12:00:00.000Z'), period: 'monthly', interval: 1 };
  t.same([1, 2, 3, 4].map((k) => iso(occurrence(schedule, k))), [
    '2026-02-28T12:00:00.000Z',
    '2026-03-31T12:00:00.000Z',
    '2026-04-30T12:00:00.000Z',
    '2026-05-31T12:00:00.000Z',
  ]);
  const leap: Schedule = { anchor: at('2024-02-29T00:00:00.000Z'), period: 'yearly', interval: 1 };
  t.equal(iso(occurrence(leap, 1)), '2025-02-28T00:00:00.000Z');
  t.equal(iso(occurrence(leap, 4)), '2028-02-29T00:00:00.000Z');
});

t.test('the next occurrence is the first strictly after the moment', async (t) => {
  const daily: Schedule = { anchor: at('2026-03-01T09:00:00.000Z'), period: 'daily', interval: 1 };
  t.equal(iso(nextOccurrence(daily, at('2026-03-01T09:00:00.000Z'))), '2026-03-02T09:00:00.000Z', 'the anchor itself is not an occurrence');
  t.equal(iso(nextOccurrence(daily, at('2026-03-10T08:59:59.000Z'))), '2026-03-10T09:00:00.000Z');
  t.equal(iso(nextOccurrence(daily, at('2026-03-10T09:00:00.000Z'))), '2026-03-11T09:00:00.000Z', 'from an occurrence, one step on');
  t.equal(iso(nextOccurrence(daily, at('2020-01-01T00:00:00.000Z'))), '2026-03-02T09:00:00.000Z', 'a future anchor: its first step');

  const monthly: Schedule = { anchor: at('2025-01-31T10:00:00.000Z'), period: 'monthly', interval: 2 };
  t.equal(iso(nextOccurrence(monthly, at('2026-02-15T00:00:00.000Z'))), '2026-03-31T10:00:00.000Z', 'no back-fill of past occurrences');
  t.equal(iso(nextOccurrence(monthly, at('2025-03-31T10:00:00.000Z'))), '2025-05-31T10:00:00.000Z');
  t.equal(iso(nextOccurrence(monthly, at('2025-03-31T09:59:59.000Z'))), '2025-03-31T10:00:00.000Z');

  const weekly: Schedule = { anchor: at('2026-01-05T00:00:00.000Z'), period: 'weekly', interval: 1 };
  t.equal(iso(nextOccurrence(weekly, at('2026-06-30T12:00:00.000Z'))), '2026-07-06T00:00:00.000Z');

  const yearly: Schedule = { anchor: at('2020-06-15T00:00:00.000Z'), period: 'yearly', interval: 3 };
  t.equal(iso(nextOccurrence(yearly, at('2026-06-15T00:00:00.000Z'))), '2029-06-15T00:00:00.000Z');
});

t.test('agrees with a step-by-step search over many schedules', async (t) => {
  const periods = ['daily', 'weekly', 'monthly', 'yearly'] as const;
  let checked = 0;
  for (const period of periods) {
    for (const interval of [1, 2, 5]) {
      const schedule: Schedule = { anchor: at('2024-01-29T23:15:00.000Z'), period, interval };
      for (const after of ['2024-01-29T23:15:00Z', '2024-03-01T00:00:00Z', '2025-12-31T23:59:59Z', '2031-07-04T12:00:00Z']) {
        let k = 1;
        while (occurrence(schedule, k).getTime() <= at(after).getTime()) k++;
        t.equal(iso(nextOccurrence(schedule, at(after))), iso(occurrence(schedule, k)), `${period}/${interval} after ${after}`);
        checked++;
      }
    }
  }
  t.equal(checked, 48);
});
