// Import sessions and their suggestions as the API shows them (spec: ImportSession,
// ImportSuggestion). Counters come from the suggestion rows, so they are always consistent.
import type { components } from '../../generated/api.js';
import { confirmRunOf } from '../../db/import-confirm-runs.js';
import type { ImportSessionRow, ImportSuggestionRow, SuggestionCounts } from '../../db/import-sessions.js';
import { splitLineView } from './rule.js';
import { moneyToJson } from '../../domain/money.js';
import { notImportableReason } from '../../domain/statements/suggestions.js';
import type { CsvReading } from '../../domain/statements/csv-statement.js';
import type { AccountBalances } from '../../domain/statements/statement-line.js';
import type { SuggestionRules } from '../shared/suggestion-rules.js';

export type ImportSessionView = components['schemas']['ImportSession'];
export type ImportSuggestionView = components['schemas']['ImportSuggestion'];

const SOURCES: ImportSuggestionView['source'][] = ['csv', 'camt', 'ofx', 'remote', 'statement', 'llm_fallback', 'receipt'];
const PROCESSORS: ImportSessionView['processor'][] = ['csv', 'camt', 'ofx', 'document_processor'];

const moneyOrNull = (value: string | null) => (value === null ? null : moneyToJson(value));

/** The suggestion as the review shows it: with what the user's rules will do to it, when given (suggestion-rules.ts). */
export function toImportSuggestion(row: ImportSuggestionRow, ruled?: SuggestionRules): ImportSuggestionView {
  const view = suggestionAsStored(row);
  if (!ruled) return { ...view, rules: [], rule_changes: null };
  return {
    ...view,
    ...(ruled.category && { category: ruled.category.name, category_name: ruled.category.name, category_id: ruled.category.id }),
    ...(ruled.partyId !== null && { party_id: ruled.partyId }),
    ...(ruled.description !== null && { description: ruled.description }),
    not_importable_reason: view.not_importable_reason ?? ruled.skippedReason,
    rules: ruled.rules,
    rule_changes: {
      category_ids: ruled.categoryIds,
      party_id: ruled.partyId,
      party_name: ruled.partyName,
      description: ruled.description,
      group_id: ruled.groupId,
      skipped: ruled.skippedReason !== null,
      transfer_wallet_id: ruled.transferWalletId,
      splits: ruled.splits?.map(splitLineView) ?? null,
      splits_not_set: ruled.splitsNotSet,
    },
  };
}

function suggestionAsStored(row: ImportSuggestionRow): ImportSuggestionView {
  const duplicate = row.duplicate;
  const source = SOURCES.find((kind) => kind === row.document_type) ?? 'csv';
  return {
    index: row.suggestion_index,
    type: row.type,
    amount: moneyOrNull(row.amount),
    currency: row.currency,
    // stored dates are normalised; anything else (an older raw value) is not a date
    date: row.date !== null && /^\d{4}-\d{2}-\d{2}$/.test(row.date) ? row.date : null,
    description: row.description,
    // the reference's names, and the project's clearer `*_name` beside the `*_id` matches
    party: row.party,
    wallet: row.wallet,
    category: row.category,
    party_name: row.party,
    wallet_name: row.wallet,
    category_name: row.category,
    party_id: row.party_id,
    wallet_id: row.wallet_id,
    category_id: row.category_id,
    confidence: Number(row.confidence),
    document_type: source,
    source,
    fee: moneyOrNull(row.fee),
    tax: moneyOrNull(row.tax),
    account: row.account,
    reference: row.reference,
    warnings: row.warnings,
    duplicate:
      duplicate && (duplicate.match_type === 'exact' || duplicate.match_type === 'near')
        ? {
            match_type: duplicate.match_type,
            transaction_id: duplicate.transaction_id,
            confidence: duplicate.confidence,
            transaction_amount: moneyToJson(duplicate.transaction_amount ?? 0),
            transaction_description: duplicate.transaction_description,
            transaction_date: duplicate.transaction_date ?? '',
            transaction_type: duplicate.transaction_type ?? 'expense',
          }
        : null,
    status: row.status === 'confirmed' ? 'imported' : row.status,
    transaction_id: row.transaction_id,
    error: row.error,
    not_importable_reason: notImportableReason(row.amount, row.description),
  };
}

/** The session with the suggestions given (all, or the range asked for) and the counts of all of them. */
export function toImportSession(row: ImportSessionRow, suggestions: ImportSuggestionRow[], all: SuggestionCounts, ruled = new Map<number, SuggestionRules>()): ImportSessionView {
  // counted once as analysis ends (markSessionReady)
  const notImportable = (row.metadata as { not_importable_count?: number } | null)?.not_importable_count ?? 0;
  const counts = { total_suggestions: all.total, duplicates_found: all.duplicates, not_importable_count: notImportable };
  return {
    id: row.id,
    user_id: row.user_id,
    file_name: row.file_name,
    file_type: row.file_type,
    document_type: row.document_type,
    processor: PROCESSORS.find((processor) => processor === row.processor) ?? 'csv',
    status: row.status,
    progress: all.imported,
    ...counts,
    error: row.error,
    metadata: referenceMetadata(row, counts),
    suggestions: suggestions.map((suggestion) => toImportSuggestion(suggestion, ruled.get(suggestion.id))),
    csv_reading: csvReadingOf(row),
    statement_balances: statementBalancesOf(row).map(toStatementBalance),
    confirmed_at: row.confirmed_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The reference's `metadata`: the counts once analysed (with a whole-session confirm's progress), the error when analysis failed. */
function referenceMetadata(row: ImportSessionRow, counts: { total_suggestions: number; duplicates_found: number; not_importable_count: number }): ImportSessionView['metadata'] {
  if (row.status === 'failed') return { error: row.error ?? 'Analysis failed' };
  if (row.status !== 'ready' && row.status !== 'confirmed') return null;
  const run = confirmRunOf(row);
  if (!run) return counts;
  const { state, total, processed, created_count, already_imported_count, skipped_count, failed_count, started_at, finished_at } = run;
  // a run started before lines of amount 0 were left out counted none
  const not_importable_count = run.not_importable_count ?? 0;
  return { ...counts, confirm: { state, total, processed, created_count, already_imported_count, skipped_count, not_importable_count, failed_count, started_at, finished_at } };
}

/** How the session's CSV file was read (analysis keeps it in the metadata), or null. */
export function csvReadingOf(row: ImportSessionRow): CsvReading | null {
  const reading = (row.metadata as { csv_reading?: CsvReading } | null)?.csv_reading;
  return reading ?? null;
}

/** A statement account's balances, with the wallet and its balance after the last confirm. */
export type StatementBalance = AccountBalances & { wallet_id?: number | null; wallet_balance?: string | null; difference?: string | null };

export function statementBalancesOf(row: ImportSessionRow): StatementBalance[] {
  return (row.metadata as { statement_balances?: StatementBalance[] } | null)?.statement_balances ?? [];
}

function toStatementBalance(balance: StatementBalance): ImportSessionView['statement_balances'][number] {
  return {
    account: balance.account,
    currency: balance.currency,
    kind: balance.kind,
    opening_balance: moneyOrNull(balance.opening_balance),
    closing_balance: moneyOrNull(balance.closing_balance),
    closing_date: balance.closing_date,
    wallet_id: balance.wallet_id ?? null,
    wallet_balance: moneyOrNull(balance.wallet_balance ?? null),
    difference: moneyOrNull(balance.difference ?? null),
  };
}
