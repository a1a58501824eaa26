// Imports the rows of uploaded CSV files (POST /v1/import) as transactions and transfers.
// The upload nudges this job with its import's id after commit; the schedule (every minute)
// picks up every import still pending or processing, so a lost nudge or a stopped worker only
// delays an import.
//
// The file is read as a stream with the reader analysis uses (domain/statements/csv-stream.ts):
// a bank export (any encoding, delimiter, preamble, language, date and decimal convention) or
// the project's own layout. One pass surveys it (layout, mapping, `num_rows`), the next hands
// out its rows one at a time, so memory stays flat whatever the number of rows.
//
// Idempotent and safe with two workers: rows are imported in batches, each batch in one
// database transaction that holds the import row's lock (FOR UPDATE SKIP LOCKED: a second
// worker skips an import being worked on) and moves `progress` past the rows it wrote. A
// rerun resumes at `progress`, so no row is imported twice. A batch's incomes and expenses are
// written together (shared/import-batch.ts: a few statements per batch, each wallet's balance
// moved once); a transfer pair, or every row of a batch whose bulk write hit an unexpected
// error, runs under its own savepoint: a row that fails is rolled back alone and recorded in
// failed_imports with its raw cells and the real reason. Each row written is remembered with
// the file's counterparty and description (imported_lines: learned rules learn from edits of
// imported lines, docs/rules.md). Once every row is handled the import
// is `completed` (and import.completed recorded, in that commit) and its upload removed.
import path from 'node:path';
import { sql, type Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { importUpload, insertFailedRows, lockImport, unfinishedImportIds, updateImport, type NewFailedRow } from '../db/imports.js';
import { recordImportedLines } from '../db/rule-proposals.js';
import type { Database } from '../db/schema.js';
import { recordWebhookEvent } from '../db/webhook-outbox.js';
import { CsvReadError } from '../domain/import-rows.js';
import { openCsvFile, surveyCsvFile, type CsvFile, type CsvLayout } from '../domain/statements/csv-stream.js';
import { importEntries } from '../handlers/shared/import-batch.js';
import { loadUserRules } from '../handlers/shared/transaction-rules.js';
import { importEntry, importTimeZone, importTransfer, rejectionReason, UNEXPECTED_FAILURE, type ImportedEntry, type ImportWriteContext } from '../handlers/shared/import-entries.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';
import { removeStoredFiles } from '../server/stored-files.js';
import { readStoredBytes } from '../server/storage.js';
import { PROCESS_CSV_IMPORT_JOB } from '../db/job-names.js';
import { analyzeGrownLedger } from '../db/table-maintenance.js';
import { importUnits, type ImportUnit } from './csv-import-units.js';

/** Data rows written per database transaction (and per progress step). */
const BATCH_ROWS = 2000;
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
  const head = await db.selectFrom('file_imports').select(['user_id', 'file_id', 'status', 'name']).where('id', '=', importId).executeTakeFirst();
  if (!head || head.status === 'completed' || head.status === 'failed') return;

  const upload = await importUpload(db, head.file_id);
  // the rules are read once for the whole file: a rule changed while it imports applies to the next one
  const writeCtx = { userId: head.user_id, now: services.now(), timeZone: await importTimeZone(db, head.user_id), rules: await loadUserRules(db, head.user_id) };
  try {
    const file = openCsvFile(await readUpload(ctx, upload?.path));
    const layout = await surveyCsvFile(file);
    await withBudgetAlerts(services, log, (alert) => importRows(ctx, importId, { file, layout, fileWallet: path.parse(head.name).name || head.name }, { ...writeCtx, alert }), { db, userId: head.user_id });
  } catch (error) {
    if (!(error instanceof CsvReadError)) throw error;
    await finish(ctx, importId, { status: 'failed', error: error.message }, upload);
    return;
  }
  const after = await db.selectFrom('file_imports').select('status').where('id', '=', importId).executeTakeFirst();
  if (after?.status === 'completed') await removeUpload(ctx, upload);
}

/** The next rows of a batch, read from the stream. */
interface ReadBatch {
  batch: ImportUnit[];
  rows: number;
  done: boolean;
}

async function readBatch(units: AsyncGenerator<ImportUnit>): Promise<ReadBatch> {
  const batch: ImportUnit[] = [];
  let rows = 0;
  while (rows < BATCH_ROWS) {
    const next = await units.next();
    if (next.done) return { batch, rows, done: true };
    batch.push(next.value);
    rows += next.value.size;
  }
  return { batch, rows, done: false };
}

/**
 * Batch after batch until the import is complete or another worker holds it. The next batch
 * is read from the file while the database writes the current one (the parse on this core,
 * the INSERTs on another); it is used only if the import's progress is where it starts.
 */
