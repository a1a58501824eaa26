// Calendar days in a time zone as instants (the bounds of the transaction list's day filters).
import t from 'tap';
import { startOfDay, startOfNextDay } from '../../domain/time-zone.js';

t.test('a day starts at local midnight', async (t) => {
  t.equal(startOfDay('2026-03-10', 'UTC').toISOString(), '2026-03-10T00:00:00.000Z');
  t.equal(startOfDay('2026-03-10', 'Africa/Douala').toISOString(), '2026-03-09T23:00:00.000Z');
  t.equal(startOfDay('2026-03-10', 'America/New_York').toISOString(), '2026-03-10T04:00:00.000Z');
  t.equal(startOfDay('2026-07-10', 'America/New_York').toISOString(), '2026-07-10T04:00:00.000Z', 'summer time');
  t.equal(startOfDay('2026-01-10', 'America/New_York').toISOString(), '2026-01-10T05:00:00.000Z', 'winter time');
  t.equal(startOfDay('2026-01-10', 'Asia/Kolkata').toISOString(), '2026-01-09T18:30:00.000Z');
});

t.test('the next day bounds a day, across month ends and DST changes', async (t) => {
  t.equal(startOfNextDay('2026-02-28', 'UTC').toISOString(), '2026-03-01T00:00:00.000Z');
  t.equal(startOfNextDay('2026-12-31', 'UTC').toISOString(), '2027-01-01T00:00:00.000Z');
  // New York moves to summer time on 2026-03-08: that day lasts 23 hours
  const start = startOfDay('2026-03-08', 'America/New_York').getTime();
  t.equal((startOfNextDay('2026-03-08', 'America/New_York').getTime() - start) / 3600000, 23);
});
