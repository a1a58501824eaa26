// Reading transaction rows out of an uploaded CSV file, and the lenient parsing of the
// amounts and dates found in them (DECISIONS, Imports). Pure functions: no database here.
import { parse } from 'csv-parse/sync';
import { Decimal, MONEY_DECIMALS } from './money.js';

export interface ImportRowValues {
  amount: string;
  currency: string | null;
  type: 'income' | 'expense' | 'transfer' | null;
  party: string | null;
  wallet: string | null;
  category: string | null;
  description: string | null;
  /** As written in the file; parseImportDate reads it. */
  date: string | null;
}

export type ImportField = keyof ImportRowValues;

/** The positional order of files without a header row (the reference's only layout). */
export const IMPORT_FIELDS: readonly ImportField[] = [
  'amount',
  'currency',
  'type',
  'party',
  'wallet',
  'category',
  'description',
  'date',
];

/** Header names per field, normalized (lower case, no spaces, dashes or underscores). */
const HEADER_ALIASES: Record<ImportField, string[]> = {
  amount: ['amount'],
  currency: ['currency'],
  type: ['type', 'transactiontype'],
  party: ['party', 'payee'],
  wallet: ['wallet', 'account'],
  category: ['category'],
  description: ['description', 'memo', 'notes', 'note'],
  date: ['date', 'bookingdate'],
};

export interface CsvRow {
  line: number;
  values: ImportRowValues;
  raw: Record<string, string>;
  cells: Record<ImportField, string | null>;
}

/**
 * The most rows the in-memory readers take: a file in the service's own layout analysed by
 * POST /import/analyze (every row a suggestion kept in memory). A bank export on that route and
 * every legacy import (POST /import) have no row limit: they are read as a stream
 * (statements/csv-stream.ts), so the upload limit alone bounds them.
 */
export const MAX_IMPORT_ROWS = 100_000;

/** A file the CSV reader cannot make sense of at all (e.g. an unclosed quote). */
export class CsvReadError extends Error {
  override name = 'CsvReadError';
}

function normalizeHeader(name: string): string {
  return name.toLowerCase().replace(/[\s_\-]+/g, '');
}

function fieldForHeader(name: string): ImportField | null {
  const key = normalizeHeader(name);
  for (const field of IMPORT_FIELDS) {
    if (HEADER_ALIASES[field].includes(key)) return field;
  }
  return null;
}

/** Comma unless the first line clearly uses semicolons or tabs (European bank exports). */
function detectDelimiter(text: string): string {
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const outsideQuotes = firstLine.replace(/"[^"]*"/g, '');
  const count = (ch: string) => outsideQuotes.split(ch).length - 1;
  const candidates = [',', ';', '\t'].map((ch) => ({ ch, n: count(ch) }));
  const best = candidates.reduce((a, b) => (b.n > a.n ? b : a));
  return best.n > 0 ? best.ch : ',';
}

/**
 * The type column read: `income`, `expense`, and `transfer` for either row of a transfer pair
 * (`+transfer`, the source, and `-transfer`, the destination; the cell says which); null when
 * empty or unknown (the caller reports an unknown one from the raw cell).
 */
export function parseImportType(raw: string | null): ImportRowValues['type'] {
  const type = raw?.trim().toLowerCase();
  if (type === 'income' || type === 'expense') return type;
  if (type === 'transfer' || type === '+transfer' || type === '-transfer') return 'transfer';
  return null;
}

function emptyToNull(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/**
 * Parses CSV text: header row matched by name with aliases (amount, currency, type, party/payee,
 * wallet/account, category, description/memo/notes, date/booking date — case/space-insensitive),
 * or without a header the positional order amount, currency, type, party, wallet, category,
 * description, date. Returns each data row's values (raw strings) and its 1-based line number.
 * `raw` keeps every cell of the row by header name (or field name without a header); `cells`
 * has each field's cell exactly as written (null when the file has no such column).
 */
export function readCsvRows(text: string): CsvRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      delimiter: detectDelimiter(text.replace(/^\uFEFF/, '')),
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      info: true,
      // the header and one row too many are enough to refuse the file; the rest is not read
      to: MAX_IMPORT_ROWS + 2,
    }) as unknown as typeof records;
  } catch (error) {
    throw new CsvReadError(`The file is not readable CSV: ${(error as Error).message}`);
  }
  // csv-parse counts the line a record ends on; a quoted cell spanning lines started earlier.
  const rows = records.filter((r) => r.record.some((cell) => cell.trim() !== ''));
  if (rows.length === 0) return [];
  const layout = projectLayoutOf(rows[0].record);
  if (rows.length - (layout.hasHeader ? 1 : 0) > MAX_IMPORT_ROWS) {
    throw new CsvReadError(`The file has more than ${MAX_IMPORT_ROWS} rows: split it into smaller files.`);
  }
  return rows.slice(layout.hasHeader ? 1 : 0).map((r) => projectRow(layout, r.record, recordStartLine(r.record, r.info.lines)));
}

