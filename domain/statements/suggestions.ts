// From what an extractor read to suggestion drafts: the amount made positive with the
// direction in `type`, dates normalised to YYYY-MM-DD, and every value that could not be read
// left null with a warning (and a low confidence) instead of being guessed.
import { parseImportAmount, parseImportDate, readCsvRows } from '../import-rows.js';
import { Decimal, exceedsMoneyLimit, MONEY_DECIMALS } from '../money.js';
import type { Statement } from './statement-line.js';

export type SuggestionSource = 'csv' | 'camt' | 'ofx' | 'remote';

export interface SuggestionDraft {
  /** Positive exact decimal string, or null when unreadable. */
  amount: string | null;
  type: 'income' | 'expense' | null;
  currency: string | null;
  date: string | null;
  description: string | null;
  party: string | null;
  wallet: string | null;
  category: string | null;
  account: string | null;
  reference: string | null;
  fee: string | null;
  tax: string | null;
  confidence: number;
  source: SuggestionSource;
  warnings: string[];
}

/** Confidence of a row with a value the extractor could not read (spec: 0.3). */
const UNREADABLE = 0.3;

export const blankDraft = (source: SuggestionSource): SuggestionDraft => ({
  amount: null,
  type: null,
  currency: null,
  date: null,
  description: null,
  party: null,
  wallet: null,
  category: null,
  account: null,
  reference: null,
  fee: null,
  tax: null,
  confidence: 1,
  source,
  warnings: [],
});

export function warn(draft: SuggestionDraft, warning: string, confidence = UNREADABLE): void {
  draft.warnings.push(warning);
  draft.confidence = Math.min(draft.confidence, confidence);
}

function currencyOf(draft: SuggestionDraft, raw: string | null): string | null {
  if (raw === null) return null;
  const code = raw.trim().toUpperCase();
  if (/^[A-Z]{3}$/.test(code)) return code;
  warn(draft, `The currency "${raw}" is not a three-letter ISO code.`);
  return null;
}

/**
 * Why an amount read from a document cannot be kept exactly (more than 4 decimals, or too
 * large for the money columns), or undefined when it can: such a value is refused with a
 * warning, never rounded (the column would round it silently) nor left to fail the analysis.
 */
function amountProblem(amount: Decimal): string | undefined {
  if (amount.decimalPlaces() > MONEY_DECIMALS) return `has more than ${MONEY_DECIMALS} decimals`;
  if (exceedsMoneyLimit(amount.toFixed())) return 'is too large';
  return undefined;
}

/** The amount as a positive exact string, or null with a warning when it cannot be kept. */
export function keptAmount(draft: SuggestionDraft, amount: Decimal, what = 'amount'): string | null {
  const problem = amountProblem(amount);
  if (problem === undefined) return amount.abs().toFixed();
  warn(draft, `The ${what} ${amount.toFixed()} ${problem}.`);
  return null;
}

/** A bank's closing of the period ("Rechnungsabschluss ... Saldo nach Abschluss", "Arrêté de compte"). */
const CLOSING_NOTICE = /abschluss|saldo nach|arr[eê]t[eé] (de|des) compte|cl[oô]ture|closing|afsluiting|liquidaci[oó]n|chiusura/i;

/**
 * Why a line is not a transaction to import, or null when it is one: a line of amount 0 moves
 * no money; banks print their notices so (the period's closing, new terms, an information).
 */
export function notImportableReason(amount: string | null, description: string | null): string | null {
  if (amount === null || !new Decimal(amount).isZero()) return null;
  return CLOSING_NOTICE.test(description ?? '') ? 'A closing notice of the account (amount 0), not a transaction.' : 'A notice with amount 0, not a transaction.';
}

