// A bank's CSV export → suggestion drafts, with the reading it chose (encoding, delimiter,
// header row, column mapping, date format, decimal separator) so the user can see and correct
// it. Preamble lines (account, period, opening balance) before the header and trailer lines
// after the rows are never suggestions; the header row is wherever the known column names
// are, and without one the columns' roles are inferred from their values. A user's mapping
// (given, or remembered for the same header signature) replaces the inferred one.
import { parse } from 'csv-parse/sync';
import { CsvReadError, MAX_IMPORT_ROWS, parseImportDate } from '../import-rows.js';
import type { Decimal } from '../money.js';
import { COLUMN_ROLES, emptyMapping, exportSource, headerCurrency, headerKey, headerScore, ibanIn, looksLikeAccount, looksLikeAmount, mappingFromHeader, markerOut, ownAccountColumn, type ColumnMapping } from './csv-columns.js';
import { dateFormatLabel, DateFormatInference, DecimalSeparatorVotes, inferDateFormat, looksLikeDate, parseDateFormatLabel, readAmount, readDate, type DateFormat, type DecimalSeparator } from './csv-values.js';
import { blankDraft, keptAmount, warn, type SuggestionDraft } from './suggestions.js';
import type { DecodedText, TextEncoding } from './text-encoding.js';

/** How the file was read, as stored on the session and shown to the user. */
export type CsvDelimiter = ',' | ';' | '\t' | '|';

export interface CsvReading {
  encoding: TextEncoding;
  bom: boolean;
  delimiter: CsvDelimiter;
  /** 1-based record number of the header row; null when the file has none. */
  header_row: number | null;
  columns: string[];
  mapping: ColumnMapping;
  date_format: string | null;
  decimal_separator: DecimalSeparator;
  /** Non-empty lines that are not transactions (preamble, header, trailer). */
  skipped_rows: number;
  account: string | null;
  currency: string | null;
  /** The provider the export comes from when its columns say so (PayPal, ...), else null. */
  source: string | null;
  /** The header's normalised names: a mapping is remembered per signature. */
  header_signature: string | null;
}

/** A correction of the reading (the new mapping operation, or a remembered mapping). */
export interface CsvReadingOverride {
  mapping?: Partial<ColumnMapping>;
  date_format?: string | null;
  decimal_separator?: DecimalSeparator | null;
}

const DELIMITERS: CsvDelimiter[] = [',', ';', '\t', '|'];
/** Records searched for the header row. */
const HEADER_SEARCH = 60;

