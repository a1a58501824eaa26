// When reminders fire: RRULEs in the reminder's time zone (across daylight-saving changes),
// COUNT/UNTIL ends, one-off reminders, and rule validation. Pure: no database.
import t from 'tap';
import { fromWallClock, nextTriggerAt, parseRepeatRule, scheduledTriggerAt, toWallClock, type ReminderTiming } from '../../domain/reminder-schedule.js';

const created_at = new Date('2026-01-01T00:00:00Z');

/** The next `n` firings after `from`, each found from the previous one. */
function firings(timing: ReminderTiming, from: string, n: number): string[] {
  const out: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < n; i++) {
    const next = nextTriggerAt(timing, at);
    if (!next) break;
    out.push(next.toISOString());
    at = next;
  }
  return out;
}

t.test('a 09:00 daily reminder stays at 09:00 in Paris across both DST changes', async (t) => {
  const timing = { trigger_at: new Date('2026-03-27T08:00:00Z'), repeat_rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Paris', created_at };
  t.same(firings(timing, '2026-03-27T07:00:00Z', 4), [
    '2026-03-27T08:00:00.000Z', // 09:00 CET (+01:00)
    '2026-03-28T08:00:00.000Z',
    '2026-03-29T07:00:00.000Z', // 09:00 CEST (+02:00): clocks went forward that night
    '2026-03-30T07:00:00.000Z',
  ]);
  t.same(firings(timing, '2026-10-24T00:00:00Z', 3), ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
});

t.test('the wall-clock time of trigger_at carries the rule when BYHOUR is absent (New York)', async (t) => {
  // trigger_at 2026-03-06 08:30 EST; New York moves to EDT on 2026-03-08.
  const timing = { trigger_at: new Date('2026-03-06T13:30:00Z'), repeat_rule: 'FREQ=DAILY', timezone: 'America/New_York', created_at };
  t.same(firings(timing, '2026-03-06T13:30:00Z', 3), ['2026-03-07T13:30:00.000Z', '2026-03-08T12:30:00.000Z', '2026-03-09T12:30:00.000Z']);
  const weekly = { trigger_at: new Date('2026-10-26T13:00:00Z'), repeat_rule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0', timezone: 'America/New_York', created_at };
  t.same(firings(weekly, '2026-10-26T00:00:00Z', 2), ['2026-10-26T13:00:00.000Z', '2026-11-02T14:00:00.000Z'], 'Monday 09:00 before and after the November change');
});

t.test('the same rule in UTC ignores daylight saving', async (t) => {
  const timing = { trigger_at: new Date('2026-03-28T09:00:00Z'), repeat_rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'UTC', created_at };
  t.same(firings(timing, '2026-03-28T00:00:00Z', 2), ['2026-03-28T09:00:00.000Z', '2026-03-29T09:00:00.000Z']);
});

t.test('COUNT and UNTIL end a rule', async (t) => {
  const counted = { trigger_at: new Date('2026-05-01T10:00:00Z'), repeat_rule: 'FREQ=DAILY;COUNT=3', timezone: 'Europe/Paris', created_at };
  t.same(firings(counted, '2026-04-30T00:00:00Z', 10), ['2026-05-01T10:00:00.000Z', '2026-05-02T10:00:00.000Z', '2026-05-03T10:00:00.000Z']);
  t.equal(nextTriggerAt(counted, new Date('2026-06-01T00:00:00Z')), null, 'exhausted');
  const until = { trigger_at: new Date('2026-05-01T10:00:00Z'), repeat_rule: 'FREQ=DAILY;UNTIL=20260502T100000Z', timezone: 'Europe/Paris', created_at };
  t.same(firings(until, '2026-04-30T00:00:00Z', 10), ['2026-05-01T10:00:00.000Z', '2026-05-02T10:00:00.000Z'], 'UNTIL is inclusive and an instant');
});

t.test('without trigger_at the creation time is DTSTART', async (t) => {
  const timing = { trigger_at: null, repeat_rule: 'FREQ=DAILY;BYHOUR=20;BYMINUTE=0;BYSECOND=0', timezone: 'Asia/Tokyo', created_at: new Date('2026-02-01T05:07:09Z') };
  t.equal(nextTriggerAt(timing, new Date('2026-02-01T05:07:09Z'))?.toISOString(), '2026-02-01T11:00:00.000Z', '20:00 in Tokyo the same day');
});

t.test('one-off reminders', async (t) => {
  const oneOff = { trigger_at: new Date('2026-07-01T12:00:00Z'), repeat_rule: null, timezone: 'UTC', created_at };
  t.equal(nextTriggerAt(oneOff, new Date('2026-06-01T00:00:00Z'))?.toISOString(), '2026-07-01T12:00:00.000Z');
  t.equal(nextTriggerAt(oneOff, new Date('2026-07-01T12:00:00Z')), null, 'nothing after its time');
  t.equal(scheduledTriggerAt(oneOff, new Date('2026-08-01T00:00:00Z'))?.toISOString(), '2026-07-01T12:00:00.000Z', 'a past one-off still fires on create/resume');
  t.equal(scheduledTriggerAt({ ...oneOff, trigger_at: null }, new Date()), null, 'no time, never fires');
});

t.test('wall-clock conversion around the gaps and overlaps', async (t) => {
  t.equal(toWallClock(new Date('2026-07-01T07:00:00Z'), 'Europe/Paris').toISOString(), '2026-07-01T09:00:00.000Z');
  t.equal(fromWallClock(new Date('2026-03-08T02:30:00Z'), 'America/New_York').toISOString(), '2026-03-08T07:30:00.000Z', 'a skipped time moves forward');
  t.equal(fromWallClock(new Date('2026-11-01T01:30:00Z'), 'America/New_York').toISOString(), '2026-11-01T05:30:00.000Z', 'a repeated time is its first occurrence');
});

t.test('rule validation', async (t) => {
  t.same(parseRepeatRule('rrule:freq=weekly;byday=MO,-1FR;interval=2'), { rule: 'FREQ=WEEKLY;BYDAY=MO,-1FR;INTERVAL=2' });
  for (const bad of ['', 'garbage', 'FREQ=SOMETIMES', 'BYHOUR=9', 'FREQ=DAILY;INTERVAL=x', 'FREQ=DAILY;BYHOUR=24', 'FREQ=DAILY;FREQ=WEEKLY', 'FREQ=DAILY;COUNT=2;UNTIL=20260101T000000Z', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', 'FREQ=DAILY;UNTIL=20261340', 'FREQ=DAILY;BYDAY=XX']) {
    t.ok('error' in parseRepeatRule(bad), `${bad} is refused`);
  }
  t.equal(nextTriggerAt({ trigger_at: null, repeat_rule: 'nonsense', timezone: 'UTC', created_at }, new Date()), null, 'a stored bad rule never fires');
});

t.test('rules on which the rrule package never returns are refused', async (t) => {
  // rrule 2.8 loops forever on a time-of-day filter at or above a sub-daily FREQ, e.g.
  // HOURLY;INTERVAL=2;BYHOUR=1 from an even hour: one such reminder would hang the process.
  for (const hanging of ['FREQ=HOURLY;INTERVAL=2;BYHOUR=1', 'FREQ=HOURLY;INTERVAL=24;BYHOUR=3', 'FREQ=MINUTELY;BYHOUR=3;BYDAY=MO', 'FREQ=MINUTELY;INTERVAL=2;BYMINUTE=1', 'FREQ=SECONDLY;BYMINUTE=5']) {
    t.ok('error' in parseRepeatRule(hanging), `${hanging} is refused`);
  }
  for (const fine of ['FREQ=HOURLY;BYMINUTE=0,30', 'FREQ=MINUTELY;INTERVAL=15;BYDAY=MO,TU', 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0']) {
    t.notOk('error' in parseRepeatRule(fine), `${fine} is accepted`);
  }
});

t.test('a frequent rule with a DTSTART long ago is evaluated quickly and in step', async (t) => {
  const now = new Date('2026-11-21T10:00:30Z');
  const cases = [
    { trigger_at: '2025-11-21T10:00:07Z', rule: 'FREQ=MINUTELY;INTERVAL=7', next: '2026-11-21T10:02:07.000Z' },
    { trigger_at: '1000-01-01T00:00:00Z', rule: 'FREQ=HOURLY', next: '2026-11-21T11:00:00.000Z' },
    { trigger_at: '1900-01-01T06:00:00Z', rule: 'FREQ=DAILY;INTERVAL=3', next: '2026-11-23T06:00:00.000Z' },
    { trigger_at: '1601-01-01T09:00:00Z', rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE', next: '2026-11-23T09:00:00.000Z' },
  ];
  for (const c of cases) {
    const started = Date.now();
    const next = nextTriggerAt({ trigger_at: new Date(c.trigger_at), repeat_rule: c.rule, timezone: 'UTC', created_at }, now);
    t.ok(Date.now() - started < 500, `${c.rule} from ${c.trigger_at} in ${Date.now() - started} ms`);
    t.equal(next?.toISOString(), c.next, `${c.rule} from ${c.trigger_at}`);
  }
});
