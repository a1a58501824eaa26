// Import sessions: analyse → review → confirm (spec paths /v1/import/analyze, /confirm,
// /sessions). Analysis runs in jobs/analyze-import.ts; confirm writes through the one money
// path (shared/import-confirm.ts). Sessions are not synced records: deleting one removes it.
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import type { Kysely } from 'kysely';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { userTimeZoneOrUtc } from '../db/budget-spending.js';
import { deleteSession, findSession, insertSession, markSessionConfirmed, sessionPage, suggestionsOf, type ImportProcessor } from '../db/import-sessions.js';
import type { Database, FileType } from '../db/schema.js';
import { detectStatementFormat } from '../domain/statements/statement-line.js';
import { ANALYZE_IMPORT_JOB } from '../jobs/analyze-import.js';
import { documentProcessorConfigured } from '../server/document-processor.js';
import { created, done, ok } from '../server/envelope.js';
import { conflict, invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { UploadedFile } from '../server/multipart.js';
import { checkConfirmRequest, confirmItem, type ItemOutcome } from './shared/import-confirm.js';
import { toImportSession } from './views/import-session.js';

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
  if ((sniffed && sniffed.mime !== 'application/xml') || file.data.includes(0)) throw invalidField('file', UNSUPPORTED);
  const text = file.data.toString('utf8');
  const format = detectStatementFormat(text);
  if (format === 'camt') return { processor: 'camt', mime: 'application/xml', storedType: 'document', extension: 'xml' };
  if (format === 'ofx') return { processor: 'ofx', mime: 'application/x-ofx', storedType: 'document', extension: 'ofx' };
  if (text.replace(/^\uFEFF/, '').trimStart().startsWith('<')) throw invalidField('file', 'The XML file is not a CAMT.053 bank statement.');
  const extension = extensionOf(file.filename);
  if (['csv', 'txt'].includes(extension) || file.declaredType === 'text/csv') return { processor: 'csv', mime: 'text/csv', storedType: 'document', extension: 'csv' };
  throw invalidField('file', UNSUPPORTED);
}

const extensionOf = (fileName: string) => path.extname(fileName).slice(1).toLowerCase();

/** The caller's session with its suggestions, or 404. */
async function presentSession(db: Kysely<Database>, userId: number, sessionId: number) {
  const session = await findSession(db, userId, sessionId);
  if (!session) throw notFound(SESSION);
  return toImportSession(session, (await suggestionsOf(db, [session.id])).get(session.id)!);
}

export const importSessionHandlers = {
  analyzeImport: async ({ db, user, body, files, services }: HandlerContext<'analyzeImport'>) => {
    const file = files.file?.[0];
    if (!file) throw invalidField('file', 'The file field is required.');
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
          now,
        });
      });
    } catch (error) {
      await services.storage.delete(key);
      throw error;
    }
    await services.jobs.send(ANALYZE_IMPORT_JOB, { sessionId: session.id });
    return created(toImportSession(session, []), 'Document uploaded. Analysis in progress.');
  },

  listImportSessions: async ({ db, user, query, services }: HandlerContext<'listImportSessions'>) => {
    const { rows, meta } = await sessionPage(db, user.id, { page: query.page ?? 1, limit: query.limit ?? 20, now: services.now() });
    const suggestions = await suggestionsOf(db, rows.map((row) => row.id));
    return ok({ ...meta, data: rows.map((row) => toImportSession(row, suggestions.get(row.id)!)) });
  },

  getImportSession: async ({ db, user, params }: HandlerContext<'getImportSession'>) => ok(await presentSession(db, user.id, params.id)),

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
    const suggestions = new Map(((await suggestionsOf(db, [session.id])).get(session.id) ?? []).map((row) => [row.suggestion_index, row]));
    await checkConfirmRequest(db, user.id, body, suggestions);

    const timeZone = await userTimeZoneOrUtc(db, user.id);
    const results: ItemOutcome[] = await withBudgetAlerts(services, log, async (alert) => {
      const outcomes: ItemOutcome[] = [];
      for (const item of body.accepted) outcomes.push(await confirmItem({ db, userId: user.id, session, request: body, timeZone, now: services.now(), alert }, item));
      return outcomes;
    }, { db, userId: user.id });
    const count = (status: ItemOutcome['status']) => results.filter((result) => result.status === status).length;
    const [createdCount, alreadyCount, failedCount] = [count('created'), count('already_imported'), count('failed')];
    if (createdCount > 0) await markSessionConfirmed(db, session.id, services.now());
    const message =
      failedCount === 0 ? 'All transactions imported successfully.' : createdCount === 0 ? 'Import failed. No transactions were created.' : 'Import completed with some errors.';
    return ok(
      {
        session: await presentSession(db, user.id, session.id),
        created_count: createdCount,
        already_imported_count: alreadyCount,
        failed_count: failedCount,
        results,
        errors: results.filter((result) => result.status === 'failed').map((result) => `Failed to import suggestion at index ${result.index}: ${result.error}`),
      },
      message,
    );
  },
} satisfies Partial<Handlers>;