async function importRows(ctx: JobContext, importId: number, source: { file: CsvFile; layout: CsvLayout; fileWallet: string }, write: ImportWriteContext): Promise<void> {
  let units: AsyncGenerator<ImportUnit> | undefined;
  let position = -1;
  let ahead: Promise<ReadBatch> | undefined;
  try {
    for (;;) {
      const step = await ctx.db.transaction().execute(async (trx) => {
        const current = await lockImport(trx, importId);
        if (!current) return 'skipped';
        if (!units || current.progress !== position) {
          // the first batch, or another worker moved on meanwhile: read on from its progress
          await ahead?.catch(() => undefined);
          await units?.return(undefined);
          units = importUnits(source.file, source.layout, current.progress, source.fileWallet);
          position = current.progress;
          ahead = undefined;
        }
        const { batch, rows, done } = await (ahead ?? readBatch(units));
        ahead = done ? undefined : readBatch(units);
        ahead?.catch(() => undefined); // awaited by the next batch; a read error must not go unhandled meanwhile
        const now = ctx.services.now();
        const failed = await writeUnits(trx, batch, { ...write, now }, ctx.log);
        position += rows;
        await insertFailedRows(trx, write.userId, importId, failed, now);
        await updateImport(trx, importId, { status: done ? 'completed' : 'processing', progress: position, num_rows: source.layout.rows }, now);
        if (done) await recordWebhookEvent(trx, write.userId, 'import.completed', importId, now);
        return done ? 'done' : 'more';
      });
      if (step !== 'more') return;
      await analyzeGrownLedger(ctx.db); // the next batch's triggers planned for the ledger as it is now
    }
  } finally {
    await ahead?.catch(() => undefined);
    await units?.return(undefined);
  }
}

/** Writes a batch in file order: runs of incomes and expenses together, transfers alone; returns the rows that failed. */
async function writeUnits(trx: Transaction<Database>, batch: ImportUnit[], ctx: ImportWriteContext, log: FastifyBaseLogger): Promise<NewFailedRow[]> {
  const failed: NewFailedRow[] = [];
  let run: Array<Extract<ImportUnit, { kind: 'entry' }>> = [];
  const flush = async () => {
    if (run.length > 0) failed.push(...(await writeEntries(trx, run, ctx, log)));
    run = [];
  };
  for (const unit of batch) {
    if (unit.kind === 'entry') {
      run.push(unit);
      continue;
    }
    await flush();
    if (unit.kind === 'failed') failed.push(...unit.rows);
    else if (unit.kind === 'transfer') {
      const reason = await attempt(trx, log, () => importTransfer(trx, unit.transfer, ctx));
      if (reason) failed.push(...unit.cells.map((cells) => ({ ...cells, reason })));
    }
  }
  await flush();
  return failed;
}

/** A run of incomes and expenses written together; after an unexpected error, row by row. */
async function writeEntries(trx: Transaction<Database>, run: Array<Extract<ImportUnit, { kind: 'entry' }>>, ctx: ImportWriteContext, log: FastifyBaseLogger): Promise<NewFailedRow[]> {
  await sql`savepoint import_batch`.execute(trx);
  try {
    const made: Array<{ at: number; id: number }> = [];
    const reasons = await importEntries(
      trx,
      run.map((unit) => unit.entry),
      ctx,
      (at, id) => made.push({ at, id }),
    );
    await recordImportedLines(trx, ctx.userId, made.map(({ at, id }) => lineOf(run[at].entry, id)));
    await sql`release savepoint import_batch`.execute(trx);
    return run.flatMap((unit, i) => (reasons[i] === undefined ? [] : [{ ...unit.cells, reason: reasons[i]! }]));
  } catch (error) {
    await sql`rollback to savepoint import_batch`.execute(trx);
    log.warn({ err: error }, 'writing a CSV import batch together failed; writing its rows one by one');
  }
  const failed: NewFailedRow[] = [];
  for (const unit of run) {
    const reason = await attempt(trx, log, async () => recordImportedLines(trx, ctx.userId, [lineOf(unit.entry, await importEntry(trx, unit.entry, ctx))]));
    if (reason) failed.push({ ...unit.cells, reason });
  }
  return failed;
}

/** A row as learned rules read it (db/rule-proposals.ts): the file's counterparty and description. */
function lineOf(entry: ImportedEntry, transactionId: number) {
  return { transactionId, counterparty: entry.counterparty ?? entry.party, description: entry.description };
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

// ---------------------------------------------------------------- the upload

async function readUpload(ctx: JobContext, path: string | undefined): Promise<Buffer> {
  if (!path) throw new CsvReadError('The uploaded file is missing.');
  const bytes = await readStoredBytes(ctx.services.storage, path);
  if (!bytes) throw new CsvReadError('The uploaded file is missing.');
  return bytes;
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
