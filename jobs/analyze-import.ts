// Analyses uploaded import documents (POST /v1/import/analyze): extracts the transactions
// (CSV, CAMT.053 and OFX natively, PDFs and images through the document processor), matches
// their names to the user's wallets, parties and categories, flags duplicates of existing
// transactions, and stores the suggestions (status analyzing → extracting → enriching →
// checking → ready, or failed with the reason). Nothing is written to the ledger here.
//
// The request nudges the job with the session id after commit; the schedule picks up sessions
// whose nudge was lost and those a crashed worker abandoned mid-way. A session is claimed with
// SKIP LOCKED and every stage change names the stage it leaves, so two workers never analyse
// one session together and a session deleted meanwhile is simply dropped. The upload is
// deleted once analysis ends, whatever the outcome.
//
// A bank CSV export is read as a stream and its suggestions are checked and stored
// ANALYSIS_BATCH at a time, each batch in its own transaction with the session locked (still
// `checking`): memory stays flat whatever the number of rows, `total_suggestions` grows while
// it runs, and a rerun after a crash clears what the interrupted run stored and starts again.
import { withBudgetAlerts, type AlertBudgets } from '../db/budget-alerts.js';
import { userTimeZoneOrUtc } from '../db/budget-spending.js';
import { CsvReadError } from '../domain/import-rows.js';
import { matchRecords, type UserRecords } from '../domain/statements/matching.js';
import { parseCamt053 } from '../domain/statements/camt053.js';
import { parseOfx } from '../domain/statements/ofx.js';
import { StatementError } from '../domain/statements/statement-line.js';
import { draftsFromProcessed, draftsFromStatement, type SuggestionDraft } from '../domain/statements/suggestions.js';
import { decodeStatementText } from '../domain/statements/text-encoding.js';
import {
  advanceSession,
  claimSession,
  clearSuggestions,
  failSession,
  finishSession,
  insertSuggestions,
  insertSuggestionsReturning,
  lockCheckingSession,
  markSessionReady,
  releaseUploadRow,
  sessionsToAnalyse,
  storeSuggestionBatch,
  type CheckedSuggestion,
  type ImportSessionRow,
} from '../db/import-sessions.js';
import type { JsonObject } from '../db/schema.js';
import { matchedCsvBatches, readCsvUpload, streamedDetails, surveyBankUpload, withDuplicates, type ExtractedDrafts, type SurveyedCsv } from '../handlers/shared/import-analysis.js';
import type { Statement } from '../domain/statements/statement-line.js';
import { DocumentProcessorError, processDocument } from '../server/document-processor.js';
import { confirmSuggestionBatch } from '../handlers/shared/import-confirm-batch.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';
import { readStoredBytes } from '../server/storage.js';
import { newestTransactionId, requestedConfirmOf, runAfterBatch, savePendingRun, type ConfirmRun } from '../db/import-confirm-runs.js';
import { recordsOf } from '../db/import-matching.js';
import { ANALYZE_IMPORT_JOB, CONFIRM_IMPORT_JOB } from '../db/job-names.js';
import { analyzeGrownLedger } from '../db/table-maintenance.js';

export const analyzeImportJob: JobDefinition<{ sessionId?: number }> = {
  name: ANALYZE_IMPORT_JOB,
  cron: '* * * * *',
  async run(ctx, data) {
    if (typeof data.sessionId === 'number') await analyseSession(ctx, data.sessionId);
    for (const id of await sessionsToAnalyse(ctx.db, ctx.services.now())) await analyseSession(ctx, id);
  },
};

/** Failures that are the document's fault: their message is the session's error as it is. */
const DOCUMENT_ERRORS = [StatementError, CsvReadError, DocumentProcessorError];

