// Budget windows: calendar-aligned weeks (Monday–Sunday), months and years cut to the budget's
// start and end dates, custom ranges, and the chain of ended windows the close job walks.
import t from 'tap';
import {
  currentWindow,
  daysInWindow,
  endedWindows,
  nextWindow,
  previousWindow,
  type BudgetSchedule,
  type BudgetWindow,
} from '../../domain/budget-periods.js';

const schedule = (period_type: BudgetSchedule['period_type'], start_date: string, end_date: string | null = null): BudgetSchedule => ({
  period_type,
  start_date,
  end_date,
});
const w = (start: string, end: string): BudgetWindow => ({ start, end });

t.test('weekly windows run Monday to Sunday', async (t) => {
  const weekly = schedule('weekly', '2020-01-01');
  t.same(currentWindow(weekly, '2026-11-16'), w('2026-11-16', '2026-11-22'), 'a Monday starts its week');
  t.same(currentWindow(weekly, '2026-11-19'), w('2026-11-16', '2026-11-22'), 'a Thursday');
  t.same(currentWindow(weekly, '2026-11-22'), w('2026-11-16', '2026-11-22'), 'a Sunday ends its week');
  t.same(currentWindow(weekly, '2026-11-23'), w('2026-11-23', '2026-11-29'), 'the next Monday is the next week');
  t.same(currentWindow(weekly, '2026-12-30'), w('2026-12-28', '2027-01-03'), 'a week across the new year');
  t.same(currentWindow(weekly, '2024-02-29'), w('2024-02-26', '2024-03-03'), 'a week across a leap day');
  t.equal(daysInWindow(currentWindow(weekly, '2026-11-19')), 7);
});

t.test('monthly windows run from the 1st to the last day', async (t) => {
  const monthly = schedule('monthly', '1990-01-01');
  t.same(currentWindow(monthly, '2026-01-01'), w('2026-01-01', '2026-01-31'));
  t.same(currentWindow(monthly, '2026-01-31'), w('2026-01-01', '2026-01-31'));
  t.same(currentWindow(monthly, '2026-04-15'), w('2026-04-01', '2026-04-30'), '30-day month');
  t.same(currentWindow(monthly, '2026-02-10'), w('2026-02-01', '2026-02-28'), 'February of a common year');
  t.same(currentWindow(monthly, '2024-02-29'), w('2024-02-01', '2024-02-29'), 'February of a leap year');
  t.same(currentWindow(monthly, '2000-02-15'), w('2000-02-01', '2000-02-29'), '2000 is a leap year');
  t.same(currentWindow(monthly, '2100-02-15'), w('2100-02-01', '2100-02-28'), '2100 is not');
  t.same(currentWindow(monthly, '2026-12-31'), w('2026-12-01', '2026-12-31'));
  t.equal(daysInWindow(w('2024-02-01', '2024-02-29')), 29);
  t.same(nextWindow(monthly, w('2026-01-01', '2026-01-31')), w('2026-02-01', '2026-02-28'));
  t.same(previousWindow(monthly, w('2026-03-01', '2026-03-31')), w('2026-02-01', '2026-02-28'));
  t.same(nextWindow(monthly, w('2026-12-01', '2026-12-31')), w('2027-01-01', '2027-01-31'), 'into the next year');
});

t.test('yearly windows run from 1 January to 31 December', async (t) => {
  const yearly = schedule('yearly', '2020-01-01');
  t.same(currentWindow(yearly, '2026-06-15'), w('2026-01-01', '2026-12-31'));
  t.same(currentWindow(yearly, '2026-01-01'), w('2026-01-01', '2026-12-31'));
  t.same(currentWindow(yearly, '2026-12-31'), w('2026-01-01', '2026-12-31'));
  t.equal(daysInWindow(currentWindow(yearly, '2024-07-01')), 366, 'a leap year has 366 days');
  t.equal(daysInWindow(currentWindow(yearly, '2026-07-01')), 365);
  t.same(previousWindow(yearly, w('2026-01-01', '2026-12-31')), w('2025-01-01', '2025-12-31'));
});

t.test('the first window starts on start_date, never before', async (t) => {
  t.same(currentWindow(schedule('monthly', '2026-11-10'), '2026-11-19'), w('2026-11-10', '2026-11-30'));
  t.same(currentWindow(schedule('weekly', '2026-11-19'), '2026-11-20'), w('2026-11-19', '2026-11-22'), 'cut mid-week');
  t.same(currentWindow(schedule('yearly', '2026-03-15'), '2026-11-19'), w('2026-03-15', '2026-12-31'));
  t.same(currentWindow(schedule('monthly', '2026-11-10'), '2026-12-05'), w('2026-12-01', '2026-12-31'), 'later windows are whole');
  t.equal(previousWindow(schedule('monthly', '2026-11-10'), w('2026-11-10', '2026-11-30')), null, 'nothing before the first window');
  t.same(previousWindow(schedule('monthly', '2026-11-10'), w('2026-12-01', '2026-12-31')), w('2026-11-10', '2026-11-30'));
});

