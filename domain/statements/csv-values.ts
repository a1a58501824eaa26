// Dates and amounts of a bank CSV, read by the conventions of the whole column rather than
// cell by cell: a column's date format is the one under which every value of it is a real
// day (so 03/04/2026 is read the way 13/04/2026 in the same column says), and a file's
// decimal separator is the one its amounts end with ("1.234,56" and "1,234.56" both read).
import { Decimal, MONEY_DECIMALS } from '../money.js';
import { calendarDay } from './statement-line.js';

export type DateOrder = 'ymd' | 'dmy' | 'mdy';

export interface DateFormat {
  order: DateOrder;
  /** The separator between the parts, or '' for YYYYMMDD. */
  separator: string;
  /** Digits of the year as written (2 or 4). */
  yearDigits: 2 | 4;
}

/** "DD.MM.YY", "MM/DD/YYYY", "YYYY-MM-DD", ... as the session shows it. */
export function dateFormatLabel(format: DateFormat): string {
  const year = format.yearDigits === 4 ? 'YYYY' : 'YY';
  const parts = { ymd: [year, 'MM', 'DD'], dmy: ['DD', 'MM', year], mdy: ['MM', 'DD', year] }[format.order];
  return parts.join(format.separator);
}

/** The format a label names (the mapping a user sends), or undefined. */
export function parseDateFormatLabel(label: string): DateFormat | undefined {
  const match = /^(YYYY|YY|DD|MM)([./-]?)(YYYY|YY|DD|MM)\2(YYYY|YY|DD|MM)$/.exec(label.trim().toUpperCase());
  if (!match) return undefined;
  const parts = [match[1], match[3], match[4]];
  const order = parts.map((p) => p[0].toLowerCase()).join('');
  if (order !== 'ymd' && order !== 'dmy' && order !== 'mdy') return undefined;
  const year = parts.find((p) => p.startsWith('Y'))!;
  return { order, separator: match[2], yearDigits: year.length === 4 ? 4 : 2 };
}

/** The date part of a cell: a trailing time ("14:05", "T14:05:00+01:00") does not change the day. */
function datePart(raw: string): string {
  return raw.trim().replace(/(?:[T\s,]+\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:[ap]m)?(?:Z|[+-]\d{2}:?\d{2})?)$/i, '');
}

function splitDate(raw: string): { parts: string[]; separator: string } | undefined {
  const text = datePart(raw);
  if (/^\d{8}$/.test(text)) return { parts: [text.slice(0, 4), text.slice(4, 6), text.slice(6, 8)], separator: '' };
  const match = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})$/.exec(text);
  return match ? { parts: [match[1], match[3], match[4]], separator: match[2] } : undefined;
}

/** Whether a cell is shaped like a numeric date (any order, with or without a time). */
export function looksLikeDate(raw: string): boolean {
  return splitDate(raw) !== undefined;
}

/** A cell read with a format: YYYY-MM-DD, or null when it is not a day of that format. */
export function readDate(raw: string, format: DateFormat): string | null {
  const split = splitDate(raw);
  if (!split || split.separator !== format.separator) return null;
  const [a, b, c] = split.parts;
  const [year, month, day] = format.order === 'ymd' ? [a, b, c] : format.order === 'dmy' ? [c, b, a] : [c, a, b];
  if (year.length !== format.yearDigits) return null;
  const fullYear = year.length === 2 ? String(2000 + Number(year)) : year;
  return calendarDay(fullYear, month.padStart(2, '0'), day.padStart(2, '0'));
}

/**
 * The format under which every non-empty value is a day, or undefined when none fits. When
 * several fit (no day above 12 anywhere), day-first wins except for US-style `/` with a
 * month-first hint: banks that write MM/DD do so with slashes, and a single value above 12
 * in the second place settles it.
 */
export function inferDateFormat(values: string[]): DateFormat | undefined {
  const inference = new DateFormatInference();
  for (const value of values) inference.add(value);
  return inference.result();
}

