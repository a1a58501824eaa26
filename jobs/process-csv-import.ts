// Imports the rows of uploaded CSV files (POST /v1/import) as transactions and transfers.
// The upload nudges this job with its import's id after commit; the schedule (every minute)
// picks up every import still pending or processing, so a lost nudge or a stopped worker only
// delays an import.
//
// Idempotent and safe with two workers: rows are imported in batches, each batch in one
// database transaction that holds the import row's lock (FOR UPDATE SKIP LOCKED: a second
// worker skips an import being worked on) and moves `progress` past the rows it wrote. A
// rerun resumes at `progress`, so no row is imported twice. Each row runs under a savepoint:
// a row that fails is rolled back alone and recorded in failed_imports with its raw cells and
// the real reason. Once every row is handled the import is `completed` and its upload removed.
import { sql, type Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { importUpload, insertFailedRows, lockImport, unfinishedImportIds, updateImport, type NewFailedRow } from '../db/imports.js';
import type { Database } from '../db/schema.js';
import { CsvReadError, readCsvRows, type CsvRow } from '../domain/import-rows.js';
import {
  amountOf,
  dateOf,
  importEntry,
  importTimeZone,
  importTransfer,
  rejectionReason,
  RowRejected,
  UNEXPECTED_FAILURE,
  type ImportedEntry,
  type ImportedTransfer,
  type ImportWriteContext,
} from '../handlers/shared/import-entries.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';
import { removeStoredFiles } from '../server/stored-files.js';

export const PROCESS_CSV_IMPORT_JOB = 'process-csv-import';

/** Rows written per database transaction (each under its own savepoint). */
const BATCH_ROWS = 50;
/** Unfinished imports taken up by one scheduled run. */
const SCAN_LIMIT = 20;

export const processCsvImportJob: JobDefinition<{ importId?: number }> = {
  name: PROCESS_CSV_IMPORT_JOB,
  cron: '* * * * *',
  resumeAtStart: true,
  async run(ctx, data) {
    const ids = typeof data.importId === 'number' ? [data.importId] : await unfinishedImportIds(ctx.db, SCAN_LIMIT);
    for (const id of ids) {
      try {
        await processImport(ctx, id);
      } catch (error) {
        // One import must not stop the others; the schedule retries it.
        ctx.log.error({ err: error, importId: id }, 'processing a CSV import failed');
      }
    }
  },
};

/** Imports every row of the import not handled yet; a finished import is left as it is. */
export async function processImport(ctx: JobContext, importId: number): Promise<void> {
  const { db, services, log } = ctx;
  const head = await db.selectFrom('file_imports').select(['user_id', 'file_id', 'status']).where('id', '=', importId).executeTakeFirst();
  if (!head || head.status === 'completed' || head.status === 'failed') return;

  const upload = await importUpload(db, head.file_id);
  let rows: CsvRow[];
  try {
    rows = readCsvRows(decodeUtf8(await readUpload(ctx, upload?.path)));
  } catch (error) {
    if (!(error instanceof CsvReadError)) throw error;
    await finish(ctx, importId, { status: 'failed', error: error.message }, upload);
    return;
  }

  const writeCtx = { userId: head.user_id, now: services.now(), timeZone: await importTimeZone(db, head.user_id) };
  await withBudgetAlerts(services, log, async (alert) => {
    for (;;) {
      const step = await db.transaction().execute((trx) => importBatch(trx, importId, rows, { ...writeCtx, now: services.now(), alert }, log));
      if (step !== 'more') break;
    }
  }, { db, userId: head.user_id });
  const after = await db.selectFrom('file_imports').select('status').where('id', '=', importId).executeTakeFirst();
  if (after?.status === 'completed') await removeUpload(ctx, upload);
}

/**
 * One batch under the import's lock: 'more' when rows remain, 'done' when the import is
 * complete, 'skipped' when another worker holds it (or finished it meanwhile).
 */
async function importBatch(
  trx: Transaction<Database>,
  importId: number,
  rows: CsvRow[],
  ctx: ImportWriteContext,
  log: FastifyBaseLogger,
): Promise<'more' | 'done' | 'skipped'> {
  const current = await lockImport(trx, importId);
  if (!current) return 'skipped';
  let progress = current.progress;
  const end = Math.min(rows.length, progress + BATCH_ROWS);
  const failed: NewFailedRow[] = [];
  while (progress < end) progress += await importRowAt(trx, rows, progress, ctx, failed, log);
  const complete = progress >= rows.length;
  await insertFailedRows(trx, ctx.userId, importId, failed, ctx.now);
  await updateImport(trx, importId, { status: complete ? 'completed' : 'processing', progress, num_rows: rows.length }, ctx.now);
  return complete ? 'done' : 'more';
}

/** Imports the row at `index` (with the next one, for a transfer pair); returns the rows consumed. */
async function importRowAt(
  trx: Transaction<Database>,
  rows: CsvRow[],
  index: number,
  ctx: ImportWriteContext,
  failed: NewFailedRow[],
  log: FastifyBaseLogger,
): Promise<number> {
  const row = rows[index];
  if (typeCell(row) === '+transfer') {
    const next = rows[index + 1];
    if (!next || typeCell(next) !== '-transfer') {
      failed.push(failedRow(row, 'Corresponding -transfer row not found.'));
      return 1;
    }
    const reason = await attempt(trx, log, () => importTransfer(trx, transferOf(row, next), ctx));
    if (reason) failed.push(failedRow(row, reason), failedRow(next, reason));
    return 2;
  }
  const reason = await attempt(trx, log, () => importEntry(trx, entryOf(row), ctx));
  if (reason) failed.push(failedRow(row, reason));
  return 1;
}

/** Runs one row's writes under a savepoint; returns why it failed (its writes undone), or undefined. */
async function attempt(trx: Transaction<Database>, log: FastifyBaseLogger, write: () => Promise<unknown>): Promise<string | undefined> {
  await sql`savepoint import_row`.execute(trx);
  try {
    await write();
    await sql`release savepoint import_row`.execute(trx);
    return undefined;
  } catch (error) {
    await sql`rollback to savepoint import_row`.execute(trx);
    const reason = rejectionReason(error);
    if (reason === undefined) log.error({ err: error }, 'importing a CSV row failed');
    return reason ?? UNEXPECTED_FAILURE;
  }
}

// ---------------------------------------------------------------- reading a row

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
function failedRow(row: CsvRow, reason: string): NewFailedRow {
  return { rowNumber: row.line, ...row.cells, reason };
}

// ---------------------------------------------------------------- the upload

async function readUpload(ctx: JobContext, path: string | undefined): Promise<Buffer> {
  if (!path) throw new CsvReadError('The uploaded file is missing.');
  return ctx.services.storage.get(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new CsvReadError('The uploaded file is missing.');
    throw error;
  });
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CsvReadError('The file is not UTF-8 text.');
  }
}

/** Ends an import that cannot be read at all. */
async function finish(ctx: JobContext, importId: number, outcome: { status: 'failed'; error: string }, upload: { id: number; path: string } | undefined): Promise<void> {
  const ended = await ctx.db.transaction().execute(async (trx) => {
    if (!(await lockImport(trx, importId))) return false;
    await updateImport(trx, importId, outcome, ctx.services.now());
    return true;
  });
  if (ended) await removeUpload(ctx, upload);
}

/** The upload is not kept once its import is over (its files row goes, then the bytes). */
async function removeUpload(ctx: JobContext, upload: { id: number; path: string } | undefined): Promise<void> {
  if (!upload) return;
  await ctx.db.deleteFrom('files').where('id', '=', upload.id).where('model', '=', 'import').execute();
  await removeStoredFiles(ctx.services.storage, [upload.path], ctx.log);
}