/** The line a record starts on, from the line csv-parse says it ends on (a quoted cell may span lines). */
export function recordStartLine(record: string[], endLine: number): number {
  return endLine - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
}

/** How the project's own layout is read: by the header's names, or positionally without one. */
export interface ProjectLayout {
  hasHeader: boolean;
  /** Each field's column, -1 when the file has none. */
  columns: Record<ImportField, number>;
  /** The names `raw` keys cells by. */
  names: string[];
}

/** The layout the first non-blank record of a file says. */
export function projectLayoutOf(first: string[]): ProjectLayout {
  const headerFields = first.map(fieldForHeader);
  const hasHeader = headerFields.some((f) => f !== null);
  const columns = Object.fromEntries(IMPORT_FIELDS.map((field) => [field, hasHeader ? headerFields.indexOf(field) : IMPORT_FIELDS.indexOf(field)])) as ProjectLayout['columns'];
  return { hasHeader, columns, names: hasHeader ? first.map((h, i) => h.trim() || `column ${i + 1}`) : [...IMPORT_FIELDS] };
}

/** One data record of the project's layout read; `line` is the 1-based line it starts on. */
export function projectRow(layout: ProjectLayout, record: string[], line: number): CsvRow {
  const cell = (field: ImportField): string | undefined => {
    const index = layout.columns[field];
    return index >= 0 ? record[index] : undefined;
  };
  const raw: Record<string, string> = {};
  record.forEach((value, i) => {
    raw[layout.names[i] ?? `column ${i + 1}`] = value;
  });
  const cells = Object.fromEntries(IMPORT_FIELDS.map((field) => [field, cell(field) ?? null])) as CsvRow['cells'];
  return {
    line,
    cells,
    values: {
      amount: cell('amount')?.trim() ?? '',
      currency: emptyToNull(cell('currency')),
      type: parseImportType(emptyToNull(cell('type'))),
      party: emptyToNull(cell('party')),
      wallet: emptyToNull(cell('wallet')),
      category: emptyToNull(cell('category')),
      description: emptyToNull(cell('description')),
      date: emptyToNull(cell('date')),
    },
    raw,
  };
}

const GROUPED_THOUSANDS = /^\d{1,3}(\d{3})*$/;

/** "1.234.567" with `sep` = "." → "1234567", or null when the groups are not thousands. */
function ungroup(digits: string, sep: string): string | null {
  const parts = digits.split(sep);
  if (parts[0].length < 1 || parts[0].length > 3) return null;
  if (parts.slice(1).some((p) => p.length !== 3)) return null;
  const joined = parts.join('');
  return GROUPED_THOUSANDS.test(joined) ? joined : null;
}

/**
 * Amounts with signs and thousands separators ("1,234.50", "-12", "1.234,50" when unambiguous)
 * → decimal string with at most 4 decimals, or null.
 * Rules: with both "." and "," the last one is the decimal point; a separator that repeats
 * groups thousands; a single "," followed by exactly three digits groups thousands ("1,234"),
 * otherwise it is a decimal comma ("12,50"); a single "." is a decimal point. Leading/trailing
 * minus and accounting parentheses mean negative; currency symbols, spaces and apostrophes
 * (Swiss grouping) are ignored. More than four decimals is refused, not rounded.
 */
