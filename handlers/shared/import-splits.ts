// Split lines a reviewer gives an accepted import suggestion (`accepted[].splits`, the shape a
// transaction takes): checked with the whole request, before anything is imported (422 keyed
// `accepted.<n>.splits...`: amounts, the exact sum against the line's amount, the lines'
// categories and parties), then written with the transaction; its categories are the lines'.
import type { Kysely } from 'kysely';
import type { ImportSuggestionRow } from '../../db/import-sessions.js';
import type { Database } from '../../db/schema.js';
import { moneyFromInput } from '../../domain/money.js';
import { splitCategoryIds, splitSumProblem, type SplitLine } from '../../domain/splits.js';
import type { components } from '../../generated/api.js';
import { HttpError, type FieldErrors } from '../../server/errors.js';
import { missingSplitReferences, splitErrorsOf, splitLinesFrom } from './transaction-splits.js';

type ConfirmItem = components['schemas']['ImportConfirmItem'];

/** The item's lines (none: not split). Call after confirmSplitErrors found nothing wrong. */
export function itemSplits(item: ConfirmItem): SplitLine[] {
  return splitLinesFrom(item.splits) ?? [];
}

/** Whether the item splits its suggestion and overrides nothing else: the batch writer can take it. */
export function onlySplits(item: ConfirmItem): boolean {
  return (item.splits?.length ?? 0) > 0 && Object.entries(item).every(([key, value]) => key === 'index' || key === 'splits' || value === null || value === undefined);
}

/**
 * What is wrong with the items' lines: each line's amount, the sum against the item's amount
 * (else the suggestion's; unknown, it is left to the item's own failure), a `category_id` beside
 * the lines that is not one of theirs, and the lines' references.
 */
export async function confirmSplitErrors(db: Kysely<Database>, userId: number, accepted: ConfirmItem[], suggestions: Map<number, ImportSuggestionRow>): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const checked: Array<{ at: string; lines: SplitLine[] }> = [];
  for (const [n, item] of accepted.entries()) {
    if (!item.splits?.length) continue;
    const at = `accepted.${n}.splits`;
    let lines: SplitLine[];
    try {
      lines = splitLinesFrom(item.splits, at) ?? [];
    } catch (error) {
      if (!(error instanceof HttpError) || !error.errors) throw error;
      Object.assign(errors, error.errors);
      continue;
    }
    const amount = item.amount != null ? moneyFromInput(item.amount) : suggestions.get(item.index)?.amount;
    const problem = amount != null ? splitSumProblem(String(amount), lines.map((line) => line.amount)) : undefined;
    if (problem) errors[at] = [problem];
    if (item.category_id != null && !splitCategoryIds(lines).includes(item.category_id)) {
      errors[`accepted.${n}.category_id`] = ["A split line's categories are its splits' categories: name one of them, or leave category_id out."];
    }
    checked.push({ at, lines });
  }
  // every item's references looked up together: two queries for the request, not two per item
  if (checked.length === 0) return errors;
  const missing = await missingSplitReferences(db, userId, checked.flatMap(({ lines }) => lines));
  for (const { at, lines } of checked) Object.assign(errors, splitErrorsOf(lines, missing, at));
  return errors;
}
