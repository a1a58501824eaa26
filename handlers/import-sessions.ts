// Import sessions: analyse → review → confirm (spec paths /v1/import/analyze, /confirm,
// /sessions). Analysis runs in jobs/analyze-import.ts; confirm writes through the one money
// path (shared/import-confirm.ts). Sessions are not synced records: deleting one removes it.
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import type { Kysely } from 'kysely';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { userTimeZoneOrUtc } from '../db/budget-spending.js';
import { confirmRunOf, newConfirmRun, startConfirmRun, type ConfirmRun, type ConfirmRunRequest } from '../db/import-confirm-runs.js';
import {
  deleteSession,
  findSession,
  insertSession,
  lockUnconfirmedSession,
  replaceSuggestions,
  sessionPage,
  suggestionCounts,
  suggestionsAt,
  suggestionsOf,
  uploadPath,
  type ImportProcessor,
} from '../db/import-sessions.js';
import type { Database, FileType } from '../db/schema.js';
import { CsvReadError } from '../domain/import-rows.js';
import { parseCamt053 } from '../domain/statements/camt053.js';
import { readBankCsv } from '../domain/statements/csv-statement.js';
import { parseDateFormatLabel } from '../domain/statements/csv-values.js';
import { parseOfx } from '../domain/statements/ofx.js';
import { detectStatementFormat, StatementError } from '../domain/statements/statement-line.js';
import { decodeStatementText, looksBinary, type DecodedText } from '../domain/statements/text-encoding.js';
import { ANALYZE_IMPORT_JOB, CONFIRM_IMPORT_JOB } from '../db/job-names.js';
import { documentProcessorConfigured } from '../server/document-processor.js';
import { created, done, ok } from '../server/envelope.js';
import { conflict, invalidField, notFound, validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { UploadedFile } from '../server/multipart.js';
import { readStoredBytes } from '../server/storage.js';
import { checkConfirmRequest, confirmItem, sessionConfirmed, type ItemOutcome } from './shared/import-confirm.js';
import { checkedSuggestions, readCsvUpload, rereadCsvSession, surveyBankUpload } from './shared/import-analysis.js';
import { pageRequest } from './shared/records.js';
import { suggestionRulesOf } from './shared/suggestion-rules.js';
import { csvReadingOf, statementBalancesOf, toImportSession } from './views/import-session.js';

const SESSION = 'Import session';

/** What an upload is, judged by its bytes first and its name only to tell CSV from other text. */
interface DocumentKind {
  processor: ImportProcessor;
  mime: string;
  storedType: FileType;
  extension: string;
}

const IMAGES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/tiff': 'tif', 'image/bmp': 'bmp' };
const UNSUPPORTED = 'The file must be a CSV, CAMT.053 XML, OFX/QFX, PDF or image (PNG, JPEG, TIFF, BMP) file.';
const NO_PROCESSOR = 'PDF and image files cannot be analysed: no document processor is configured on this server.';

async function documentKind(file: UploadedFile, processorConfigured: boolean): Promise<DocumentKind> {
  if (file.data.length === 0) throw invalidField('file', 'The file is empty.');
  const sniffed = await fileTypeFromBuffer(file.data);
  const binary = sniffed?.mime === 'application/pdf' ? 'pdf' : sniffed && IMAGES[sniffed.mime] ? 'image' : undefined;
  if (binary) {
    if (!processorConfigured) throw invalidField('file', NO_PROCESSOR);
    return { processor: 'document_processor', mime: sniffed!.mime, storedType: binary, extension: binary === 'pdf' ? 'pdf' : IMAGES[sniffed!.mime] };
  }
  const decoded = decodeStatementText(file.data);
  // file-type takes some UTF-16 text for a binary format; the decoded text decides for UTF-16
  const sniffedBinary = sniffed !== undefined && sniffed.mime !== 'application/xml' && !decoded.encoding.startsWith('utf-16');
  if (sniffedBinary || looksBinary(decoded.text)) throw invalidField('file', UNSUPPORTED);
  const format = detectStatementFormat(decoded.text);
  if (format) {
    checkReadable(() => (format === 'camt' ? parseCamt053(decoded.text) : parseOfx(decoded.text)));
    return format === 'camt'
      ? { processor: 'camt', mime: 'application/xml', storedType: 'document', extension: 'xml' }
      : { processor: 'ofx', mime: 'application/x-ofx', storedType: 'document', extension: 'ofx' };
  }
  if (decoded.text.trimStart().startsWith('<')) throw invalidField('file', 'The XML file is not a CAMT.053 bank statement.');
  const extension = extensionOf(file.filename);
  if (['csv', 'txt'].includes(extension) || file.declaredType === 'text/csv') {
    checkReadable(() => checkCsvHead(decoded));
    return { processor: 'csv', mime: 'text/csv', storedType: 'document', extension: 'csv' };
  }
  throw invalidField('file', UNSUPPORTED);
}

/** A document the readers refuse is answered at once (422 on `file`), before a session exists. */
function checkReadable(read: () => unknown): void {
  try {
    read();
  } catch (error) {
    if (error instanceof StatementError || error instanceof CsvReadError) throw invalidField('file', error.message);
    throw error;
  }
}

/** The bytes read for the upload check: enough for any preamble, header and first rows. */
const CSV_HEAD = 256 * 1024;
/**
 * The list embeds each session's first suggestions only: a page of 20 sessions of 100,000 rows
 * each would be millions of suggestions in one answer. `total_suggestions` gives the count and
 * GET /import/sessions/{id} every suggestion (or a range).
 */
const LISTED_SUGGESTIONS = 1_000;

/** The head of a CSV file must hold transaction rows (a plain-text note holds none). */
function checkCsvHead(decoded: DecodedText): void {
  const text = decoded.text.length > CSV_HEAD ? decoded.text.slice(0, decoded.text.lastIndexOf('\n', CSV_HEAD) + 1 || CSV_HEAD) : decoded.text;
  const read = readBankCsv({ ...decoded, text });
  if (read && read.drafts.length === 0) throw new CsvReadError('The file holds no rows with a date and an amount.');
}

const extensionOf = (fileName: string) => path.extname(fileName).slice(1).toLowerCase();

/** The user's session as GET shows it, with its suggestions (all, or the range asked for); undefined when there is none. */
export async function sessionView(db: Kysely<Database>, userId: number, sessionId: number, range: { from?: number; limit?: number } = {}) {
  const session = await findSession(db, userId, sessionId);
  if (!session) return undefined;
  const [suggestions, counts] = await Promise.all([suggestionsOf(db, [session.id], range), suggestionCounts(db, [session.id])]);
  const rows = suggestions.get(session.id)!;
  return toImportSession(session, rows, counts.get(session.id)!, await suggestionRulesOf(db, userId, rows));
}

/** The caller's session with its suggestions (all, or the range asked for), or 404. */
async function presentSession(db: Kysely<Database>, userId: number, sessionId: number, range: { from?: number; limit?: number } = {}) {
  const view = await sessionView(db, userId, sessionId, range);
  if (!view) throw notFound(SESSION);
  return view;
}

export const importSessionHandlers = {
  analyzeImport: async ({ db, user, body, files, services }: HandlerContext<'analyzeImport'>) => {
    const file = files.file?.[0];
    if (!file) throw invalidField('file', 'The file field is required.');
    const confirmRequested = confirmAtUpload(body, services.now());
    const kind = await documentKind(file, documentProcessorConfigured(services.config));
    const key = await services.storage.put('imports', file.data, kind.extension);
    let session;
    try {
      session = await db.transaction().execute(async (trx) => {
        const now = services.now();
        const upload = await trx
          .insertInto('files')
          .values({ user_id: user.id, model: 'import', path: key, original_name: file.filename || null, mime_type: kind.mime, size: file.data.length, type: kind.storedType, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        return insertSession(trx, {
          userId: user.id,
          fileName: file.filename || `upload.${kind.extension}`,
          fileType: extensionOf(file.filename) || kind.extension,
          documentType: body.document_type ?? null,
          processor: kind.processor,
          fileId: upload.id,
          confirmRequested,
          now,
        });
      });
    } catch (error) {
      await services.storage.delete(key);
      throw error;
    }
    await services.jobs.send(ANALYZE_IMPORT_JOB, { sessionId: session.id });
    return created(toImportSession(session, [], { total: 0, duplicates: 0, imported: 0 }), 'Document uploaded. Analysis in progress.');
  },

  listImportSessions: async ({ db, user, query, services }: HandlerContext<'listImportSessions'>) => {
    const { rows, meta } = await sessionPage(db, user.id, { ...pageRequest(query), now: services.now() });
    const ids = rows.map((row) => row.id);
    const [suggestions, counts] = await Promise.all([suggestionsOf(db, ids, { belowIndex: LISTED_SUGGESTIONS }), suggestionCounts(db, ids)]);
    const ruled = await suggestionRulesOf(db, user.id, [...suggestions.values()].flat());
    return ok({ ...meta, data: rows.map((row) => toImportSession(row, suggestions.get(row.id)!, counts.get(row.id)!, ruled)) });
  },

  getImportSession: async ({ db, user, params, query }: HandlerContext<'getImportSession'>) =>
    ok(await presentSession(db, user.id, params.id, { from: query.suggestions_from, limit: query.suggestions_limit })),

  deleteImportSession: async ({ db, user, params, services, log }: HandlerContext<'deleteImportSession'>) => {
    const session = await findSession(db, user.id, params.id);
    if (!session) throw notFound(SESSION);
    const uploadKey = await db.transaction().execute((trx) => deleteSession(trx, session));
    // the bytes go once the rows are gone; a failure only leaves an orphan blob
    if (uploadKey) await services.storage.delete(uploadKey).catch((error: unknown) => log.warn({ err: error }, 'removing an import upload failed'));
    return done('Import session deleted.');
  },

  confirmImport: async ({ db, user, body, services, log }: HandlerContext<'confirmImport'>) => {
    const session = await findSession(db, user.id, body.session_id);
    if (!session) throw notFound(SESSION);
    if (session.status === 'failed') throw conflict('This import session failed and cannot be confirmed.');
    if (session.status !== 'ready' && session.status !== 'confirmed') throw conflict('This import session is still being analysed.');
    const suggestions = await suggestionsAt(db, session.id, (body.accepted ?? []).map((item) => item.index));
    await checkConfirmRequest(db, user.id, body, suggestions);
    if (body.accept_all) {
      const unknown = (body.accepted ?? []).flatMap((item, n) => (suggestions.has(item.index) ? [] : [n]));
      if (unknown.length > 0) throw validationFailed(Object.fromEntries(unknown.map((n) => [`accepted.${n}.index`, ['No suggestion of this session has this index.']])));
      return startWholeConfirm({ db, user, body, services });
    }
    if (!body.accepted) throw invalidField('accepted', 'The accepted field is required unless accept_all is true.');
    const accepted = body.accepted;

    const timeZone = await userTimeZoneOrUtc(db, user.id);
    const results: ItemOutcome[] = await withBudgetAlerts(services, log, async (alert) => {
      const outcomes: ItemOutcome[] = [];
      const balances = statementBalancesOf(session);
      for (const item of accepted) outcomes.push(await confirmItem({ db, userId: user.id, session, balances, request: body, timeZone, now: services.now(), alert }, item));
      return outcomes;
    }, { db, userId: user.id });
    const count = (status: ItemOutcome['status']) => results.filter((result) => result.status === status).length;
    const [createdCount, alreadyCount, skippedCount, failedCount] = [count('created'), count('already_imported'), count('skipped_duplicate'), count('failed')];
    if (createdCount > 0) await db.transaction().execute((trx) => sessionConfirmed(trx, session, services.now()));
    const message =
      failedCount === 0 ? 'All transactions imported successfully.' : createdCount === 0 ? 'Import failed. No transactions were created.' : 'Import completed with some errors.';
    return ok(
      {
        session: await presentSession(db, user.id, session.id),
        created_count: createdCount,
        already_imported_count: alreadyCount,
        skipped_count: skippedCount,
        failed_count: failedCount,
        results,
        errors: results.filter((result) => result.status === 'failed').map((result) => `Failed to import suggestion at index ${result.index}: ${result.error}`),
      },
      message,
    );
  },

  updateImportMapping: async ({ db, user, params, body, services }: HandlerContext<'updateImportMapping'>) => {
    const session = await findSession(db, user.id, params.id);
    if (!session) throw notFound(SESSION);
    const reading = csvReadingOf(session);
    if (session.status !== 'ready' || !reading || session.file_id === null) throw conflict('Only a ready bank CSV session can be read again.');
    if (confirmRunOf(session)?.state === 'running') throw conflict('A confirm of this import session is running: its file cannot be read again.');
    checkMappingChange(body, reading.columns.length);
    const path = await uploadPath(db, user.id, session.file_id);
    const bytes = path && (await readStoredBytes(services.storage, path));
    if (!bytes) throw conflict('The file of this session is no longer stored.');
    const override = { mapping: { ...reading.mapping, ...body.mapping }, date_format: body.date_format ?? null, decimal_separator: body.decimal_separator ?? null };
    let read;
    try {
      // a bank export is read again as a stream, its suggestions replaced in one transaction
      const streamed = await surveyBankUpload(db, user.id, bytes, session.file_name, override);
      if (streamed) {
        await db.transaction().execute(async (trx) => {
          if (!(await lockUnconfirmedSession(trx, session.id))) throw conflict('Some suggestions of this session are already imported: its file cannot be read again.');
          if ((await rereadCsvSession(trx, session, streamed, services.now())) === 0) throw invalidField('mapping', 'No rows could be read with this mapping.');
        });
        return ok(await presentSession(db, user.id, session.id), 'Column mapping updated.');
      }
      read = await readCsvUpload(db, user.id, bytes, override);
    } catch (error) {
      if (error instanceof CsvReadError) throw invalidField('mapping', error.message);
      throw error;
    }
    if (read.drafts.length === 0) throw invalidField('mapping', 'No rows could be read with this mapping.');
    const checked = await checkedSuggestions(db, user.id, read.drafts);
    await db.transaction().execute(async (trx) => {
      if (!(await lockUnconfirmedSession(trx, session.id))) throw conflict('Some suggestions of this session are already imported: its file cannot be read again.');
      await replaceSuggestions(trx, session, checked, services.now(), read.details);
    });
    return ok(await presentSession(db, user.id, session.id), 'Column mapping updated.');
  },
} satisfies Partial<Handlers>;

/**
 * `accept_all`: the whole session is confirmed by a job, a batch at a time (jobs/confirm-import.ts);
 * answered 202 with the session, whose progress the client polls. One run at a time per session.
 */
async function startWholeConfirm({ db, user, body, services }: Pick<HandlerContext<'confirmImport'>, 'db' | 'user' | 'body' | 'services'>) {
  const now = services.now();
  const counts = (await suggestionCounts(db, [body.session_id])).get(body.session_id)!;
  const run = newConfirmRun({ ...autoCreateFlags(body), items: (body.accepted ?? []) as unknown as ConfirmRunRequest['items'] }, counts.total, now);
  const started = await startConfirmRun(db, body.session_id, run, now);
  if (!started) throw conflict('A confirm of this import session is already running.');
  await services.jobs.send(CONFIRM_IMPORT_JOB, { sessionId: body.session_id });
  return { status: 202 as const, data: await presentSession(db, user.id, body.session_id, { limit: 0 }), message: "Import started: the session's suggestions are being imported." };
}

type AutoCreateFlags = Pick<ConfirmRunRequest, 'auto_create_wallets' | 'auto_create_parties' | 'auto_create_categories'>;

const autoCreateFlags = (body: Partial<Record<keyof AutoCreateFlags, boolean>>): AutoCreateFlags => ({
  auto_create_wallets: body.auto_create_wallets ?? false,
  auto_create_parties: body.auto_create_parties ?? false,
  auto_create_categories: body.auto_create_categories ?? false,
});

/**
 * An upload's `accept_all`: the whole-session confirm the session starts once analysed. Its
 * `auto_create_*` flags mean nothing without it, so one set alone is refused (422, no session).
 */
function confirmAtUpload(body: HandlerContext<'analyzeImport'>['body'], now: Date): ConfirmRun | undefined {
  const flags = autoCreateFlags(body);
  if (body.accept_all) return newConfirmRun({ ...flags, items: [] }, 0, now);
  const stray = Object.entries(flags).filter(([, on]) => on);
  if (stray.length > 0) throw validationFailed(Object.fromEntries(stray.map(([flag]) => [flag, [`${flag} applies only with accept_all.`]])));
  return undefined;
}

/** Columns beyond the file's and unknown date formats (422, nothing changed). */
function checkMappingChange(body: HandlerContext<'updateImportMapping'>['body'], width: number): void {
  const errors: FieldErrors = {};
  for (const [role, column] of Object.entries(body.mapping ?? {})) {
    if (typeof column === 'number' && column >= width) errors[`mapping.${role}`] = [`The file has ${width} columns (0 to ${width - 1}).`];
  }
  if (body.date_format && !parseDateFormatLabel(body.date_format)) errors.date_format = ['The date format must be DD, MM and YY or YYYY in some order with one separator, e.g. DD.MM.YYYY.'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}
