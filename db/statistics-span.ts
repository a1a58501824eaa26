// How GET /stats reads a span of local days from a per-day summary table and its rollups
// (migrations 021, 024, 028): whole years and months from the rollups, partial months from their
// days or from a month row less its other days. Pure: plans of day ranges, and the SQL test of
// a day against them.
import { sql } from 'kysely';
import { addDays, addMonths, daysBetween } from '../domain/stats-periods.js';

export interface DayRange {
  /** First local day, `YYYY-MM-DD`. */
  first: string;
  /** Last local day, inclusive. */
  last: string;
}

/** How `days` is read from a day table and its monthly rollup (migration 024). */
export interface SpanPlan {
  /** First days of the months read from the rollup; undefined when none is. */
  months?: DayRange;
  /** Day ranges added from the day table. */
  plus: DayRange[];
  /** Day ranges subtracted: the days of a rollup month that lie outside `days`. */
  minus: DayRange[];
}

const monthStart = (day: string) => `${day.slice(0, 8)}01`;
const monthEnd = (day: string) => addDays(addMonths(monthStart(day), 1), -1);

/**
 * The whole months of `days` from the rollup, and each partial month at either end either from
 * its days, or from its month row minus the month's other days, whichever reads fewer days
 * (sums and counts are exact, so the difference is the same sum). Days after `today` count as
 * free: only future-dated rows fall on them, so the current month is its month row minus the
 * days still to come. A month row costs about one day's rows, hence the `+ 1`.
 */
export function spanPlan(days: DayRange, today?: string): SpanPlan {
  const cost = (ranges: DayRange[]) =>
    ranges.reduce((n, r) => {
      const last = today !== undefined && today < r.last ? today : r.last;
      return n + (r.first <= last ? daysBetween(r.first, last) + 1 : 0);
    }, 0);
  const useMonth = (direct: DayRange, complement: DayRange[]) => cost(complement) + 1 < cost([direct]);
  const nonEmpty = (r: DayRange) => r.first <= r.last;
  const [firstMonth, lastMonth] = [monthStart(days.first), monthStart(days.last)];
  if (firstMonth === lastMonth) {
    const complement = [
      { first: firstMonth, last: addDays(days.first, -1) },
      { first: addDays(days.last, 1), last: monthEnd(days.last) },
    ].filter(nonEmpty);
    return complement.length === 0 || useMonth(days, complement)
      ? { months: { first: firstMonth, last: firstMonth }, plus: [], minus: complement }
      : { plus: [days], minus: [] };
  }
  const plan: SpanPlan = { plus: [], minus: [] };
  let [first, last] = [firstMonth, lastMonth];
  if (days.first !== firstMonth) {
    const [direct, complement] = [{ first: days.first, last: monthEnd(days.first) }, { first: firstMonth, last: addDays(days.first, -1) }];
    if (useMonth(direct, [complement])) plan.minus.push(complement);
    else [plan.plus, first] = [[...plan.plus, direct], addMonths(firstMonth, 1)];
  }
  if (days.last !== monthEnd(days.last)) {
    const [direct, complement] = [{ first: lastMonth, last: days.last }, { first: addDays(days.last, 1), last: monthEnd(days.last) }];
    if (useMonth(direct, [complement])) plan.minus.push(complement);
    else [plan.plus, last] = [[...plan.plus, direct], addMonths(lastMonth, -1)];
  }
  if (first <= last) plan.months = { first, last };
  return plan;
}

/** `alias.day` in any of `ranges` (false when there is none). */
export const dayWithin = (alias: string, ranges: DayRange[]) =>
  ranges.length === 0
    ? sql`false`
    : sql`(${sql.join(ranges.map((r) => sql`${sql.ref(`${alias}.day`)} between ${r.first}::date and ${r.last}::date`), sql` or `)})`;

/** How `days` is read from the yearly rollups (migration 028): whole years, and the rest. */
export interface YearPlan {
  /** January 1st of the years read from a yearly rollup; undefined when none is. */
  years?: DayRange;
  /** Days subtracted from the day table: the last year's days after `days`, all after today. */
  minus: DayRange[];
  /** The days before and after those years, read as spanPlan says. */
  rest: DayRange[];
}

/**
 * The whole years of `days`, and the last year as its year row less the days after `days` when
 * those are all after `today` (free: only future-dated rows fall on them), so all time (2000 to
 * today) is its year rows alone.
 */
export function yearPlan(days: DayRange, today?: string): YearPlan {
  const year = (day: string) => Number(day.slice(0, 4));
  const firstYear = days.first.endsWith('-01-01') ? year(days.first) : year(days.first) + 1;
  const untilYearEnd = { first: addDays(days.last, 1), last: `${year(days.last)}-12-31` };
  const lastIsWhole = days.last.endsWith('-12-31') || (today !== undefined && days.last >= today);
  const lastYear = lastIsWhole ? year(days.last) : year(days.last) - 1;
  if (firstYear > lastYear) return { minus: [], rest: [days] };
  const yearStart = (y: number) => `${String(y).padStart(4, '0')}-01-01`;
  const rest = [
    { first: days.first, last: addDays(yearStart(firstYear), -1) },
    { first: yearStart(lastYear + 1), last: days.last },
  ].filter((r) => r.first <= r.last);
  return { years: { first: yearStart(firstYear), last: yearStart(lastYear) }, minus: [untilYearEnd].filter((r) => lastIsWhole && r.first <= r.last), rest };
}

/** One read of a summary span: rows of `table` on `ranges`, negated or not. */
interface SpanArm {
  table: string;
  ranges: DayRange[];
  negated: boolean;
}

/**
 * The reads that give `days` of a per-day summary table: whole years from its yearly rollup when
 * `byYear`, the rest as spanPlan says (whole months from the monthly rollup, partial months from
 * days or a month row less its other days); ranges of one table and sign are read together.
 */
export function spanArms(dayTable: string, days: DayRange, today: string | undefined, byYear: boolean): SpanArm[] {
  const arms: SpanArm[] = [];
  const add = (table: string, negated: boolean, ranges: DayRange[]) => {
    if (ranges.length === 0) return;
    const same = arms.find((a) => a.table === table && a.negated === negated);
    if (same) same.ranges.push(...ranges);
    else arms.push({ table, negated, ranges: [...ranges] });
  };
  const years = byYear ? yearPlan(days, today) : { minus: [], rest: [days] };
  if (years.years) add(dayTable.replace('_day_sums', '_year_sums'), false, [years.years]);
  add(dayTable, true, years.minus);
  for (const part of years.rest) {
    const plan = spanPlan(part, today);
    if (plan.months) add(dayTable.replace('_day_sums', '_month_sums'), false, [plan.months]);
    add(dayTable, false, plan.plus);
    add(dayTable, true, plan.minus);
  }
  return arms;
}