/**
 * inferDateFormat fed one value at a time (a file read as a stream): the formats still
 * possible after every value seen, so a column is judged by all its values without keeping them.
 */
export class DateFormatInference {
  private fitting: DateFormat[] | undefined;
  /** A value no format reads: nothing fits the column. */
  private unreadable = false;

  add(value: string): void {
    const sample = value.trim();
    if (sample === '' || this.unreadable) return;
    if (this.fitting === undefined) {
      const first = splitDate(sample);
      if (!first) {
        this.unreadable = true;
        return;
      }
      const yearFirst = first.parts[0].length === 4;
      const yearDigits = (yearFirst ? first.parts[0].length : first.parts[2].length) === 4 ? 4 : 2;
      const orders: DateOrder[] = yearFirst ? ['ymd'] : ['dmy', 'mdy'];
      this.fitting = orders.map((order): DateFormat => ({ order, separator: first.separator, yearDigits }));
    }
    if (this.fitting.length > 0) this.fitting = this.fitting.filter((format) => readDate(sample, format) !== null);
  }

  result(): DateFormat | undefined {
    return this.unreadable ? undefined : this.fitting?.[0];
  }
}

/** Whether a column's values are mostly dates of one format (the value-based fallback). */
export function isDateColumn(values: string[]): boolean {
  const samples = values.filter((v) => v.trim() !== '');
  return samples.length > 0 && inferDateFormat(samples) !== undefined;
}

export type DecimalSeparator = '.' | ',';

/** The decimal separator most amounts end with (a separator followed by one or two digits); '.' when none says. */
export function inferDecimalSeparator(values: string[]): DecimalSeparator {
  const votes = new DecimalSeparatorVotes();
  for (const value of values) votes.add(value);
  return votes.result();
}

/** inferDecimalSeparator fed one amount at a time. */
export class DecimalSeparatorVotes {
  private commas = 0;
  private dots = 0;

  add(value: string): void {
    const text = value.replace(/[^\d.,]/g, '');
    const last = Math.max(text.lastIndexOf('.'), text.lastIndexOf(','));
    if (last < 0) return;
    const decimals = text.length - last - 1;
    const both = text.includes('.') && text.includes(',');
    if (decimals >= 1 && (decimals <= 2 || both)) {
      if (text[last] === ',') this.commas++;
      else this.dots++;
    }
  }

  result(): DecimalSeparator {
    return this.commas > this.dots ? ',' : '.';
  }
}

/**
 * An amount cell with the file's decimal separator → a signed exact decimal, or undefined.
 * Thousands groups (".", ",", spaces, apostrophes), currency codes and symbols, a leading or
 * trailing minus and accounting parentheses are understood.
 */
export function readAmount(raw: string, separator: DecimalSeparator): Decimal | undefined {
  let text = raw.trim().replace(/[\s\u00a0\u202f'’]/g, '');
  if (text === '') return undefined;
  let negative = false;
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1);
  }
  text = text.replace(/^([+-]?)(?:[A-Za-z]{3}|[€$£])/, '$1').replace(/(?:[A-Za-z]{3}|[€$£])(-?)$/, '$1');
  const match = /^([+-]?)([\d.,]+)(-?)$/.exec(text);
  if (!match || (match[1] && match[3])) return undefined;
  if (match[1] === '-' || match[3] === '-') negative = !negative;
  const group = separator === ',' ? '.' : ',';
  const body = match[2];
  const [integer, fraction, extra] = body.split(separator);
  if (extra !== undefined || fraction === '' || (fraction !== undefined && /\D/.test(fraction))) return undefined;
  const groups = integer.split(group);
  if (groups.length > 1 && (groups[0].length < 1 || groups[0].length > 3 || groups.slice(1).some((g) => g.length !== 3))) return undefined;
  const digits = groups.join('');
  if (!/^\d+$/.test(digits) || (fraction?.length ?? 0) > MONEY_DECIMALS) return undefined;
  const value = new Decimal(fraction ? `${digits}.${fraction}` : digits);
  return negative ? value.negated() : value;
}