export function parseImportAmount(raw: string): { amount: string; negative: boolean } | null {
  let text = raw.trim().replace(/[\s\u00a0\u202f'’]/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(text)) {
    negative = true;
    text = text.slice(1, -1);
  }
  // Currency codes or symbols around the number ("$12", "12 EUR", "-€5").
  text = text.replace(/^([+-]?)[^\d+\-.,]+/, '$1').replace(/([\d.,])[^\d.,+-]+$/, '$1');
  const signed = /^([+-]?)([\d.,]+)(-?)$/.exec(text);
  if (!signed) return null;
  const [, lead, body, trail] = signed;
  if (lead && trail) return null;
  if (lead === '-' || trail === '-') negative = !negative;
  if (!/\d/.test(body) || /^[.,]|[.,]$/.test(body)) return null;

  const dots = body.split('.').length - 1;
  const commas = body.split(',').length - 1;
  let integer: string | null;
  let fraction = '';
  if (dots > 0 && commas > 0) {
    const decimalSep = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    const groupSep = decimalSep === '.' ? ',' : '.';
    const at = body.lastIndexOf(decimalSep);
    if (body.split(decimalSep).length - 1 !== 1) return null;
    integer = ungroup(body.slice(0, at), groupSep);
    fraction = body.slice(at + 1);
    if (/\D/.test(fraction)) return null;
  } else if (dots + commas === 0) {
    integer = body;
  } else {
    const sep = dots > 0 ? '.' : ',';
    const [head, tail] = body.split(sep);
    if (dots + commas > 1) {
      integer = ungroup(body, sep);
    } else if (sep === ',' && tail.length === 3 && head.length <= 3) {
      integer = ungroup(body, sep);
    } else {
      integer = head;
      fraction = tail;
    }
  }
  if (integer === null || !/^\d+$/.test(integer)) return null;
  if (fraction.length > MONEY_DECIMALS) return null;
  const value = new Decimal(fraction ? `${integer}.${fraction}` : integer);
  return { amount: value.toFixed(), negative: negative && !value.isZero() };
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** 1–12 for a month's full name or an abbreviation of at least three letters ("Sep", "Sept"). */
function monthFromName(name: string): number | null {
  const lower = name.toLowerCase();
  const index = lower.length >= 3 ? MONTHS.findIndex((month) => month.startsWith(lower)) : -1;
  return index >= 0 ? index + 1 : null;
}

/** YYYY-MM-DD when the calendar has that day (so 2023-02-30 is refused), else null. */
function calendarDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1000) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return null;
  }
  return d.toISOString().slice(0, 10);
}

/**
 * ISO dates and the common day-first/month-first forms when unambiguous → YYYY-MM-DD, or null.
 * Accepted: 2023-01-31 (also with a time, or / and . separators), 31/01/2023 and 01/31/2023
 * when one number exceeds 12 (or both are equal), 31.01.2023 (dots are day-first by
 * convention), and month names: "31 Jan 2023", "Jan 31, 2023", "31-Jan-2023".
 * "02/03/2023" is ambiguous and gives null.
 */
export function parseImportDate(raw: string): string | null {
  const text = raw
    .trim()
    // A trailing time of day does not change the date.
    .replace(/(?:[T\s]+\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:[ap]m)?(?:Z|[+-]\d{2}:?\d{2})?)$/i, '');

  let m = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})$/.exec(text);
  if (m) return calendarDate(Number(m[1]), Number(m[3]), Number(m[4]));

  m = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{4})$/.exec(text);
  if (m) {
    const [a, sep, b, year] = [Number(m[1]), m[2], Number(m[3]), Number(m[4])];
    if (sep === '.' || (a > 12 && b <= 12)) return calendarDate(year, b, a);
    if (b > 12 && a <= 12) return calendarDate(year, a, b);
    if (a === b) return calendarDate(year, a, b);
    return null;
  }

  m = /^(\d{1,2})[-\s/.]+([a-z]{3,9})\.?[-\s/.,]+(\d{4})$/i.exec(text);
  if (m) {
    const month = monthFromName(m[2]);
    return month ? calendarDate(Number(m[3]), month, Number(m[1])) : null;
  }

  m = /^([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/i.exec(text);
  if (m) {
    const month = monthFromName(m[1]);
    return month ? calendarDate(Number(m[3]), month, Number(m[2])) : null;
  }
  return null;
}
