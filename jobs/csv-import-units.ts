// The data rows of a legacy CSV import as what each one asks to be written: an income or
// expense, a transfer (a +transfer row and the -transfer row after it), a row that cannot be
// imported (with its reason), or a bank export's trailer line that is no transaction. Rows are
// read from the stream one at a time (domain/statements/csv-stream.ts).
import type { NewFailedRow } from '../db/imports.js';
import type { CsvRow } from '../domain/import-rows.js';
import { csvDataRows, type CsvDataRow, type CsvFile, type CsvLayout } from '../domain/statements/csv-stream.js';
import type { ColumnMapping } from '../domain/statements/csv-columns.js';
import { notImportableReason } from '../domain/statements/suggestions.js';
import { amountOf, dateOf, RowRejected, type ImportedEntry, type ImportedTransfer } from '../handlers/shared/import-entries.js';

/** A failed row's cells as the file had them (the failed list shows them). */
export type RowCells = Omit<NewFailedRow, 'reason'>;

export type ImportUnit =
  | { kind: 'entry'; size: 1; entry: ImportedEntry; cells: RowCells }
  | { kind: 'transfer'; size: 2; transfer: ImportedTransfer; cells: [RowCells, RowCells] }
  | { kind: 'failed'; size: number; rows: NewFailedRow[] }
  | { kind: 'skip'; size: 1 };

/**
 * The units from data row `from` on; their sizes add up to the rows read. `fileWallet` names
 * the wallet of a bank export's rows that name no account (see resolveBankWallet).
 */
export async function* importUnits(file: CsvFile, layout: CsvLayout, from: number, fileWallet: string): AsyncGenerator<ImportUnit> {
  const rows = csvDataRows(file, layout, from);
  let next = await rows.next();
  while (!next.done) {
    const row: CsvDataRow = next.value;
    next = await rows.next();
    if (row.kind === 'bank') {
      yield bankUnit(row, layout.kind === 'bank' ? layout.plan.context.mapping : undefined, fileWallet);
      continue;
    }
    if (typeCell(row.row) !== '+transfer') {
      yield projectEntry(row.row);
      continue;
    }
    const pair = !next.done && next.value.kind === 'project' && typeCell(next.value.row) === '-transfer' ? next.value.row : undefined;
    if (!pair) {
      yield { kind: 'failed', size: 1, rows: [{ ...cellsOf(row.row), reason: 'Corresponding -transfer row not found.' }] };
      continue;
    }
    next = await rows.next();
    try {
      yield { kind: 'transfer', size: 2, transfer: transferOf(row.row, pair), cells: [cellsOf(row.row), cellsOf(pair)] };
    } catch (error) {
      if (!(error instanceof RowRejected)) throw error;
      yield { kind: 'failed', size: 2, rows: [row.row, pair].map((r) => ({ ...cellsOf(r), reason: error.message })) };
    }
  }
}

/** A bank export's row: its draft as an entry booked by the bank, or why it cannot be one. */
function bankUnit(row: Extract<CsvDataRow, { kind: 'bank' }>, mapping: ColumnMapping | undefined, fileWallet: string): ImportUnit {
  const { draft } = row;
  // a trailer line, or a bank's notice printed as a line of amount 0: no transaction
  if (!draft || notImportableReason(draft.amount, draft.description) !== null) return { kind: 'skip', size: 1 };
  const cell = (column: number | null | undefined) => (column === null || column === undefined ? null : (row.record[column] ?? null));
  const amountCell = [mapping?.amount, mapping?.debit, mapping?.credit].map(cell).find((value) => value !== null && value.trim() !== '') ?? null;
  const cells: RowCells = {
    rowNumber: row.line,
    amount: amountCell,
    currency: cell(mapping?.currency),
    type: draft.type,
    party: cell(mapping?.party),
    wallet: cell(mapping?.wallet),
    category: cell(mapping?.category),
    description: cell(mapping?.description),
    date: cell(mapping?.date),
  };
  if (draft.amount === null || draft.type === null || draft.date === null) {
    return { kind: 'failed', size: 1, rows: [{ ...cells, reason: draft.warnings.join(' ') || 'The row has no amount.' }] };
  }
  const entry: ImportedEntry = {
    type: draft.type,
    amount: draft.amount,
    date: draft.date,
    currency: draft.currency,
    wallet: draft.wallet,
    party: draft.party,
    category: draft.category,
    description: draft.description,
    bankRow: { fileWallet },
  };
  return { kind: 'entry', size: 1, entry, cells };
}

function projectEntry(row: CsvRow): ImportUnit {
  try {
    return { kind: 'entry', size: 1, entry: entryOf(row), cells: cellsOf(row) };
  } catch (error) {
    if (!(error instanceof RowRejected)) throw error;
    return { kind: 'failed', size: 1, rows: [{ ...cellsOf(row), reason: error.message }] };
  }
}

function typeCell(row: CsvRow): string {
  return row.cells.type?.trim().toLowerCase() ?? '';
}

function entryOf(row: CsvRow): ImportedEntry {
  const { amount, negative } = amountOf(row.cells.amount);
  const cell = typeCell(row);
  let type: 'income' | 'expense';
  if (cell === 'income' || cell === 'expense') type = cell;
  else if (cell === '') type = negative ? 'expense' : 'income'; // a signed amount decides
  else if (cell === '-transfer') throw new RowRejected('A -transfer row must directly follow its +transfer row.');
  else throw new RowRejected(`Invalid transaction type ${row.cells.type!.trim()}: use income, expense, or a +transfer row followed by its -transfer row.`);
  const { values } = row;
  return {
    type,
    amount,
    date: dateOf(row.cells.date),
    currency: values.currency?.toUpperCase() ?? null,
    wallet: values.wallet,
    party: values.party,
    category: values.category,
    description: values.description,
  };
}

/** A +transfer row (the source, money out) and its -transfer row (the destination). */
function transferOf(source: CsvRow, destination: CsvRow): ImportedTransfer {
  const sent = amountOf(source.cells.amount).amount;
  const received = destination.values.amount === '' ? sent : amountOf(destination.cells.amount).amount;
  return {
    amount: sent,
    toAmount: received,
    date: dateOf(source.values.date ?? destination.values.date),
    fromWallet: source.values.wallet,
    fromCurrency: source.values.currency?.toUpperCase() ?? null,
    toWallet: destination.values.wallet,
    toCurrency: destination.values.currency?.toUpperCase() ?? null,
  };
}

/** The row as the failed list keeps it: every cell as written. */
function cellsOf(row: CsvRow): RowCells {
  return { rowNumber: row.line, ...row.cells };
}