const FILE_CURRENCIES = new Set(['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'RON', 'CAD', 'AUD', 'NZD', 'JPY', 'BRL', 'MXN', 'ZAR', 'INR']);

/** The delimiter whose count per line is the same on the most lines (quoted text ignored). */
export function detectDelimiter(text: string): CsvDelimiter {
  const lines = text.slice(0, 65_536).split(/\r?\n/).slice(0, 200).map((line) => line.replace(/"[^"]*"/g, '')).filter((line) => line.trim() !== '');
  let best: { delimiter: CsvDelimiter; lines: number; count: number } = { delimiter: ',', lines: 0, count: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const line of lines) {
      const n = line.split(delimiter).length - 1;
      if (n > 0) counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    for (const [count, many] of counts) {
      if (many > best.lines || (many === best.lines && count > best.count)) best = { delimiter, lines: many, count };
    }
  }
  return best.delimiter;
}

function readRecords(text: string, delimiter: string): string[][] {
  try {
    return parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true, to: MAX_IMPORT_ROWS + HEADER_SEARCH + 2 }) as string[][];
  } catch (error) {
    throw new CsvReadError(`The file is not readable CSV: ${(error as Error).message}`);
  }
}

const blankRow = (record: string[]) => record.every((cell) => cell.trim() === '');

/**
 * Reads a bank export; undefined when the file is in the project's own layout (columns
 * type/wallet/category, or positional rows typed income/expense), which the older reader keeps.
 * The same survey and row reading as a file read as a stream (csv-stream.ts), over text in memory.
 */
export function readBankCsv(decoded: DecodedText, override: CsvReadingOverride = {}): { reading: CsvReading; drafts: SuggestionDraft[] } | undefined {
  const delimiter = detectDelimiter(decoded.text);
  const records = readRecords(decoded.text, delimiter).filter((record) => !blankRow(record));
  const survey = new BankCsvSurvey(override);
  for (const record of records) survey.add(record);
  const plan = survey.finish(decoded, delimiter);
  if (!plan) return undefined;
  if (plan.bodyRows > MAX_IMPORT_ROWS) throw new CsvReadError(`The file has more than ${MAX_IMPORT_ROWS} rows: split it into smaller files.`);
  const drafts: SuggestionDraft[] = [];
  for (const record of records.slice(plan.bodyStart)) {
    const draft = bankRowDraft(record, plan);
    if (draft) drafts.push(draft);
  }
  return { reading: { ...plan.reading, skipped_rows: records.length - drafts.length }, drafts };
}

/** What a survey of the whole file decided: how to read each row after the header. */
export interface BankCsvPlan {
  /** The reading as shown on a session (`skipped_rows` counts the preamble and header only: the rows say the rest). */
  reading: CsvReading;
  /** Position of the first row after the header among the file's non-blank records. */
  bodyStart: number;
  /** Records after the header (transactions, and trailer lines that are not). */
  bodyRows: number;
  context: RowContext;
}

/** Records looked at before the mapping is chosen: the header search, and a headerless file's sample of values. */
const SAMPLE_RECORDS = 1000;

/**
 * The reading of a bank export decided from its records fed one at a time (non-blank ones, in
 * file order): the header among the first records, the mapping, and the date format and
 * decimal separator from every row, without keeping the rows.
 */
export class BankCsvSurvey {
  private readonly sample: string[][] = [];
  private decided: { project: true } | { project: false; headerIndex: number | null; header: string[] | null; mapping: ColumnMapping; width: number } | undefined;
  private records = 0;
  private readonly dates = new DateFormatInference();
  private readonly separators = new DecimalSeparatorVotes();

  constructor(private readonly override: CsvReadingOverride = {}) {}

  add(record: string[]): void {
    this.records++;
    if (this.decided === undefined) {
      this.sample.push(record);
      if (this.sample.length >= SAMPLE_RECORDS) this.decide();
    } else if (!this.decided.project) this.observe(record, this.decided.mapping);
  }

  /** The header's position among the records once decided (null without a header, or before). */
  headerIndex(): number | null {
    if (this.decided === undefined) this.decide();
    return this.decided && !this.decided.project ? this.decided.headerIndex : null;
  }

  /** The plan, or undefined for the project's own layout; throws CsvReadError when no date and amount columns are found. */
  finish(encoding: { encoding: TextEncoding; bom: boolean }, delimiter: CsvDelimiter): BankCsvPlan | undefined {
    if (this.records === 0) {
      return { reading: emptyReading(encoding, delimiter), bodyStart: 0, bodyRows: 0, context: { mapping: emptyMapping(), dateFormat: undefined, separator: '.', fileCurrency: null, account: null, sourceWallet: null, width: null } };
    }
    if (this.decided === undefined) this.decide();
    const decided = this.decided!;
    if (decided.project) return undefined;
    const { headerIndex, header, mapping } = decided;
    const dateFormat = (this.override.date_format && parseDateFormatLabel(this.override.date_format)) || this.dates.result();
    const separator = this.override.decimal_separator ?? this.separators.result();
    const preamble = headerIndex === null ? [] : this.sample.slice(0, headerIndex);
    const moneyHeader = header && [mapping.amount, mapping.debit, mapping.credit].map((c) => (c === null ? null : headerCurrency(header[c] ?? ''))).find((code) => code);
    const fileCurrency = preambleCurrency(preamble) ?? moneyHeader ?? null;
    const account = preamble.flat().map(ibanIn).find((iban) => iban !== null) ?? null;
    const bodyStart = headerIndex === null ? 0 : headerIndex + 1;
    const reading: CsvReading = {
      encoding: encoding.encoding,
      bom: encoding.bom,
      delimiter,
      header_row: headerIndex === null ? null : headerIndex + 1,
      columns: header ? header.map((name, i) => name.trim() || `Column ${i + 1}`) : (this.sample[0] ?? []).map((_, i) => `Column ${i + 1}`),
      mapping,
      date_format: dateFormat ? dateFormatLabel(dateFormat) : null,
      decimal_separator: separator,
      skipped_rows: bodyStart,
      account,
      currency: fileCurrency,
      source: header ? exportSource(header.map(headerKey)) : null,
      header_signature: header ? header.map(headerKey).join('|') : null,
    };
    return { reading, bodyStart, bodyRows: this.records - bodyStart, context: { mapping, dateFormat, separator, fileCurrency, account, sourceWallet: null, width: header?.length ?? null } };
  }

  private decide(): void {
    const records = this.sample;
    const headerIndex = findHeader(records);
    const header = headerIndex === null ? null : records[headerIndex];
    if ((header && isProjectHeader(header.map(headerKey))) || (!header && records.some((record) => /^[+-]?(income|expense|transfer)$/i.test(record[2]?.trim() ?? '')))) {
      this.decided = { project: true };
      return;
    }
    const body = headerIndex === null ? records : records.slice(headerIndex + 1);
    const inferred = header ? mappingFromHeader(header)! : mappingFromValues(body);
    if (!inferred) throw new CsvReadError('No header row with a date and an amount column was found, and no column holds dates and amounts.');
    if (header && inferred.wallet === null) inferred.wallet = ownAccountColumn(header, body);
    const width = Math.max(...records.map((r) => r.length));
    const mapping = applyMapping(inferred, this.override.mapping, width);
    if (mapping.date === null || (mapping.amount === null && mapping.debit === null && mapping.credit === null)) {
      throw new CsvReadError('The column mapping needs a date column and an amount (or debit/credit) column.');
    }
    this.decided = { project: false, headerIndex, header, mapping, width };
    for (const record of body) this.observe(record, mapping);
    // only the preamble and header stay: the rows were observed
    records.splice(headerIndex === null ? 0 : headerIndex + 1);
  }

  private observe(record: string[], mapping: ColumnMapping): void {
    const date = mapping.date === null ? '' : (record[mapping.date] ?? '');
    if (looksLikeDate(date)) this.dates.add(date);
    for (const column of [mapping.amount, mapping.debit, mapping.credit]) {
      const cell = column === null ? '' : (record[column] ?? '');
      if (looksLikeAmount(cell)) this.separators.add(cell);
    }
  }
}

/** The draft of a row after the header, or undefined for a trailer line. */
export function bankRowDraft(record: string[], plan: BankCsvPlan): SuggestionDraft | undefined {
  return rowDraft(record, plan.context);
}

/** The project's own export: a wallet column, or party and type columns together. */
function isProjectHeader(keys: string[]): boolean {
  return keys.includes('wallet') || (keys.includes('party') && keys.includes('type'));
}

function emptyReading(decoded: { encoding: TextEncoding; bom: boolean }, delimiter: CsvDelimiter): CsvReading {
  return { encoding: decoded.encoding, bom: decoded.bom, delimiter, header_row: null, columns: [], mapping: emptyMapping(), date_format: null, decimal_separator: '.', skipped_rows: 0, account: null, currency: null, source: null, header_signature: null };
}

/** The record among the first ones naming the most known columns, with a date and an amount column. */
function findHeader(records: string[][]): number | null {
  let best: { index: number; score: number } | null = null;
  records.slice(0, HEADER_SEARCH).forEach((record, index) => {
    if (mappingFromHeader(record) === null) return;
    const score = headerScore(record);
    if (!best || score > best.score) best = { index, score };
  });
  return (best as { index: number } | null)?.index ?? null;
}

/** Without a header: the first column of dates, the first column of amounts (never accounts), the longest text. */
function mappingFromValues(rows: string[][]): ColumnMapping | null {
  const widths = new Map<number, number>();
  for (const row of rows) widths.set(row.length, (widths.get(row.length) ?? 0) + 1);
  const width = [...widths].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const data = rows.filter((row) => row.length === width);
  const column = (i: number) => data.map((row) => row[i] ?? '').filter((cell) => cell.trim() !== '');
  const mapping = emptyMapping();
  for (let i = 0; i < width; i++) {
    const values = column(i);
    if (values.length === 0) continue;
    if (mapping.date === null && values.every(looksLikeDate) && inferDateFormat(values)) mapping.date = i;
    else if (mapping.amount === null && values.every(looksLikeAmount) && values.some((v) => /[.,]\d{1,2}\D*$|^\s*[-+(]/.test(v))) mapping.amount = i;
  }
  if (mapping.date === null || mapping.amount === null) return null;
  let longest = 0;
  for (let i = 0; i < width; i++) {
    if (i === mapping.date || i === mapping.amount) continue;
    const values = column(i);
    const length = values.reduce((n, v) => n + v.length, 0) / Math.max(values.length, 1);
    if (length > longest && !values.every(looksLikeAmount) && !values.every(looksLikeAccount)) [longest, mapping.description] = [length, i];
  }
  return mapping;
}

/** The inferred mapping with the user's corrections (a column out of range is ignored). */
function applyMapping(inferred: ColumnMapping, given: Partial<ColumnMapping> | undefined, width: number): ColumnMapping {
  const mapping = { ...inferred };
  for (const role of COLUMN_ROLES) {
    const column = given?.[role];
    if (column === null) mapping[role] = null;
    else if (column !== undefined && Number.isInteger(column) && column >= 0 && column < width) mapping[role] = column;
  }
  return mapping;
}

/** A currency the preamble states on its own ("Währung;EUR"), else null. */
function preambleCurrency(preamble: string[][]): string | null {
  return preamble.flat().map((cell) => cell.trim().toUpperCase()).find((cell) => FILE_CURRENCIES.has(cell)) ?? null;
}

export interface RowContext {
  mapping: ColumnMapping;
  dateFormat: DateFormat | undefined;
  separator: DecimalSeparator;
  fileCurrency: string | null;
  account: string | null;
  /** The wallet of rows that name no account: set by the caller (see withSourceWallet), else null. */
  sourceWallet: string | null;
  /** The header's width: a row as wide with an amount is a transaction even with a bad date. */
  width: number | null;
}

/** The draft of a transaction row, or undefined for a preamble/trailer line. */
function rowDraft(given: string[], ctx: RowContext): SuggestionDraft | undefined {
  const { mapping } = ctx;
  const short = ctx.width !== null && given.length < ctx.width && signedAmount(given, ctx).kind !== 'read';
  const record = (short && alignedFromTheRight(given, ctx)) || given;
  const cell = (column: number | null) => (column === null ? '' : (record[column] ?? '').trim());
  const rawDate = cell(mapping.date);
  // a column whose dates share no one format (mixed by hand) is read value by value
  const date = rawDate === '' ? null : ctx.dateFormat ? readDate(rawDate, ctx.dateFormat) : parseImportDate(rawDate);
  const signed = signedAmount(record, ctx);
  const wideEnough = ctx.width === null || given.length >= ctx.width - 1;
  // a row without a day is still a transaction when its date cell is empty or date-shaped (a
  // typo the user can fix), never when it holds text ("Solde au 31/03/2026": a trailer)
  const dateShaped = rawDate === '' || looksLikeDate(rawDate) || !ctx.dateFormat;
  if (date === null && !(wideEnough && dateShaped && signed.kind === 'read')) return undefined;

  const draft = blankDraft('csv');
  if (date === null) warn(draft, rawDate === '' ? 'The row has no date.' : `The date "${rawDate}" could not be read as ${ctx.dateFormat ? dateFormatLabel(ctx.dateFormat) : 'a date'}.`);
  draft.date = date;
  if (signed.kind === 'read') {
    draft.amount = keptAmount(draft, signed.value);
    if (signed.value.isZero()) warn(draft, 'The amount is zero.');
    else draft.type = signed.value.isNegative() ? 'expense' : 'income';
  } else if (short && record === given) {
    warn(draft, `The row has ${given.length} fields where its header has ${ctx.width}, and its last ones do not line up with the amount column: enter the amount by hand, or leave the row out.`);
  } else warn(draft, signed.message);
  if (record !== given) warn(draft, `The row has ${given.length} fields where its header has ${ctx.width}: its amount and what follows were read from the right, the field missing left blank.`, 0.8);
  const currencyCell = cell(mapping.currency).toUpperCase();
  draft.currency = /^[A-Z]{3}$/.test(currencyCell) ? currencyCell : (ctx.fileCurrency ?? symbolCurrency(cell(mapping.amount) || cell(mapping.debit) || cell(mapping.credit)));
  draft.party = cell(mapping.party) || null;
  draft.description = cell(mapping.description).replace(/\s+/g, ' ') || draft.party;
  draft.reference = cell(mapping.reference) || null;
  const wallet = cell(mapping.wallet);
  draft.wallet = (wallet && (ibanIn(wallet) ?? wallet)) || ctx.account || ctx.sourceWallet;
  draft.category = cell(mapping.category) || null;
  draft.fee = feeOf(draft, cell(mapping.fee), ctx.separator);
  return draft;
}

/**
 * A row with fewer fields than its header whose amount does not read where the header says (an
 * ING export's "Rente" line has six fields of seven: its purpose is missing): the columns from
 * the first amount column on are taken from the right, the ones before it from the left, and
 * those in between, where the missing fields were, left blank. Only when it lines up from the
 * right: an amount where the amount is, and a currency code (or nothing) where the currency is;
 * else undefined.
 */
function alignedFromTheRight(record: string[], ctx: RowContext): string[] | undefined {
  const { mapping } = ctx;
  const width = ctx.width!;
  const missing = width - record.length;
  const moneyColumns = [mapping.amount, mapping.debit, mapping.credit].filter((column): column is number => column !== null);
  const from = Math.min(...moneyColumns);
  if (!Number.isFinite(from) || from - missing < 0) return undefined;
  const aligned = Array.from({ length: width }, (_, i) => (i < from - missing ? record[i] : i >= from ? record[i - missing] : ''));
  const cell = (column: number | null) => (column === null ? '' : (aligned[column] ?? '').trim());
  if (!moneyColumns.some((column) => cell(column) !== '') || !moneyColumns.every((column) => cell(column) === '' || looksLikeAmount(cell(column)))) return undefined;
  if (mapping.currency !== null && mapping.currency >= from && !/^([A-Za-z]{3})?$/.test(cell(mapping.currency))) return undefined;
  return signedAmount(aligned, ctx).kind === 'read' ? aligned : undefined;
}

/** A fee in its own column (PayPal's Gebühr, signed like the amount): positive, null when none or zero. */
function feeOf(draft: SuggestionDraft, text: string, separator: DecimalSeparator): string | null {
  if (text === '') return null;
  const fee = readAmount(text, separator);
  if (!fee) {
    warn(draft, `The fee "${text}" could not be read.`);
    return null;
  }
  return fee.isZero() ? null : keptAmount(draft, fee.abs(), 'fee');
}

/**
 * The plan with a wallet for the rows that name no account: the provider the export comes
 * from, else the file's name without its extension and dates ("Umsaetze_2026-03-31.csv" →
 * "Umsaetze"), so the next export of the same source lands in the same wallet.
 */
export function withSourceWallet(plan: BankCsvPlan, fileName: string): BankCsvPlan {
  const fromFile = fileName
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/\d{4}[-_.]?\d{2}[-_.]?\d{2}|\d{2}[-_.]\d{2}[-_.]\d{2,4}|\(\d+\)/g, ' ')
    .replace(/[\s_.-]+/g, ' ')
    .trim();
  return { ...plan, context: { ...plan.context, sourceWallet: plan.reading.source ?? (fromFile || 'Imported statement') } };
}

type SignedAmount = { kind: 'read'; value: Decimal } | { kind: 'unread'; message: string };

/** One signed column, separate debit/credit columns, or an amount with a debit/credit marker column. */
function signedAmount(record: string[], ctx: RowContext): SignedAmount {
  const { mapping, separator } = ctx;
  const cell = (column: number | null) => (column === null ? '' : (record[column] ?? '').trim());
  if (mapping.amount !== null && cell(mapping.amount) !== '') {
    const value = readAmount(cell(mapping.amount), separator);
    if (!value) return { kind: 'unread', message: `The amount "${cell(mapping.amount)}" could not be read.` };
    const out = mapping.marker === null ? undefined : markerOut(cell(mapping.marker));
    return { kind: 'read', value: out === undefined ? value : out ? value.abs().negated() : value.abs() };
  }
  const debit = cell(mapping.debit);
  const credit = cell(mapping.credit);
  const debitValue = debit === '' ? undefined : readAmount(debit, separator);
  const creditValue = credit === '' ? undefined : readAmount(credit, separator);
  if (debitValue && !debitValue.isZero()) return { kind: 'read', value: debitValue.abs().negated() };
  if (creditValue) return { kind: 'read', value: creditValue.abs() };
  if (debitValue) return { kind: 'read', value: debitValue };
  const unread = debit || credit;
  return { kind: 'unread', message: unread ? `The amount "${unread}" could not be read.` : 'The row has no amount.' };
}

function symbolCurrency(text: string): string | null {
  if (text.includes('€')) return 'EUR';
  if (text.includes('£')) return 'GBP';
  const code = /\b([A-Z]{3})\b/.exec(text)?.[1];
  return code && FILE_CURRENCIES.has(code) ? code : null;
}