/** Analyses one session if it is waiting and no other worker holds it. */
export async function analyseSession(ctx: JobContext, sessionId: number): Promise<void> {
  const { db, services, log } = ctx;
  const claimed = await claimSession(db, sessionId, services.now());
  if (!claimed) return;
  const { session, upload } = claimed;
  try {
    if (!upload) return await failSession(db, session.id, 'Uploaded file not found', services.now());
    const data = await readStoredBytes(services.storage, upload.path);
    if (!data) return await failSession(db, session.id, 'Uploaded file not found', services.now());
    const streamed = session.processor === 'csv' ? await surveyBankUpload(db, session.user_id, data, session.file_name) : undefined;
    if (streamed) return await analyseStreamed(ctx, session, streamed);
    const { drafts, details } = await extractDrafts(ctx, session, data, upload);
    if (drafts.length === 0) return await failSession(db, session.id, 'No transactions could be extracted from this document.', services.now());

    if (!(await advanceSession(db, session.id, 'extracting', 'enriching', services.now()))) return;
    const matched = matchRecords(drafts, await recordsOf(db, session.user_id));

    if (!(await advanceSession(db, session.id, 'enriching', 'checking', services.now()))) return;
    const checked = await withDuplicates(db, session.user_id, matched);
    await finishSession(db, session, checked, services.now(), details);
  } catch (error) {
    const known = DOCUMENT_ERRORS.some((kind) => error instanceof kind);
    if (!known) log.error({ err: error, sessionId }, 'import analysis failed');
    await failSession(db, session.id, known ? (error as Error).message : `Analysis failed: ${(error as Error).message}`, services.now());
  } finally {
    // a CSV upload stays with its session: a mapping change reads it again
    if (session.processor !== 'csv' || (await sessionFailed(ctx, session.id))) await removeUpload(ctx, session);
    // the upload's accept_all started with `ready` (markSessionReady); after a failed
    // analysis the nudge finds nothing to run
    if (requestedConfirmOf(session.metadata)) await services.jobs.send(CONFIRM_IMPORT_JOB, { sessionId: session.id });
  }
}

/**
 * A bank export's rows checked and stored batch by batch; the session ends ready, or failed when
 * no row is a transaction. When the upload asked for `accept_all`, each batch is also imported
 * in the transaction that stores it (confirmBatchWhileStoring): the confirm runs alongside the
 * analysis instead of after it, and never reads the suggestions back.
 */
async function analyseStreamed(ctx: JobContext, session: ImportSessionRow, source: SurveyedCsv): Promise<void> {
  const { db, services, log } = ctx;
  if (!(await advanceSession(db, session.id, 'extracting', 'enriching', services.now()))) return;
  const records = await recordsOf(db, session.user_id);
  if (!(await advanceSession(db, session.id, 'enriching', 'checking', services.now()))) return;
  const zone = await userTimeZoneOrUtc(db, session.user_id);
  const requested = requestedConfirmOf(session.metadata);
  if (!requested) return storeStreamed(ctx, session, source, { records, zone, resumeAt: 0 }, (batch, firstIndex) => storeBatch(ctx, session, batch, firstIndex));
  // a run that stopped mid-way (a crashed worker) resumes after its last commit, against the
  // ledger as it was when the run began
  let run: ConfirmRun = { ...requested, ledger_through_id: requested.ledger_through_id ?? (await newestTransactionId(db)) };
  const reading = { records, zone, resumeAt: run.next_index, throughId: run.ledger_through_id };
  await withBudgetAlerts(
    services,
    log,
    (alert) =>
      storeStreamed(ctx, session, source, reading, async (batch, firstIndex) => {
        const stored = await confirmBatchWhileStoring(ctx, { session, run, zone, alert }, batch, firstIndex);
        if (stored) run = stored;
        return stored !== undefined;
      }),
    { db, userId: session.user_id },
  );
}

interface StreamedReading {
  records: UserRecords;
  zone: string;
  /** Rows already stored by an earlier run of this analysis. */
  resumeAt: number;
  /** Duplicates are looked for up to this transaction id (see withDuplicates). */
  throughId?: number;
}

/** Stores one checked batch; false when the session was deleted or finished by another worker. */
type BatchStore = (batch: CheckedSuggestion[], firstIndex: number) => Promise<boolean>;

/** The rows read, checked and handed to `store` a batch at a time; the session made ready at the end. */
async function storeStreamed(ctx: JobContext, session: ImportSessionRow, source: SurveyedCsv, reading: StreamedReading, store: BatchStore): Promise<void> {
  const { db, services } = ctx;
  let stored = reading.resumeAt;
  // a batch is checked for duplicates and stored while the next one is read and matched: the
  // parse runs here, the look-up and the INSERT in the database, and neither waits for the other
  let storing: Promise<boolean> = Promise.resolve(true);
  try {
    for await (const batch of matchedCsvBatches(source, reading.records, reading.resumeAt)) {
      const checking = withDuplicates(db, session.user_id, batch, reading.zone, reading.throughId);
      checking.catch(() => undefined); // awaited through `storing`; must not go unhandled meanwhile
      if (!(await storing)) return;
      const firstIndex = stored;
      storing = checking.then(async (checked) => {
        const stored = await store(checked, firstIndex);
        // the next batch's duplicate look-up and triggers planned for the ledger as it is now
        if (stored) await analyzeGrownLedger(db);
        return stored;
      });
      storing.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
      stored += batch.length;
    }
  } catch (error) {
    await storing.catch(() => undefined); // the batch in flight ends before the session is failed
    throw error;
  }
  if (!(await storing)) return;
  if (stored === 0) return await failSession(db, session.id, 'No transactions could be extracted from this document.', services.now());
  await db.transaction().execute(async (trx) => {
    if (await lockCheckingSession(trx, session.id)) await markSessionReady(trx, session.id, services.now(), streamedDetails(source, stored));
  });
}

