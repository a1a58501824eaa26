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
import { CsvReadError } from '../domain/import-rows.js';
import { duplicateWindow, findDuplicate, matchRecords, type MatchedDraft } from '../domain/statements/matching.js';
import { parseCamt053 } from '../domain/statements/camt053.js';
import { parseOfx } from '../domain/statements/ofx.js';
import { StatementError } from '../domain/statements/statement-line.js';
import { draftsFromCsv, draftsFromProcessed, draftsFromStatement, type SuggestionDraft } from '../domain/statements/suggestions.js';
import { userTimeZoneOrUtc } from '../db/budget-spending.js';
import {
  advanceSession,
  claimSession,
  failSession,
  finishSession,
  recordsOf,
  releaseUploadRow,
  sessionsToAnalyse,
  transactionsOnDays,
  type ImportSessionRow,
} from '../db/import-sessions.js';
import type { DuplicateMatch } from '../db/schema.js';
import { DocumentProcessorError, processDocument } from '../server/document-processor.js';
import type { JobContext, JobDefinition } from '../server/jobs.js';

export const ANALYZE_IMPORT_JOB = 'analyze-import';

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
    let data: Buffer;
    try {
      data = await services.storage.get(upload.path);
    } catch {
      return await failSession(db, session.id, 'Uploaded file not found', services.now());
    }
    const drafts = await extractDrafts(ctx, session, data, upload);
    if (drafts.length === 0) return await failSession(db, session.id, 'No transactions could be extracted from this document.', services.now());

    if (!(await advanceSession(db, session.id, 'extracting', 'enriching', services.now()))) return;
    const matched = matchRecords(drafts, await recordsOf(db, session.user_id));

    if (!(await advanceSession(db, session.id, 'enriching', 'checking', services.now()))) return;
    const checked = await withDuplicates(ctx, session.user_id, matched);
    await finishSession(db, session, checked, services.now());
  } catch (error) {
    const known = DOCUMENT_ERRORS.some((kind) => error instanceof kind);
    if (!known) log.error({ err: error, sessionId }, 'import analysis failed');
    await failSession(db, session.id, known ? (error as Error).message : `Analysis failed: ${(error as Error).message}`, services.now());
  } finally {
    await removeUpload(ctx, session);
  }
}

async function extractDrafts(ctx: JobContext, session: ImportSessionRow, data: Buffer, upload: { mime_type: string; original_name: string | null }): Promise<SuggestionDraft[]> {
  switch (session.processor) {
    case 'csv':
      return draftsFromCsv(decodeText(data));
    case 'camt':
      return draftsFromStatement(parseCamt053(decodeText(data)), 'camt');
    case 'ofx':
      return draftsFromStatement(parseOfx(decodeText(data)), 'ofx');
    case 'document_processor':
      return draftsFromProcessed(
        await processDocument(ctx.services.config, {
          data,
          fileName: upload.original_name ?? session.file_name,
          mimeType: upload.mime_type,
          documentType: session.document_type,
        }),
      );
    default:
      throw new StatementError(`No extractor for this session (${session.processor ?? 'none'}).`);
  }
}

/** UTF-8, or Latin-1 for the older bank exports that are not valid UTF-8 (OFX 1.x CHARSET:1252). */
function decodeText(data: Buffer): string {
  const utf8 = data.toString('utf8');
  return utf8.includes('\uFFFD') ? data.toString('latin1') : utf8;
}

async function withDuplicates(ctx: JobContext, userId: number, drafts: MatchedDraft[]): Promise<Array<MatchedDraft & { duplicate: DuplicateMatch | null }>> {
  const window = duplicateWindow(drafts);
  const zone = await userTimeZoneOrUtc(ctx.db, userId);
  const existing = window ? await transactionsOnDays(ctx.db, userId, window.from, window.to, zone) : [];
  return drafts.map((draft) => {
    const found = findDuplicate(draft, existing);
    return {
      ...draft,
      duplicate: found && {
        transaction_id: found.transaction.id,
        match_type: found.kind,
        confidence: found.kind === 'exact' ? 1 : 0.8,
        transaction_amount: found.transaction.amount,
        transaction_description: found.transaction.description,
        transaction_date: found.transaction.date,
        transaction_type: found.transaction.type,
      },
    };
  });
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