t.test('a budget starting in the future shows its first window', async (t) => {
  t.same(currentWindow(schedule('monthly', '2027-03-10'), '2026-11-19'), w('2027-03-10', '2027-03-31'));
  t.same(currentWindow(schedule('weekly', '2026-12-02'), '2026-11-19'), w('2026-12-02', '2026-12-06'));
  t.same(currentWindow(schedule('yearly', '2027-01-01'), '2026-11-19'), w('2027-01-01', '2027-12-31'));
  t.same(currentWindow(schedule('custom', '2027-01-01', '2027-01-20'), '2026-11-19'), w('2027-01-01', '2027-01-20'));
});

t.test('end_date cuts the last window, and after it the last window stays', async (t) => {
  const ending = schedule('monthly', '2026-01-01', '2026-03-15');
  t.same(currentWindow(ending, '2026-03-10'), w('2026-03-01', '2026-03-15'), 'the last window ends on end_date');
  t.same(currentWindow(ending, '2026-11-19'), w('2026-03-01', '2026-03-15'), 'after end_date: the last window');
  t.same(currentWindow(ending, '2026-02-10'), w('2026-02-01', '2026-02-28'));
  t.equal(nextWindow(ending, w('2026-03-01', '2026-03-15')), null, 'nothing after end_date');
  t.same(currentWindow(schedule('weekly', '2026-11-01', '2026-11-18'), '2027-01-01'), w('2026-11-16', '2026-11-18'));
  t.same(currentWindow(schedule('monthly', '2026-11-10', '2026-11-20'), '2026-11-15'), w('2026-11-10', '2026-11-20'), 'cut at both ends');
});

t.test('custom budgets have one window from start_date to end_date', async (t) => {
  const custom = schedule('custom', '2026-11-05', '2027-02-10');
  for (const today of ['2026-10-01', '2026-11-05', '2026-12-24', '2027-02-10', '2028-01-01']) {
    t.same(currentWindow(custom, today), w('2026-11-05', '2027-02-10'), today);
  }
  t.equal(daysInWindow(currentWindow(custom, '2026-12-24')), 98);
  t.equal(nextWindow(custom, w('2026-11-05', '2027-02-10')), null);
  t.equal(previousWindow(custom, w('2026-11-05', '2027-02-10')), null);
  t.same(currentWindow(schedule('custom', '2026-11-05', '2026-11-05'), '2026-11-19'), w('2026-11-05', '2026-11-05'), 'one day');
});

t.test('endedWindows lists the windows that ended before today, oldest first', async (t) => {
  const monthly = schedule('monthly', '2026-01-15');
  t.same(endedWindows(monthly, '2026-04-01', null, 10), [w('2026-01-15', '2026-01-31'), w('2026-02-01', '2026-02-28'), w('2026-03-01', '2026-03-31')]);
  t.same(endedWindows(monthly, '2026-03-31', null, 10), [w('2026-01-15', '2026-01-31'), w('2026-02-01', '2026-02-28')], 'the window ending today has not ended');
  t.same(endedWindows(monthly, '2026-04-01', w('2026-01-15', '2026-01-31'), 10), [w('2026-02-01', '2026-02-28'), w('2026-03-01', '2026-03-31')], 'after a closed window');
  t.same(endedWindows(monthly, '2026-04-01', null, 2), [w('2026-01-15', '2026-01-31'), w('2026-02-01', '2026-02-28')], 'at most limit');
  t.same(endedWindows(monthly, '2026-04-01', w('2026-03-01', '2026-03-31'), 10), [], 'nothing after the last ended one');
  t.same(endedWindows(monthly, '2026-01-20', null, 10), [], 'the first window has not ended');
  t.same(endedWindows(schedule('monthly', '2027-01-01'), '2026-11-19', null, 10), [], 'a budget in the future');

  // The chain links: every window starts the day after the previous one ends.
  const weekly = schedule('weekly', '2026-01-07', '2026-03-04');
  const chain = endedWindows(weekly, '2027-01-01', null, 100);
  t.same(chain[0], w('2026-01-07', '2026-01-11'));
  t.same(chain.at(-1), w('2026-03-02', '2026-03-04'), 'stops at end_date');
  t.equal(chain.length, 9);
  for (let i = 1; i < chain.length; i++) t.same(previousWindow(weekly, chain[i]), chain[i - 1]);

  const custom = schedule('custom', '2026-01-01', '2026-01-31');
  t.same(endedWindows(custom, '2026-02-01', null, 10), [w('2026-01-01', '2026-01-31')]);
  t.same(endedWindows(custom, '2026-02-01', w('2026-01-01', '2026-01-31'), 10), [], 'closed once');
  t.same(endedWindows(custom, '2026-01-31', null, 10), []);
});

t.test('next and previous windows walk the calendar', async (t) => {
  const weekly = schedule('weekly', '2020-01-01');
  t.same(nextWindow(weekly, w('2026-11-16', '2026-11-22')), w('2026-11-23', '2026-11-29'));
  t.same(previousWindow(weekly, w('2026-11-16', '2026-11-22')), w('2026-11-09', '2026-11-15'));
  const yearly = schedule('yearly', '2020-06-01');
  t.same(previousWindow(yearly, w('2021-01-01', '2021-12-31')), w('2020-06-01', '2020-12-31'));
});
