// Legacy CSV imports (spec: Import tag, importFile … fixFailedImports). The upload is stored
// and recorded here; its rows are imported by jobs/process-csv-import.ts after the answer.
// Fixing failed rows writes each corrected row through the same import rules
// (shared/import-entries.ts), each in its own database transaction, and answers 200 with one
// result per row (DECISIONS: Imports).
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import type { Kysely } from 'kysely';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { findFileImport, insertFileImport, lockFailedRows, resolveFailedRows, selectFileImports, selectOpenFailedRows, setFailedReason, type FileImportRow } from '../db/imports.js';
import { pageMeta, pageOffset } from '../db/feed.js';
import { recordImportedLines } from '../db/rule-proposals.js';
import type { Database } from '../db/schema.js';
import { CsvReadError } from '../domain/import-rows.js';
import { hasTooManyDecimals, moneyFromInput } from '../domain/money.js';
import { openCsvFile } from '../domain/statements/csv-stream.js';
import { detectStatementFormat } from '../domain/statements/statement-line.js';
import { PROCESS_CSV_IMPORT_JOB } from '../db/job-names.js';
import { created, ok } from '../server/envelope.js';
import { HttpError, invalidField, validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { UploadedFile } from '../server/multipart.js';
import { amountOf, dateOf, importEntry, importTimeZone, importTransfer, rejectionReason, RowRejected, UNEXPECTED_FAILURE, type ImportWriteContext } from './shared/import-entries.js';
import { feedOptions } from './shared/records.js';
import { toFailedImport, toFileImport } from './views/import.js';

/** Extensions a CSV upload may have (spec: ImportFileUpload). */
const CSV_EXTENSIONS = ['csv', 'txt'];

type FixItem = HandlerContext<'fixFailedImports'>['body'][number];
type FixOutcome = { id: number; status: 'fixed' | 'failed'; reason: string | null; transaction_id: number | null; transfer_id: number | null };

export const importHandlers = {
  importFile: async (ctx: HandlerContext<'importFile'>) => {
    const { db, user, services } = ctx;
    const upload = await checkCsvUpload(ctx.files.file?.[0]);
    const stored = await services.storage.put('imports', upload.data, 'csv', 'text/csv');
    const now = services.now();
    const id = await db
      .transaction()
      .execute((trx) =>
        insertFileImport(trx, {
          userId: user.id,
          name: upload.filename,
          fileType: extensionOf(upload.filename),
          file: { path: stored, mimeType: 'text/csv', size: upload.data.length },
          now,
        }),
      )
      .catch(async (error: unknown) => {
        await services.storage.delete(stored);
        throw error;
      });
    await services.jobs.send(PROCESS_CSV_IMPORT_JOB, { importId: id });
    return created(toFileImport(await importOr404(db, user.id, id)), 'File uploaded. Import scheduled.');
  },

  listImports: async (ctx: HandlerContext<'listImports'>) => {
    const { db, user } = ctx;
    const options = feedOptions(ctx.query, ctx.services.now(), []);
    const [rows, counted] = await Promise.all([
      selectFileImports(db, user.id)
        .orderBy('file_imports.id', 'desc')
        .limit(options.limit)
        .offset(pageOffset(options))
        .execute(),
      db.selectFrom('file_imports').select((eb) => eb.fn.countAll<number>().as('total')).where('user_id', '=', user.id).executeTakeFirstOrThrow(),
    ]);
    return ok({ ...pageMeta(rows, Number(counted.total), options), data: rows.map(toFileImport) });
  },

  listFailedImports: async (ctx: HandlerContext<'listFailedImports'>) => {
    const { db, user, params } = ctx;
    await importOr404(db, user.id, params.id);
    const options = feedOptions(ctx.query, ctx.services.now(), []);
    const open = selectOpenFailedRows(db, user.id, params.id);
    const [rows, counted] = await Promise.all([
      open
        .orderBy('row_number')
        .orderBy('id')
        .limit(options.limit)
        .offset(pageOffset(options))
        .execute(),
      open.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return ok({ ...pageMeta(rows, Number(counted.total), options), data: rows.map(toFailedImport) });
  },

  fixFailedImports: async (ctx: HandlerContext<'fixFailedImports'>) => {
    const { db, user, services, params, body } = ctx;
    checkFixes(body);
    await importOr404(db, user.id, params.id);
    const timeZone = await importTimeZone(db, user.id);
    const results = await withBudgetAlerts(services, ctx.log, async (alert) => {
      const outcomes: FixOutcome[] = [];
      for (const item of body) {
        outcomes.push(await fixRow(ctx, params.id, item, { userId: user.id, now: services.now(), timeZone, alert }));
      }
      return outcomes;
    }, { db, userId: user.id });
    const fixed = results.filter((r) => r.status === 'fixed').length;
    const data = { import: toFileImport(await importOr404(db, user.id, params.id)), fixed_count: fixed, failed_count: results.length - fixed, results };
    return ok(data, fixed === results.length ? 'Operation successful' : 'Some rows could not be fixed.');
  },
} satisfies Partial<Handlers>;

async function importOr404(db: Kysely<Database>, userId: number, id: number): Promise<FileImportRow> {
  const row = await findFileImport(db, userId, id);
  if (!row) throw new HttpError(404, 'We could not find this import.');
  return row;
}

function extensionOf(filename: string): string {
  return path.extname(filename).slice(1).toLowerCase();
}

/**
 * The `file` part when it is a non-empty CSV text file (any encoding the statement reader
 * knows); 422 on `file` otherwise: a binary file (whatever its name), a statement in XML or
 * OFX (read by analysis), an empty file. Nothing is stored for a refused file.
 */
async function checkCsvUpload(file: UploadedFile | undefined): Promise<UploadedFile> {
  if (!file) throw invalidField('file', 'The file field is required.');
  if (file.data.length === 0) throw invalidField('file', 'The file is empty.');
  if (!CSV_EXTENSIONS.includes(extensionOf(file.filename))) throw invalidField('file', 'The file must be a CSV file.');
  const sniffed = await fileTypeFromBuffer(file.data);
  let csv;
  try {
    csv = openCsvFile(file.data);
    // file-type takes some UTF-16 text for a binary format; the decoded text decided for UTF-16
    if (sniffed && sniffed.mime !== 'application/xml' && !csv.encoding.startsWith('utf-16')) throw new CsvReadError(`it is a ${sniffed.ext.toUpperCase()} file.`);
  } catch (error) {
    if (error instanceof CsvReadError) throw invalidField('file', `The file must be a CSV text file (${error.message})`);
    throw error;
  }
  const head = new TextDecoder(csv.encoding).decode(file.data.subarray(csv.start, csv.start + 4096));
  if (detectStatementFormat(head) || head.trimStart().startsWith('<')) {
    throw invalidField('file', 'The file is an XML or OFX statement, not a CSV file: analyse it with POST /v1/import/analyze.');
  }
  return file;
}

/** What the schema cannot say about the corrected rows; 422 keyed by position, nothing written. */
function checkFixes(items: FixItem[]): void {
  const errors: FieldErrors = {};
  const seen = new Set<number>();
  items.forEach((item, i) => {
    for (const id of [item.id, item.pair_id]) {
      if (id === null || id === undefined) continue;
      if (seen.has(id)) (errors[`${i}.${id === item.id ? 'id' : 'pair_id'}`] ??= []).push('This failed row is listed more than once.');
      seen.add(id);
    }
    // a numeric string is read with the row (and fails that row when unreadable)
    if (typeof item.amount === 'number' && hasTooManyDecimals(item.amount)) errors[`${i}.amount`] = ['The amount may have at most 4 decimals.'];
    if (item.to_amount !== null && item.to_amount !== undefined && hasTooManyDecimals(item.to_amount)) {
      errors[`${i}.to_amount`] = ['The to amount may have at most 4 decimals.'];
    }
    if (item.type === 'transfer' && !item.to_wallet) errors[`${i}.to_wallet`] = ['The to wallet field is required when type is transfer.'];
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** Imports one corrected row in its own database transaction; a failure keeps it (and its pair) with the new reason. */
async function fixRow(ctx: HandlerContext<'fixFailedImports'>, importId: number, item: FixItem, write: ImportWriteContext): Promise<FixOutcome> {
  const ids = item.type === 'transfer' && item.pair_id ? [item.id, item.pair_id] : [item.id];
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const rows = await lockFailedRows(trx, write.userId, ids);
      const row = rows.find((r) => r.id === item.id);
      if (!row || row.file_import_id !== importId) throw new RowRejected('This failed row does not belong to this import.');
      if (row.resolved_at !== null) return alreadyFixed(trx, item.id, row.transaction_id);
      if (ids.length > 1) {
        const pair = rows.find((r) => r.id === item.pair_id);
        if (!pair || pair.file_import_id !== importId || pair.resolved_at !== null) throw new RowRejected('The pair row is not a failed row of this import.');
      }
      // the row as the failed list shows it: amounts may be numeric strings, dates as written
      const amount = moneyFromInput(amountOf(String(item.amount)).amount);
      const values = { amount, date: dateOf(item.date), currency: item.currency ?? null, wallet: item.wallet ?? null };
      if (item.type === 'transfer') {
        const made = await importTransfer(
          trx,
          {
            ...values,
            toAmount: item.to_amount === null || item.to_amount === undefined ? amount : moneyFromInput(item.to_amount),
            fromWallet: values.wallet,
            fromCurrency: values.currency,
            toWallet: item.to_wallet ?? null,
            toCurrency: null,
            createToIn: values.currency,
          },
          write,
        );
        await resolveFailedRows(trx, ids, made.expenseLegId, write.now);
        return { id: item.id, status: 'fixed' as const, reason: null, transaction_id: null, transfer_id: made.transferId };
      }
      const transactionId = await importEntry(
        trx,
        { ...values, type: item.type, party: item.party ?? null, category: item.category ?? null, description: item.description ?? null },
        write,
      );
      // a fixed row is an imported line like the others of its file (learned rules)
      await recordImportedLines(trx, write.userId, [{ transactionId, counterparty: item.party ?? null, description: item.description ?? null }]);
      await resolveFailedRows(trx, ids, transactionId, write.now);
      return { id: item.id, status: 'fixed' as const, reason: null, transaction_id: transactionId, transfer_id: null };
    });
  } catch (error) {
    const known = rejectionReason(error);
    if (known === undefined) ctx.log.error({ err: error, failedImportId: item.id }, 'fixing a failed import row failed');
    const reason = known ?? UNEXPECTED_FAILURE;
    await setFailedReason(ctx.db, write.userId, importId, ids, reason, write.now);
    return { id: item.id, status: 'failed', reason, transaction_id: null, transfer_id: null };
  }
}

/** A row fixed before (a repeated request): the same answer, nothing written again. */
async function alreadyFixed(db: Kysely<Database>, id: number, transactionId: number | null): Promise<FixOutcome> {
  const made = transactionId === null ? undefined : await db.selectFrom('transactions').select('transfer_id').where('id', '=', transactionId).executeTakeFirst();
  const transferId = made?.transfer_id ?? null;
  return { id, status: 'fixed', reason: null, transaction_id: transferId === null ? transactionId : null, transfer_id: transferId };
}