/** A batch of a plain analysis stored: the first also drops what an interrupted run left. */
function storeBatch(ctx: JobContext, session: ImportSessionRow, batch: CheckedSuggestion[], firstIndex: number): Promise<boolean> {
  const { db, services } = ctx;
  if (firstIndex > 0) return storeSuggestionBatch(db, session, batch, firstIndex, services.now());
  return db.transaction().execute(async (trx) => {
    if (!(await lockCheckingSession(trx, session.id))) return false;
    await clearSuggestions(trx, session.id); // what an interrupted run left
    await insertSuggestions(trx, session, batch, firstIndex, services.now());
    // the stamp shows the run alive: a session checking for long is taken up again
    await trx.updateTable('import_sessions').set({ updated_at: services.now() }).where('id', '=', session.id).execute();
    return true;
  });
}

/**
 * One batch stored and imported in one transaction, as a whole-session confirm imports a batch
 * (duplicates skipped, wallets and parties created as the request says), its count saved with
 * it: a crash loses the batch whole, and the rerun resumes after the last commit. Returns the
 * run's new state, or undefined when the session was deleted or finished by another worker.
 */
async function confirmBatchWhileStoring(
  ctx: JobContext,
  state: { session: ImportSessionRow; run: ConfirmRun; zone: string; alert: AlertBudgets },
  batch: CheckedSuggestion[],
  firstIndex: number,
): Promise<ConfirmRun | undefined> {
  const { db, services, log } = ctx;
  const { session, run } = state;
  const now = services.now();
  return db.transaction().execute(async (trx) => {
    if (!(await lockCheckingSession(trx, session.id))) return undefined;
    if (firstIndex === 0) await clearSuggestions(trx, session.id); // an interrupted plain analysis's rows (none imported)
    const rows = await insertSuggestionsReturning(trx, session, batch, firstIndex, now);
    const request = { session_id: session.id, auto_create_wallets: run.auto_create_wallets, auto_create_parties: run.auto_create_parties, auto_create_categories: run.auto_create_categories };
    const counts = await confirmSuggestionBatch(trx, { db, userId: session.user_id, session, balances: [], request, timeZone: state.zone, now, alert: state.alert, log }, rows, new Map());
    const next = runAfterBatch(firstIndex === 0 ? { ...run, started_at: now.toISOString() } : run, rows, counts, false, now);
    await savePendingRun(trx, session.id, next, now);
    return next;
  });
}

async function extractDrafts(ctx: JobContext, session: ImportSessionRow, data: Buffer, upload: { mime_type: string; original_name: string | null }): Promise<ExtractedDrafts> {
  switch (session.processor) {
    case 'csv':
      return readCsvUpload(ctx.db, session.user_id, data);
    case 'camt':
      return fromStatement(parseCamt053(decodeStatementText(data).text), 'camt');
    case 'ofx':
      return fromStatement(parseOfx(decodeStatementText(data).text), 'ofx');
    case 'document_processor':
      return {
        drafts: draftsFromProcessed(
          await processDocument(ctx.services.config, {
            data,
            fileName: upload.original_name ?? session.file_name,
            mimeType: upload.mime_type,
            documentType: session.document_type,
          }),
        ),
        details: {},
      };
    default:
      throw new StatementError(`No extractor for this session (${session.processor ?? 'none'}).`);
  }
}

/** A native statement's drafts, with the balances of its accounts for the confirm's wallets and reconciliation. */
function fromStatement(statement: Statement, source: 'camt' | 'ofx'): ExtractedDrafts {
  const drafts: SuggestionDraft[] = draftsFromStatement(statement, source);
  return { drafts, details: { statement_balances: (statement.balances ?? []) as unknown as JsonObject[] } };
}

async function sessionFailed(ctx: JobContext, sessionId: number): Promise<boolean> {
  const row = await ctx.db.selectFrom('import_sessions').select('status').where('id', '=', sessionId).executeTakeFirst();
  return row === undefined || row.status === 'failed';
}

/** The upload's row goes, then its bytes (a failure leaves an orphan blob, logged). */
async function removeUpload(ctx: JobContext, session: ImportSessionRow): Promise<void> {
  if (session.file_id === null) return;
  try {
    const path = await releaseUploadRow(ctx.db, session.user_id, session.file_id);
    if (path) await ctx.services.storage.delete(path);
  } catch (error) {
    ctx.log.warn({ err: error, sessionId: session.id }, 'removing an analysed upload failed');
  }
}
