// A CSV upload read as a stream: its bytes are decoded a chunk at a time and parsed by
// csv-parse's stream API, so a file of any number of rows is read in constant memory (the
// rows are surveyed, then handed out one at a time; none is kept). The reading itself is the
// one of csv-statement.ts (bank exports) and import-rows.ts (the project's own layout):
// what analysis reads from text in memory, a legacy import reads from the stream.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import { CsvReadError, projectLayoutOf, projectRow, recordStartLine, type CsvRow, type ProjectLayout } from '../import-rows.js';
import { BankCsvSurvey, bankRowDraft, detectDelimiter, type BankCsvPlan, type CsvDelimiter, type CsvReadingOverride } from './csv-statement.js';
import type { SuggestionDraft } from './suggestions.js';
import { encodingOf, looksBinary, type TextEncoding } from './text-encoding.js';

/** Records parsed between two turns of the event loop. */
const RECORDS_PER_TURN = 250;
/** Bytes decoded per chunk. */
const CHUNK_BYTES = 64 * 1024;
/**
 * Bytes per chunk when only the head is read: csv-parse parses a whole chunk once given it, and
 * a preamble makes it build an error for every record of it (the width differs from the first).
 */
const HEAD_CHUNK_BYTES = 4 * 1024;
/** Records read before the rest of the file is read from the row after the header (more than the header search). */
const HEAD_RECORDS = 100;
/** Rows of the project's layout whose type cells decide between the two layouts. */
const TYPE_SAMPLE = 1000;

export interface CsvFile {
  bytes: Uint8Array;
  encoding: TextEncoding;
  bom: boolean;
  /** Where the text starts (after a byte-order mark). */
  start: number;
  delimiter: CsvDelimiter;
}

/** The encoding and delimiter of an upload, from its bytes and its head (the text is not decoded whole). */
export function openCsvFile(bytes: Uint8Array): CsvFile {
  const { encoding, bom, start } = encodingOf(bytes);
  const head = new TextDecoder(encoding).decode(bytes.subarray(start, start + CHUNK_BYTES), { stream: true });
  if (looksBinary(head)) throw new CsvReadError('The file is not a text CSV file.');
  return { bytes, encoding, bom, start, delimiter: detectDelimiter(head) };
}

