// The date ranges of GET /stats: presets and explicit dates as whole days in the user's time zone.
import t from 'tap';
import { addMonths, dayIn, statsRange, weekdayName } from '../../domain/stats-periods.js';

// Thursday 2026-11-19, 22:30 UTC (already Friday in Tokyo).
const now = new Date('2026-11-19T22:30:00Z');

t.test('presets end today and start where the reference says', async (t) => {
  const start = (preset: any) => statsRange({ preset }, now, 'UTC')!.startDay;
  t.equal(start('all_time'), '2000-01-01');
  t.equal(start('current_week'), '2026-11-16', 'Monday of this week');
  t.equal(start('current_month'), '2026-11-01');
  t.equal(start('last_3_months'), '2026-08-19');
  t.equal(start('last_30_days'), '2026-10-20');
  t.equal(statsRange({ preset: 'current_month' }, now, 'UTC')!.endDay, '2026-11-19');
});

t.test('a preset wins over explicit dates', async (t) => {
  const range = statsRange({ preset: 'current_month', startDate: '2020-01-01', endDate: '2020-02-01' }, now, 'UTC')!;
  t.same([range.startDay, range.endDay], ['2026-11-01', '2026-11-19']);
});

t.test('explicit dates default each on its own, and an end before the start is refused', async (t) => {
  t.same(pick(statsRange({}, now, 'UTC')!), ['2026-10-20', '2026-11-19']);
  t.same(pick(statsRange({ startDate: '2026-11-01' }, now, 'UTC')!), ['2026-11-01', '2026-11-19']);
  t.same(pick(statsRange({ endDate: '2026-11-10' }, now, 'UTC')!), ['2026-10-20', '2026-11-10']);
  t.equal(statsRange({ startDate: '2026-11-10', endDate: '2026-11-09' }, now, 'UTC'), undefined);
  t.ok(statsRange({ startDate: '2026-11-10', endDate: '2026-11-10' }, now, 'UTC'), 'one day is a range');
});

t.test('days are those of the user time zone', async (t) => {
  // In Tokyo (UTC+9) it is already Friday the 20th.
  const range = statsRange({ preset: 'current_week' }, now, 'Asia/Tokyo')!;
  t.same(pick(range), ['2026-11-16', '2026-11-20']);
  t.equal(range.from.toISOString(), '2026-11-15T15:00:00.000Z', 'Monday 00:00 in Tokyo');
  t.equal(range.before.toISOString(), '2026-11-20T15:00:00.000Z', 'Saturday 00:00 in Tokyo');
  t.equal(range.days, 5);
});

t.test('the previous window has the same number of days, just before the range', async (t) => {
  const range = statsRange({ startDate: '2026-11-01', endDate: '2026-11-10' }, now, 'UTC')!;
  t.equal(range.days, 10);
  t.equal(range.previousStartDay, '2026-10-22');
  t.equal(range.previousFrom.toISOString(), '2026-10-22T00:00:00.000Z');
});

t.test('calendar helpers', async (t) => {
  t.equal(addMonths('2026-05-31', -3), '2026-02-28', 'clamped to the month end');
  t.equal(addMonths('2026-01-15', -3), '2025-10-15');
  t.equal(dayIn(now, 'Asia/Tokyo'), '2026-11-20');
  t.equal(dayIn(now, 'America/New_York'), '2026-11-19');
  t.equal(weekdayName('2026-11-19'), 'Thursday');
});

function pick(range: { startDay: string; endDay: string }) {
  return [range.startDay, range.endDay];
}
