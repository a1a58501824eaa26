// Splits in the transaction write path: the body's lines read and checked (amounts, the exact
// sum, their references), and what a split means for the rest of the record: its categories
// are the lines' categories (in line order), its amount changes only with new lines, and a
// transfer leg has none. Every failure is a 422 keyed by field, before anything is written.
import type { Kysely } from 'kysely';
import type { components } from '../../generated/api.js';
import type { Database } from '../../db/schema.js';
import { missingLiveIds } from '../../db/sync.js';
import { splitLinesOf } from '../../db/transaction-splits.js';
import type { TransactionRow } from '../../db/transactions.js';
import { Decimal, exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../../domain/money.js';
import { splitCategoryIds, splitSumProblem, type SplitLine } from '../../domain/splits.js';
import { invalidField, validationFailed, type FieldErrors } from '../../server/errors.js';

type SplitBody = components['schemas']['TransactionSplitInput'];

/** The body's `splits` (at `at`, e.g. `accepted.3.splits`) as lines (undefined: not sent; null: sent as null). */
export function splitLinesFrom(splits: SplitBody[] | null | undefined, at = 'splits'): SplitLine[] | null | undefined {
  if (splits === undefined || splits === null) return splits;
  const errors: FieldErrors = {};
  const lines = splits.map((split, index) => {
    const field = `${at}.${index}.amount`;
    if (hasTooManyDecimals(split.amount)) errors[field] = ['The amount may have at most 4 decimal places.'];
    const amount = moneyFromInput(split.amount);
    if (exceedsMoneyLimit(amount)) errors[field] = ['The amount is too large.'];
    return { amount, categoryId: split.category_id ?? null, partyId: split.party_id ?? null, description: split.description ?? null };
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return lines;
}

/** 422 on `splits` unless the lines add up to `amount` exactly. */
function checkSum(amount: string, lines: readonly SplitLine[]): void {
  const problem = splitSumProblem(amount, lines.map((line) => line.amount));
  if (problem) throw invalidField('splits', problem);
}

const sameCategories = (a: readonly number[], b: readonly number[]) => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((id) => right.has(id));
};

const CATEGORIES_OF_SPLITS = "A split transaction's categories are its splits' categories: send the same ones, or change the splits.";

/**
 * A create's lines against its amount; the lines' categories become the links (a `categories`
 * sent beside them must name the same ones). No lines (or none sent): the entry as it was.
 */
export function withSplitCategories<Entry extends { amount: string; categoryIds?: number[]; splits?: SplitLine[] | null }>(entry: Entry): Entry {
  if (!entry.splits?.length) return { ...entry, splits: undefined };
  checkSum(entry.amount, entry.splits);
  const categoryIds = splitCategoryIds(entry.splits);
  if (entry.categoryIds !== undefined && !sameCategories(entry.categoryIds, categoryIds)) throw invalidField('categories', CATEGORIES_OF_SPLITS);
  return { ...entry, categoryIds };
}

/**
 * An update's splits, given the transaction as locked: new lines must add up to the new
 * amount (a transfer leg takes none); `null` or `[]` unsplits it (its links stay unless
 * `categories` is sent). Without lines, a split transaction keeps its amount (422 on `amount`)
 * and its categories (a `categories` naming the same ones is accepted and changes nothing).
 */
export async function splitChanges<Changes extends { amount?: string; categoryIds?: number[]; splits?: SplitLine[] | null }>(
  db: Kysely<Database>,
  userId: number,
  row: TransactionRow,
  changes: Changes,
): Promise<Changes> {
  const amount = changes.amount ?? String(row.amount);
  if (changes.splits === null || changes.splits?.length === 0) return { ...changes, splits: [] };
  if (changes.splits !== undefined) {
    if (row.transfer_id !== null) throw invalidField('splits', 'A transfer leg cannot be split: it moves money between wallets.');
    return withSplitCategories({ ...changes, amount });
  }
  const current = await splitLinesOf(db, userId, row.id);
  if (current.length === 0) return changes;
  if (!new Decimal(amount).equals(row.amount)) {
    throw invalidField('amount', 'This transaction is split: send splits that add up to the new amount, or `splits: null` to unsplit it.');
  }
  if (changes.categoryIds === undefined) return changes;
  if (!sameCategories(changes.categoryIds, splitCategoryIds(current))) throw invalidField('categories', CATEGORIES_OF_SPLITS);
  return { ...changes, categoryIds: undefined };
}

/**
 * Each line's category and party must be the caller's live records: 422 on
 * `splits.<index>.category_id` / `.party_id`. For an update (`current`), ids its lines already
 * name are not checked again (a record deleted since stays as it is).
 */
export async function checkSplitReferences(db: Kysely<Database>, userId: number, lines: readonly SplitLine[] | null | undefined, current?: TransactionRow): Promise<void> {
  const errors = await splitReferenceErrors(db, userId, lines, current);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** checkSplitReferences' errors, keyed under `at` (e.g. `accepted.3.splits`), none when all are the caller's. */
export async function splitReferenceErrors(db: Kysely<Database>, userId: number, lines: readonly SplitLine[] | null | undefined, current?: TransactionRow, at = 'splits'): Promise<FieldErrors> {
  if (!lines?.length) return {};
  const known = current ? await splitLinesOf(db, userId, current.id) : [];
  return splitErrorsOf(lines, await missingSplitReferences(db, userId, lines, known), at);
}

/** The categories and parties `lines` name that are not the user's live records (`known` lines' ones are not looked up). */
export async function missingSplitReferences(db: Kysely<Database>, userId: number, lines: readonly SplitLine[], known: readonly SplitLine[] = []): Promise<{ categories: number[]; parties: number[] }> {
  const unchecked = (pick: (line: SplitLine) => number | null) => {
    const had = new Set(known.map(pick));
    return [...new Set(lines.map(pick).filter((id): id is number => id !== null && !had.has(id)))];
  };
  return {
    categories: await missingLiveIds(db, 'categories', userId, unchecked((line) => line.categoryId)),
    parties: await missingLiveIds(db, 'parties', userId, unchecked((line) => line.partyId)),
  };
}

/** The lines' errors keyed `<at>.<n>.category_id` / `.party_id` for the references found missing. */
export function splitErrorsOf(lines: readonly SplitLine[], missing: { categories: number[]; parties: number[] }, at = 'splits'): FieldErrors {
  const errors: FieldErrors = {};
  lines.forEach((line, index) => {
    if (line.categoryId !== null && missing.categories.includes(line.categoryId)) errors[`${at}.${index}.category_id`] = ['The selected category is invalid.'];
    if (line.partyId !== null && missing.parties.includes(line.partyId)) errors[`${at}.${index}.party_id`] = ['The selected party is invalid.'];
  });
  return errors;
}