function* textChunks(file: CsvFile, chunkBytes: number): Generator<string> {
  const decoder = new TextDecoder(file.encoding);
  for (let at = file.start; at < file.bytes.length; at += chunkBytes) {
    const text = decoder.decode(file.bytes.subarray(at, at + chunkBytes), { stream: true });
    if (text) yield text;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

export interface CsvRecord {
  record: string[];
  /** The 1-based line the record starts on (0 when not asked for). */
  line: number;
}

/**
 * The file's non-blank records in order from line `fromLine`, parsed as the text streams in.
 * Starting at the first row after the header matters for speed: csv-parse builds an error
 * object (a stack trace) for every record whose width differs from the first record's, which
 * a preamble line would make every row.
 */
export async function* csvRecords(file: CsvFile, fromLine = 1, withLines = true, chunkBytes = CHUNK_BYTES): AsyncGenerator<CsvRecord> {
  const parser = parse({ delimiter: file.delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true, info: withLines, from_line: fromLine });
  Readable.from(textChunks(file, chunkBytes)).pipe(parser);
  let parsedRecords = 0;
  try {
    for await (const parsed of parser as AsyncIterable<{ record: string[]; info: { lines: number } } | string[]>) {
      // the parse runs on microtasks: without a turn now and then, the database's answers to a
      // batch written meanwhile (an import's read-ahead) would wait for the whole next batch
      if (++parsedRecords % RECORDS_PER_TURN === 0) await nextTurn();
      const record = Array.isArray(parsed) ? parsed : parsed.record;
      if (record.every((cell) => cell.trim() === '')) continue;
      yield { record, line: Array.isArray(parsed) ? 0 : recordStartLine(record, parsed.info.lines) };
    }
  } catch (error) {
    throw new CsvReadError(`The file is not readable CSV: ${(error as Error).message}`);
  } finally {
    parser.destroy();
  }
}

/** How a file is read: as a bank export (with its plan) or in the project's own layout. */
export type CsvLayout = ({ kind: 'bank'; plan: BankCsvPlan } | { kind: 'project'; layout: ProjectLayout }) & {
  rows: number;
  /** The line the first data row starts on. */
  bodyLine: number;
};

/**
 * One pass over the file deciding its layout, as a legacy import reads it: the project's own
 * layout when its type column holds the project's types (income, expense, ±transfer) or the
 * bank reader says so (a wallet column, positional typed rows) or cannot find a date and an
 * amount; a bank export otherwise. `rows` are the data rows after the header. `override`
 * corrects a bank export's reading (an import session's mapping).
 */
export async function surveyCsvFile(file: CsvFile, override?: CsvReadingOverride): Promise<CsvLayout> {
  const survey = new BankCsvSurvey(override);
  let bankError: unknown;
  let project: ProjectLayout | undefined;
  let records = 0;
  let sampledTypes = 0;
  let projectTypes = 0;
  const lines: number[] = [];
  const feed = (record: string[]) => {
    records++;
    project ??= projectLayoutOf(record);
    if (bankError === undefined) {
      try {
        survey.add(record);
      } catch (error) {
        if (!(error instanceof CsvReadError)) throw error;
        bankError = error;
      }
    }
    const typeColumn = project.columns.type;
    if (typeColumn >= 0 && sampledTypes < TYPE_SAMPLE && !(project.hasHeader && records === 1)) {
      const type = record[typeColumn]?.trim().toLowerCase() ?? '';
      if (type !== '') sampledTypes++;
      if (/^[+-]?(income|expense|transfer)$/.test(type)) projectTypes++;
    }
  };
  // the head (where a preamble and the header are), then the rest read from the row after the header
  for await (const { record, line } of csvRecords(file, 1, true, HEAD_CHUNK_BYTES)) {
    feed(record);
    lines.push(line);
    if (records >= HEAD_RECORDS) break;
  }
  if (records >= HEAD_RECORDS) {
    let restart = 0;
    try {
      if (bankError === undefined) restart = survey.headerIndex() ?? 0;
    } catch (error) {
      if (!(error instanceof CsvReadError)) throw error;
      bankError = error;
    }
    let skip = records - (restart + 1);
    for await (const { record } of csvRecords(file, lines[restart + 1] ?? lines[restart], false)) {
      if (skip-- > 0) continue;
      feed(record);
    }
  }
  const projectRows = () => Math.max(0, records - (project?.hasHeader ? 1 : 0));
  const bodyLine = (start: number) => lines[start] ?? (lines.at(-1) ?? 0) + 1;
  // The project's own export types its rows income, expense or ±transfer (a hand-edited file may
  // have a bad one, reported as that row's error); a bank's "Transaction type" column has such a
  // word only now and then among its own ("Income" beside "MasterCard Payment": N26), so the
  // project's types must be most of those sampled. A header naming a type column with no rows
  // yet is the project's too.
  const typed = project !== undefined && project.columns.type >= 0 && (projectTypes * 2 > sampledTypes || (project.hasHeader && sampledTypes === 0));
  if (project && typed) return { kind: 'project', layout: project, rows: projectRows(), bodyLine: bodyLine(project.hasHeader ? 1 : 0) };
  let plan: BankCsvPlan | undefined;
  if (bankError === undefined) {
    try {
      plan = survey.finish(file, file.delimiter);
    } catch (error) {
      if (!(error instanceof CsvReadError)) throw error;
    }
  }
  if (plan) return { kind: 'bank', plan, rows: plan.bodyRows, bodyLine: bodyLine(plan.bodyStart) };
  const layout = project ?? projectLayoutOf([]);
  return { kind: 'project', layout, rows: projectRows(), bodyLine: bodyLine(layout.hasHeader ? 1 : 0) };
}

/** A data row as the layout reads it, with its position among the data rows. */
export type CsvDataRow =
  | { kind: 'bank'; index: number; line: number; record: string[]; draft: SuggestionDraft | undefined }
  | { kind: 'project'; index: number; row: CsvRow };

/** The data rows from `from` on (rows before it are parsed and passed over), one at a time; without `withLines` a bank row's line is 0. */
export async function* csvDataRows(file: CsvFile, layout: CsvLayout, from = 0, withLines = true): AsyncGenerator<CsvDataRow> {
  let index = 0;
  // a row of the project's layout names its line in its errors
  for await (const { record, line } of csvRecords(file, layout.bodyLine, withLines || layout.kind === 'project')) {
    if (index++ < from) continue;
    if (layout.kind === 'bank') yield { kind: 'bank', index: index - 1, line, record, draft: bankRowDraft(record, layout.plan) };
    else yield { kind: 'project', index: index - 1, row: projectRow(layout.layout, record, line) };
  }
}

/**
 * The header signature of a bank export from its head alone (the first records), or null:
 * enough to look up the user's remembered mapping before the one full survey.
 */
export async function headerSignatureOf(file: CsvFile): Promise<string | null> {
  const survey = new BankCsvSurvey();
  let records = 0;
  try {
    for await (const { record } of csvRecords(file, 1, false, HEAD_CHUNK_BYTES)) {
      survey.add(record);
      if (++records >= HEAD_RECORDS) break;
    }
    return survey.finish(file, file.delimiter)?.reading.header_signature ?? null;
  } catch (error) {
    if (error instanceof CsvReadError) return null;
    throw error;
  }
}
