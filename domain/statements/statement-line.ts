// What every native statement parser produces: the statement's account and currency, and one
// line per booked entry with a signed exact amount (negative = money out). Pure: no I/O here.
import { Decimal } from '../money.js';

export interface StatementLine {
  /** Booking date, YYYY-MM-DD; null when the entry has none that can be read. */
  date: string | null;
  /** Signed exact decimal string: negative for money out. */
  amount: string;
  /** ISO 4217 code of the entry (or of the statement). */
  currency: string | null;
  description: string | null;
  /** Who paid or was paid. */
  counterparty: string | null;
  /** The bank's reference of the entry. */
  reference: string | null;
  /** The account of the statement the line is in (a file may hold several). */
  account?: string | null;
}

/** What a statement says about one of its accounts: the balances around its lines. */
export interface AccountBalances {
  account: string | null;
  currency: string | null;
  /** A credit-card statement (OFX CCSTMTRS) or a bank account. */
  kind: 'bank' | 'credit_card';
  /** The balance before the first line: stated (CAMT OPBD/PRCD) or the closing one less the lines. */
  opening_balance: string | null;
  closing_balance: string | null;
  closing_date: string | null;
}

export interface Statement {
  /** The statement's own account (IBAN or account id), when given. */
  account: string | null;
  currency: string | null;
  lines: StatementLine[];
  /** One per account of the file, in the order they first appear. */
  balances?: AccountBalances[];
}

/** The opening balance of an account whose closing balance and lines are known. */
export function openingFromClosing(closing: string, lines: StatementLine[]): string {
  return lines.reduce((balance, line) => balance.minus(line.amount), new Decimal(closing)).toFixed();
}

/** A document the parser cannot read; the message says why, as a sentence. */
export class StatementError extends Error {
  override name = 'StatementError';
}

/** An amount as written in a statement ("12.50", "-3,20", "+1000") as a decimal string, or undefined. */
export function statementAmount(raw: string | undefined): Decimal | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim().replace(/\s/g, '');
  // OFX allows a decimal comma; statements never group thousands in this field.
  const normalised = /^[+-]?\d+,\d+$/.test(text) ? text.replace(',', '.') : text;
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(normalised)) return undefined;
  return new Decimal(normalised);
}

const DIGITS = (text: string, length: number) => text.length === length && /^\d+$/.test(text);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * YYYY-MM-DD when the calendar has that day, else null. Counted, not built through a Date (a
 * CSV import asks this of every row, up to twice). Years 0-99 are refused as a Date refused
 * them (Date.UTC reads them as 1900-1999).
 */
export function calendarDay(year: string, month: string, day: string): string | null {
  if (!DIGITS(year, 4) || !DIGITS(month, 2) || !DIGITS(day, 2)) return null;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (y < 100 || m < 1 || m > 12 || d < 1) return null;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= DAYS_IN_MONTH[m - 1] + (leap ? 1 : 0) ? `${year}-${month}-${day}` : null;
}

/** Trimmed text with inner whitespace collapsed, or null when empty. */
export function cleanText(value: string | undefined | null): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

export type StatementFormat = 'camt' | 'ofx';

/** camt or ofx when the text is such a statement (whatever the file is called), else undefined. */
export function detectStatementFormat(text: string): StatementFormat | undefined {
  const head = text.slice(0, 4096).replace(/^\uFEFF/, '').trimStart();
  if (/^OFXHEADER\s*:/i.test(head) || /<\?OFX\b/i.test(head) || /<OFX>/i.test(head)) return 'ofx';
  if (head.startsWith('<') && (/camt\.053/i.test(head) || /<(\w+:)?BkToCstmrStmt\b/.test(head))) return 'camt';
  return undefined;
}
