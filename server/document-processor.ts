// The document processor adapter: PDFs and images are read by an external service, configured
// by DOCUMENT_PROCESSOR_URL (optional bearer DOCUMENT_PROCESSOR_KEY). Without it those files
// are refused at upload (422), as DECISIONS says; nothing is guessed offline.
//
// The contract (ours, small on purpose):
//   POST <url>   multipart/form-data: `file` (the document), `document_type` (when given)
//   200          {"transactions": [{"date": "YYYY-MM-DD", "amount": -12.5 | "-12.50",
//                  "currency"?: "EUR", "description"?: "...", "counterparty"?: "...",
//                  "reference"?: "...", "type"?: "income" | "expense", "fee"?: 1.5,
//                  "tax"?: 0.2, "account"?: "...", "confidence"?: 0.9}]}
// A signed amount gives the direction unless `type` says it. Any other answer fails the
// analysis with a sentence saying what went wrong.
import type { Config } from './config.js';
import { statementAmount } from '../domain/statements/statement-line.js';
import type { ProcessedValues } from '../domain/statements/suggestions.js';

/** One line as the processor read it (amount signed: negative = money out). */
export type ProcessedLine = ProcessedValues;

export interface DocumentToProcess {
  data: Buffer;
  fileName: string;
  mimeType: string;
  documentType: string | null;
}

export class DocumentProcessorError extends Error {}

/** Rows of processor output are trusted less than structured statements (spec: 0.8). */
const DEFAULT_CONFIDENCE = 0.8;
const TIMEOUT_MS = 120_000;

export function documentProcessorConfigured(config: Config): boolean {
  return config.documentProcessorUrl !== undefined;
}

export async function processDocument(config: Config, document: DocumentToProcess): Promise<ProcessedLine[]> {
  const url = config.documentProcessorUrl;
  if (!url) throw new DocumentProcessorError('PDF and image files cannot be analysed: no document processor is configured on this server.');
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(document.data)], { type: document.mimeType }), document.fileName);
  if (document.documentType) form.append('document_type', document.documentType);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body: form,
      headers: config.documentProcessorKey ? { authorization: `Bearer ${config.documentProcessorKey}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new DocumentProcessorError(`The document processor could not be reached: ${(error as Error).message}`);
  }
  if (!response.ok) throw new DocumentProcessorError(`The document processor answered HTTP ${response.status}.`);
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new DocumentProcessorError('The document processor answered something that is not JSON.');
  }
  const items = (body as { transactions?: unknown })?.transactions;
  if (!Array.isArray(items)) throw new DocumentProcessorError('The document processor answered without a transactions list.');
  return items.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null).map(processedLine);
}

function processedLine(item: Record<string, unknown>): ProcessedLine {
  const amount = statementAmount(numberText(item.amount));
  const type = item.type === 'income' || item.type === 'expense' ? item.type : null;
  const confidence = typeof item.confidence === 'number' && item.confidence >= 0 && item.confidence <= 1 ? item.confidence : DEFAULT_CONFIDENCE;
  return {
    date: typeof item.date === 'string' ? item.date.trim() : null,
    amount: amount ? amount.toFixed() : null,
    type,
    currency: textOf(item.currency)?.toUpperCase() ?? null,
    description: textOf(item.description),
    counterparty: textOf(item.counterparty),
    reference: textOf(item.reference),
    account: textOf(item.account),
    fee: statementAmount(numberText(item.fee))?.abs().toFixed() ?? null,
    tax: statementAmount(numberText(item.tax))?.abs().toFixed() ?? null,
    confidence,
  };
}

function numberText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' ? value.replace(/,/g, '') : undefined;
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