/** Rows of a CSV file (read like POST /v1/import); CsvReadError when it is not CSV at all. */
export function draftsFromCsv(text: string): SuggestionDraft[] {
  return readCsvRows(text).map(({ values, raw }) => {
    const draft = blankDraft('csv');
    const parsed = values.amount === '' ? null : parseImportAmount(values.amount);
    if (parsed) {
      draft.amount = keptAmount(draft, new Decimal(parsed.amount));
      if (new Decimal(parsed.amount).isZero()) warn(draft, 'The amount is zero.');
    } else warn(draft, values.amount === '' ? 'The row has no amount.' : `The amount "${values.amount}" could not be read.`);
    const typeCell = Object.entries(raw).find(([name]) => /^(transaction)?[\s_-]*type$/i.test(name.trim()))?.[1]?.trim() || null;
    if (values.type === 'income' || values.type === 'expense') draft.type = values.type;
    else if (values.type === 'transfer' || (typeCell && /^[+-]?transfer$/i.test(typeCell))) warn(draft, 'Transfers cannot be imported here: choose income or expense.', 1);
    else if (typeCell) warn(draft, `The type "${typeCell}" is not income or expense.`, 1);
    if (draft.type === null && parsed && !new Decimal(parsed.amount).isZero()) draft.type = parsed.negative ? 'expense' : 'income';
    draft.currency = currencyOf(draft, values.currency);
    if (values.date === null) warn(draft, 'The row has no date.');
    else {
      draft.date = parseImportDate(values.date);
      if (draft.date === null) warn(draft, `The date "${values.date}" could not be read (or is ambiguous).`);
    }
    draft.description = values.description;
    draft.party = values.party;
    draft.wallet = values.wallet;
    draft.category = values.category;
    return draft;
  });
}

/** Lines of a native statement (CAMT.053 or OFX); the statement's account names the wallet. */
export function draftsFromStatement(statement: Statement, source: 'camt' | 'ofx'): SuggestionDraft[] {
  return statement.lines.map((line) => {
    const draft = blankDraft(source);
    const amount = new Decimal(line.amount);
    draft.amount = keptAmount(draft, amount);
    if (amount.isZero()) warn(draft, 'The amount is zero.');
    else draft.type = amount.isNegative() ? 'expense' : 'income';
    draft.currency = line.currency;
    draft.date = line.date;
    if (line.date === null) warn(draft, 'The entry has no booking date that can be read.');
    draft.description = line.description;
    draft.party = line.counterparty;
    draft.wallet = line.account === undefined ? statement.account : line.account;
    draft.reference = line.reference;
    return draft;
  });
}

/** What the document processor read (server/document-processor.ts). */
export interface ProcessedValues {
  date: string | null;
  /** Signed exact decimal string (negative = money out), or null when unreadable. */
  amount: string | null;
  type: 'income' | 'expense' | null;
  currency: string | null;
  description: string | null;
  counterparty: string | null;
  reference: string | null;
  account: string | null;
  fee: string | null;
  tax: string | null;
  confidence: number;
}

export function draftsFromProcessed(lines: ProcessedValues[]): SuggestionDraft[] {
  return lines.map((line) => {
    const draft = blankDraft('remote');
    draft.confidence = line.confidence;
    if (line.amount === null) warn(draft, 'The amount could not be read.');
    else {
      const amount = new Decimal(line.amount);
      draft.amount = keptAmount(draft, amount);
      draft.type = line.type ?? (amount.isZero() ? null : amount.isNegative() ? 'expense' : 'income');
      if (amount.isZero()) warn(draft, 'The amount is zero.');
    }
    draft.currency = currencyOf(draft, line.currency);
    draft.date = line.date === null ? null : parseImportDate(line.date);
    if (draft.date === null) warn(draft, line.date === null ? 'The transaction has no date.' : `The date "${line.date}" could not be read.`);
    draft.description = line.description;
    draft.party = line.counterparty;
    draft.account = line.account;
    draft.reference = line.reference;
    draft.fee = line.fee === null ? null : keptAmount(draft, new Decimal(line.fee), 'fee');
    draft.tax = line.tax === null ? null : keptAmount(draft, new Decimal(line.tax), 'tax');
    return draft;
  });
}
