// Confirming reviewed import suggestions: each accepted suggestion becomes a transaction
// (plus a fee expense when it has a fee) through the one money path, in its own database
// transaction, with the suggestion row locked. A suggestion already imported answers
// `already_imported` with its transaction and writes nothing: confirming twice, or two
// confirms at once, never creates a transaction twice.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AlertBudgets } from '../../db/budget-alerts.js';
import { lockSuggestion, markSessionConfirmed, markSuggestionFailed, markSuggestionImported, mergeSessionMetadata, type ImportSessionRow, type ImportSuggestionRow } from '../../db/import-sessions.js';
import { rememberMapping } from '../../db/import-mappings.js';
import { findOrCreateCategoryByName } from '../../db/category-names.js';
import { findOrCreateParty } from '../../db/import-record-names.js';
import { findOrCreateNamedWallet } from '../../db/import-wallets.js';
import type { Database, JsonObject } from '../../db/schema.js';
import { findLive, missingLiveIds, type SyncedTable } from '../../db/sync.js';
import { recordWebhookEvent } from '../../db/webhook-outbox.js';
import { Decimal, exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../../domain/money.js';
import type { components } from '../../generated/api.js';
import { validationFailed, type FieldErrors } from '../../server/errors.js';
import { targetCurrency } from '../../db/settings.js';
import { csvReadingOf, statementBalancesOf, type StatementBalance } from '../views/import-session.js';
import { importDayStart, rejectionReason } from './import-entries.js';
import { createTransactionEntry } from './transaction-writes.js';
import { bookRuledTransfer, SPLIT_NOT_TRANSFER, withTransferRefused } from './rule-transfers.js';
import { applyRulesToEntry, skippedByRule } from './transaction-rules.js';
import { confirmSplitErrors, itemSplits } from './import-splits.js';
import { splitCategoryIds } from '../../domain/splits.js';

export type ConfirmRequest = components['schemas']['ImportConfirmRequest'];
export type ConfirmItem = components['schemas']['ImportConfirmItem'];
export type ItemOutcome = components['schemas']['ImportConfirmItemOutcome'];

/** A reason this one suggestion cannot be imported; its database transaction rolls back. */
class ItemFailure extends Error {}

const REFERENCES: Array<{ field: 'wallet_id' | 'party_id' | 'category_id'; table: SyncedTable; what: string }> = [
  { field: 'wallet_id', table: 'wallets', what: 'wallet' },
  { field: 'party_id', table: 'parties', what: 'party' },
  { field: 'category_id', table: 'categories', what: 'category' },
];

/**
 * The request as a whole (422, nothing imported): an index repeated, an amount with more
 * than 4 decimals, a referenced id that is not the caller's, or a suggestion left without a
 * wallet while wallets may not be auto-created.
 */
export async function checkConfirmRequest(db: Kysely<Database>, userId: number, body: ConfirmRequest, suggestions: Map<number, ImportSuggestionRow>): Promise<void> {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const seen = new Set<number>();
  const accepted = body.accepted ?? [];
  accepted.forEach((item, n) => {
    if (seen.has(item.index)) add(`accepted.${n}.index`, `The index ${item.index} appears more than once.`);
    seen.add(item.index);
    if (item.amount != null && hasTooManyDecimals(item.amount)) add(`accepted.${n}.amount`, 'The amount may have at most 4 decimals.');
    else if (item.amount != null && exceedsMoneyLimit(moneyFromInput(item.amount))) add(`accepted.${n}.amount`, 'The amount is too large.');
    if (item.fee != null && hasTooManyDecimals(item.fee)) add(`accepted.${n}.fee`, 'The fee may have at most 4 decimals.');
    else if (item.fee != null && exceedsMoneyLimit(moneyFromInput(item.fee))) add(`accepted.${n}.fee`, 'The fee is too large.');
    const suggestion = suggestions.get(item.index);
    const needsWallet = suggestion !== undefined && suggestion.status !== 'confirmed' && item.wallet_id == null && suggestion.wallet_id === null;
    if (needsWallet && !body.auto_create_wallets) add(`accepted.${n}.wallet_id`, 'A wallet must be selected or auto-created.');
  });
  for (const { field, table, what } of REFERENCES) {
    const ids = accepted.map((item) => item[field]).filter((id): id is number => id != null);
    const missing = new Set(await missingLiveIds(db, table, userId, ids));
    accepted.forEach((item, n) => {
      if (item[field] != null && missing.has(item[field]!)) add(`accepted.${n}.${field}`, `The selected ${what} is invalid.`);
    });
  }
  Object.assign(errors, await confirmSplitErrors(db, userId, accepted, suggestions));
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

export interface ConfirmContext {
  db: Kysely<Database>;
  userId: number;
  session: ImportSessionRow;
  /** The statement's accounts (OFX/CAMT): a wallet created for one starts with its opening balance. */
  balances: StatementBalance[];
  request: ConfirmRequest;
  timeZone: string;
  now: Date;
  alert: AlertBudgets;
  /** Where a whole-session confirm's job reports a batch written again one by one. */
  log?: { warn(details: object, message: string): void };
}

/** Suggestion indexes are int4 in the database; a larger one names no suggestion (and must not reach a query). */
const MAX_SUGGESTION_INDEX = 2_147_483_647;

/** Imports one accepted suggestion; never throws for a problem of the suggestion itself. */
export async function confirmItem(ctx: ConfirmContext, item: ConfirmItem): Promise<ItemOutcome> {
  if (item.index > MAX_SUGGESTION_INDEX) return failedOutcome(item.index, `Invalid suggestion index: ${item.index}`);
  try {
    return await ctx.db.transaction().execute((trx) => importSuggestion(trx, ctx, item));
  } catch (error) {
    const reason = error instanceof ItemFailure ? error.message : rejectionReason(error);
    if (reason === undefined) throw error;
    await markSuggestionFailed(ctx.db, ctx.session.id, item.index, reason, ctx.now);
    return failedOutcome(item.index, reason);
  }
}

/**
 * Imports one accepted suggestion inside a whole-session confirm's batch transaction, under a
 * savepoint: a failure undoes only this suggestion's writes and is recorded on it.
 */
export async function confirmItemInBatch(trx: Transaction<Database>, ctx: ConfirmContext, item: ConfirmItem): Promise<ItemOutcome> {
  await sql`savepoint import_item`.execute(trx);
  try {
    const outcome = await importSuggestion(trx, ctx, item);
    await sql`release savepoint import_item`.execute(trx);
    return outcome;
  } catch (error) {
    await sql`rollback to savepoint import_item`.execute(trx);
    const reason = error instanceof ItemFailure ? error.message : rejectionReason(error);
    if (reason === undefined) throw error;
    await markSuggestionFailed(trx, ctx.session.id, item.index, reason, ctx.now);
    return failedOutcome(item.index, reason);
  }
}

/** Sources whose rows a bank already booked. */
export const STATEMENT_SOURCES = ['csv', 'camt', 'ofx'];

function skippedDuplicate(index: number, transactionId: number): ItemOutcome {
  return {
    index,
    status: 'skipped_duplicate',
    transaction_id: transactionId,
    fee_transaction_id: null,
    wallet_id: null,
    party_id: null,
    category_id: null,
    error: 'This suggestion repeats an existing transaction: accept it with accept_duplicate to import it anyway.',
  };
}

function failedOutcome(index: number, reason: string): ItemOutcome {
  return { index, status: 'failed', transaction_id: null, fee_transaction_id: null, wallet_id: null, party_id: null, category_id: null, error: reason };
}

async function importSuggestion(trx: Transaction<Database>, ctx: ConfirmContext, item: ConfirmItem): Promise<ItemOutcome> {
  const { userId, now, request } = ctx;
  const suggestion = await lockSuggestion(trx, ctx.session.id, item.index);
  if (!suggestion) throw new ItemFailure(`Invalid suggestion index: ${item.index}`);
  if (suggestion.status === 'confirmed') return alreadyImported(trx, suggestion);
  if (suggestion.duplicate !== null && item.accept_duplicate !== true) return skippedDuplicate(item.index, suggestion.duplicate.transaction_id);

  const type = item.type ?? suggestion.type ?? 'expense';
  const amount = item.amount != null ? moneyFromInput(item.amount) : suggestion.amount;
  if (amount === null || !new Decimal(amount).greaterThan(0)) throw new ItemFailure('Amount must be a number greater than zero.');
  const date = item.date ?? suggestion.date;
  if (date === null || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new ItemFailure('The suggestion has no date: give one.');

  const walletId = await walletFor(trx, ctx, item, suggestion);
  const partyId = item.party_id ?? (await liveOrNull(trx, 'parties', userId, suggestion.party_id)) ?? (request.auto_create_parties && suggestion.party ? await findOrCreateParty(trx, userId, suggestion.party, now) : null);
  const categoryId =
    item.category_id ??
    (await liveOrNull(trx, 'categories', userId, suggestion.category_id)) ??
    (request.auto_create_categories && suggestion.category ? await findOrCreateCategoryByName(trx, userId, suggestion.category, type, now) : null);
  const datetime = importDayStart(date, ctx.timeZone);
  const description = item.description ?? suggestion.description;

  // a bank statement's row was booked by the bank: refusing it below zero would lose it (an
  // amount the user typed over is theirs, and keeps the guard)
  const bookedElsewhere = STATEMENT_SOURCES.includes(suggestion.document_type ?? '') && item.amount == null;
  // the user's choices in the review win over rules; the analysis' category guess does not
  const ruled = await applyRulesToEntry(
    trx,
    userId,
    { type, amount, walletId, datetime, description, partyId, categoryIds: item.category_id != null ? [item.category_id] : [], splits: itemSplits(item), bookedElsewhere },
    now,
    { counterparty: suggestion.party, currency: suggestion.currency },
  );
  if (ruled.ruled.skippedBy !== null) throw new ItemFailure(skippedByRule(ruled.ruled));
  const fee = item.fee != null ? moneyFromInput(item.fee) : suggestion.fee;
  const hasFee = fee !== null && new Decimal(fee).greaterThan(0);
  // the reviewer's lines win over the rules' categories, lines and transfer (a transfer leg has no lines)
  const reviewed = itemSplits(item);
  const splits = reviewed.length > 0 ? reviewed : (ruled.ruled.splits ?? []);
  if (ruled.ruled.transferWalletId !== null && reviewed.length > 0) ruled.metadata = withTransferRefused(ruled.ruled, SPLIT_NOT_TRANSFER).metadata;
  else if (ruled.ruled.transferWalletId !== null && hasFee) ruled.metadata = withTransferRefused(ruled.ruled, 'Not booked as a transfer: the line has a fee.').metadata;
  else if (ruled.ruled.transferWalletId !== null) {
    const line = { type, amount, walletId, otherWalletId: ruled.ruled.transferWalletId, datetime, description: item.description ?? ruled.description ?? null, bookedElsewhere };
    const transfer = await bookRuledTransfer(trx, userId, line, now, new Set());
    if (transfer.status !== 'refused') {
      await markSuggestionImported(trx, suggestion.id, { transactionId: transfer.transactionId, feeTransactionId: null }, now);
      const status = transfer.status === 'paired' ? 'already_imported' : 'created';
      return { index: item.index, status, transaction_id: transfer.transactionId, fee_transaction_id: null, wallet_id: walletId, party_id: null, category_id: null, error: null };
    }
    ruled.metadata = withTransferRefused(ruled.ruled, transfer.reason).metadata;
  }
  const categoryIds =
    splits.length > 0
      ? splitCategoryIds(splits)
      : ruled.ruled.ruleCategoryIds.length > 0 && item.category_id == null
        ? ruled.ruled.ruleCategoryIds
        : categoryId === null
          ? []
          : [categoryId];
  const transactionId = await createTransactionEntry(trx, userId, { ...ruled, description: item.description ?? ruled.description, categoryIds, splits }, now);
  await ctx.alert(trx, userId, transactionId);
  let feeTransactionId: number | null = null;
  if (hasFee) {
    const charges = await findOrCreateParty(trx, userId, 'Charges', now, 'business');
    // intent stays `regular`: clients decode the spec's intents strictly, and `fee` is not one
    feeTransactionId = await createTransactionEntry(
      trx,
      userId,
      { type: 'expense', amount: fee!, walletId, datetime, description: 'Transaction fee', partyId: charges },
      now,
    );
    await ctx.alert(trx, userId, feeTransactionId);
  }
  await markSuggestionImported(trx, suggestion.id, { transactionId, feeTransactionId }, now);
  return { index: item.index, status: 'created', transaction_id: transactionId, fee_transaction_id: feeTransactionId, wallet_id: walletId, party_id: ruled.partyId ?? null, category_id: categoryIds[0] ?? null, error: null };
}

/** The given wallet (checked by the request), the matched one if still live, or one found or made by name and currency. */
async function walletFor(trx: Transaction<Database>, ctx: ConfirmContext, item: ConfirmItem, suggestion: ImportSuggestionRow): Promise<number> {
  if (item.wallet_id != null) return item.wallet_id;
  const matched = await liveOrNull(trx, 'wallets', ctx.userId, suggestion.wallet_id);
  if (matched !== null) return matched;
  if (ctx.request.auto_create_wallets && suggestion.wallet) {
    return (await findOrCreateStatementWallet(trx, ctx, suggestion.wallet, suggestion.currency)).id;
  }
  throw new ItemFailure(suggestion.wallet_id !== null ? 'The matched wallet was deleted: select a wallet.' : 'A wallet must be selected or auto-created.');
}

/**
 * The wallet a statement's rows name, found by name (and currency), else created: in the rows'
 * currency, or the user's default currency when the file states none (a French export has no
 * currency column); a statement's account opens at its stated balance.
 */
export async function findOrCreateStatementWallet(trx: Transaction<Database>, ctx: ConfirmContext, name: string, currency: string | null) {
  const statement = ctx.balances.find((b) => b.account === name && b.opening_balance !== null);
  const opening = statement && { type: statement.kind === 'credit_card' ? ('credit_card' as const) : ('bank' as const), balance: statement.opening_balance! };
  return findOrCreateNamedWallet(trx, ctx.userId, name, currency, currency ?? (await targetCurrency(trx, ctx.userId)), ctx.now, opening);
}

async function liveOrNull(trx: Transaction<Database>, table: SyncedTable, userId: number, id: number | null): Promise<number | null> {
  if (id === null) return null;
  return (await findLive(trx, table, userId, id)) ? id : null;
}

/** What an earlier confirm created for this suggestion. */
async function alreadyImported(trx: Transaction<Database>, suggestion: ImportSuggestionRow): Promise<ItemOutcome> {
  const transaction =
    suggestion.transaction_id === null
      ? undefined
      : await trx.selectFrom('transactions').select(['wallet_id', 'party_id']).where('id', '=', suggestion.transaction_id).executeTakeFirst();
  const category =
    suggestion.transaction_id === null
      ? undefined
      : await trx.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', suggestion.transaction_id).orderBy('category_id').executeTakeFirst();
  return {
    index: suggestion.suggestion_index,
    status: 'already_imported',
    transaction_id: suggestion.transaction_id,
    fee_transaction_id: suggestion.fee_transaction_id,
    wallet_id: transaction?.wallet_id ?? null,
    party_id: transaction?.party_id ?? null,
    category_id: category?.category_id ?? null,
    error: null,
  };
}

/**
 * A confirm (of items, or a whole-session run's last batch) that created transactions ends, in
 * its final database transaction: the session `confirmed`, each statement account's wallet
 * compared with the statement's closing balance (kept on the session: a difference is
 * reported, not ignored), a CSV session's mapping remembered for the user's next file with the
 * same header, and import.confirmed recorded with them.
 */
export async function sessionConfirmed(trx: Transaction<Database>, session: ImportSessionRow, now: Date): Promise<void> {
  await markSessionConfirmed(trx, session.id, now);
  const balances = statementBalancesOf(session);
  if (balances.length > 0) {
    const reconciled = await Promise.all(balances.map((balance) => reconcile(trx, session.id, balance)));
    await mergeSessionMetadata(trx, session.id, { statement_balances: reconciled as unknown as JsonObject[] }, now);
  }
  const reading = csvReadingOf(session);
  if (reading?.header_signature) {
    await rememberMapping(trx, session.user_id, reading.header_signature, { mapping: reading.mapping, date_format: reading.date_format, decimal_separator: reading.decimal_separator }, now);
  }
  await recordWebhookEvent(trx, session.user_id, 'import.confirmed', session.id, now);
}

async function reconcile(db: Kysely<Database>, sessionId: number, balance: StatementBalance): Promise<StatementBalance> {
  const wallet = await db
    .selectFrom('import_suggestions')
    .innerJoin('transactions', 'transactions.id', 'import_suggestions.transaction_id')
    .innerJoin('wallets', 'wallets.id', 'transactions.wallet_id')
    .select(['wallets.id', 'wallets.balance'])
    .where('import_suggestions.import_session_id', '=', sessionId)
    .where('import_suggestions.wallet', balance.account === null ? 'is' : '=', balance.account)
    .where('wallets.deleted_at', 'is', null)
    .orderBy('import_suggestions.suggestion_index', 'desc')
    .executeTakeFirst();
  if (!wallet) return { ...balance, wallet_id: null, wallet_balance: null, difference: null };
  const difference = balance.closing_balance === null ? null : new Decimal(wallet.balance).minus(balance.closing_balance).toFixed();
  return { ...balance, wallet_id: wallet.id, wallet_balance: new Decimal(wallet.balance).toFixed(), difference };
}
