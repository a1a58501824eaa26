// The one write path of incomes and expenses, for every caller that has a database
// transaction open: the HTTP handlers, and jobs (materialising recurring occurrences). Each
// function writes the row, its category links, its recurring rule and its balance effect
// (through moveBalances) together, so a failure leaves nothing half-written.
//
// Each also records its webhook event (transaction.created, .updated, .deleted) in the same
// database transaction (db/webhook-outbox.ts).
//
// These functions do not check that referenced records are the caller's (the handlers call
// `checkEntryReferences` first; a job copying a transaction reuses references that were
// checked when it was made) nor refuse transfer legs (transfers write their legs through here).
import type { Kysely, Transaction } from 'kysely';
import type { Database, JsonObject, TransactionIntent } from '../../db/schema.js';
import { missingLiveIds, softDelete } from '../../db/sync.js';
import { recordWebhookEvent } from '../../db/webhook-outbox.js';
import type { RecurringRuleRow, TransactionRow } from '../../db/transactions.js';
import { replaceSplits } from '../../db/transaction-splits.js';
import type { SplitLine } from '../../domain/splits.js';
import type { EntryType } from '../../domain/ledger.js';
import { Decimal } from '../../domain/money.js';
import { nextOccurrence, type RecurrencePeriod } from '../../domain/recurrence.js';
import { invalidField } from '../../server/errors.js';
import { moveBalances } from './ledger.js';
import { requireOwned } from './records.js';
import { checkSplitReferences } from './transaction-splits.js';

export interface TransactionEntry {
  type: EntryType;
  /** Exact decimal string, positive, at most 4 decimals (moneyFromInput). */
  amount: string;
  walletId: number;
  /** Stored at second precision. */
  datetime: Date;
  intent?: TransactionIntent;
  description?: string | null;
  partyId?: number | null;
  groupId?: number | null;
  categoryIds?: number[];
  /** A recurring rule to create with the transaction. */
  recurrence?: RecurrenceInput;
  /** A materialised occurrence of a recurring transaction: its template and occurrence time. */
  occurrenceOf?: { parentId: number; at: Date };
  /** Booked even below zero: an entry the bank already booked (an imported statement row). */
  bookedElsewhere?: boolean;
  /** What the server attaches (the rules that filed it: transaction-rules.ts). */
  metadata?: JsonObject | null;
  /** Lines adding up to `amount` (checked by the caller: transaction-splits.ts); their categories are `categoryIds`. */
  splits?: SplitLine[] | null;
}

export interface RecurrenceInput {
  period: RecurrencePeriod;
  /** Default 1. */
  interval?: number;
  endsAt?: Date | null;
}

/** Changes to a transaction; undefined leaves a field as it is. */
export interface TransactionChanges {
  /** expense <-> income: a correction, so the balance effect flips with it. */
  type?: EntryType;
  amount?: string;
  walletId?: number;
  datetime?: Date;
  intent?: TransactionIntent;
  description?: string | null;
  partyId?: number | null;
  groupId?: number | null;
  /** Replaces the category links. */
  categoryIds?: number[];
  /** null removes the rule; fields given create or change it (a new rule needs `period`). */
  recurrence?: Partial<RecurrenceInput> | null;
  /** Replaces the lines (checked by the caller: transaction-splits.ts); null or [] removes them. */
  splits?: SplitLine[] | null;
}

/** Client id columns of the record (from clientIdColumns) and the client's created_at. */
export interface EntrySyncColumns {
  client_generated_id?: string;
  device_id?: number;
  created_at?: string | Date;
}

/**
 * Creates a transaction with its links, rule and balance effect; returns its id. Overdraft is
 * 422 on `amount` (nothing written once the caller's transaction rolls back). A second
 * materialisation of one occurrence (`occurrenceOf`) fails on the unique key
 * transactions_recurring_occurrence_key.
 */
export async function createTransactionEntry(
  trx: Transaction<Database>,
  userId: number,
  entry: TransactionEntry,
  now: Date,
  sync: EntrySyncColumns = {},
): Promise<number> {
  // The wallet is locked (and its balance moved) before the row is inserted: the insert's
  // foreign-key check share-locks the wallet, and taking FOR UPDATE after that share lock
  // deadlocks two concurrent creates in one wallet.
  // A scheduled occurrence records what happened, even into an overdraft.
  const apply = [{ walletId: entry.walletId, type: entry.type, amount: entry.amount }];
  await moveBalances(trx, userId, { apply, allowOverdraft: entry.occurrenceOf !== undefined || entry.bookedElsewhere === true }, now);
  const { id } = await trx
    .insertInto('transactions')
    .values({
      user_id: userId,
      ...sync,
      type: entry.type,
      amount: entry.amount,
      wallet_id: entry.walletId,
      datetime: toSecond(entry.datetime),
      intent: entry.intent ?? 'regular',
      description: entry.description ?? null,
      party_id: entry.partyId ?? null,
      group_id: entry.groupId ?? null,
      recurring_parent_id: entry.occurrenceOf?.parentId ?? null,
      recurring_occurrence_at: entry.occurrenceOf?.at ?? null,
      metadata: entry.metadata ? JSON.stringify(entry.metadata) : null,
      updated_at: now,
      last_synced_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await linkCategories(trx, userId, id, entry.categoryIds ?? []);
  if (entry.splits?.length) await replaceSplits(trx, userId, id, entry.splits);
  if (entry.recurrence) await saveRecurringRule(trx, userId, id, toSecond(entry.datetime), entry.recurrence, undefined, now);
  await recordWebhookEvent(trx, userId, 'transaction.created', id, now);
  return id;
}

/**
 * Applies `changes` to a live transaction: the old balance effect is reverted and the new one
 * applied when the amount or wallet changes; a recurring rule follows a new datetime.
 * `current` must be the row as locked in this database transaction (lockLiveTransaction),
 * so the effect reverted is the one actually applied. A changed type reverts the old effect and
 * applies the new one like any other change.
 */
export async function updateTransactionEntry(
  trx: Transaction<Database>,
  userId: number,
  current: TransactionRow,
  changes: TransactionChanges,
  now: Date,
  sync: Omit<EntrySyncColumns, 'created_at'> = {},
): Promise<void> {
  const amount = changes.amount ?? current.amount;
  const walletId = changes.walletId ?? current.wallet_id;
  const type = changes.type ?? current.type;
  if (!new Decimal(amount).equals(current.amount) || walletId !== current.wallet_id || type !== current.type) {
    await moveBalances(
      trx,
      userId,
      {
        revert: [{ walletId: current.wallet_id, type: current.type, amount: current.amount }],
        apply: [{ walletId, type, amount }],
      },
      now,
    );
  }
  const datetime = changes.datetime ? toSecond(changes.datetime) : current.datetime;
  await trx
    .updateTable('transactions')
    .set({
      ...sync,
      type,
      amount,
      wallet_id: walletId,
      datetime,
      intent: changes.intent,
      description: changes.description,
      party_id: changes.partyId,
      group_id: changes.groupId,
      updated_at: now,
      last_synced_at: now,
    })
    .where('id', '=', current.id)
    .where('user_id', '=', userId)
    .execute();
  await recordWebhookEvent(trx, userId, 'transaction.updated', current.id, now);
  if (changes.categoryIds !== undefined) {
    await trx.deleteFrom('transaction_categories').where('transaction_id', '=', current.id).where('user_id', '=', userId).execute();
    await linkCategories(trx, userId, current.id, changes.categoryIds);
  }
  if (changes.splits !== undefined) await replaceSplits(trx, userId, current.id, changes.splits ?? []);
  if (changes.recurrence === null) {
    await deleteRecurringRule(trx, userId, current.id);
    return;
  }
  const rule = await recurringRuleOf(trx, userId, current.id);
  const moved = datetime.getTime() !== current.datetime.getTime();
  if (changes.recurrence) await saveRecurringRule(trx, userId, current.id, datetime, changes.recurrence, rule, now, moved);
  else if (rule && moved) await saveRecurringRule(trx, userId, current.id, datetime, {}, rule, now, true);
}

/** Soft-deletes a live transaction (locked, as for an update) after undoing what it did. */
export async function deleteTransactionEntry(trx: Transaction<Database>, userId: number, current: TransactionRow, now: Date): Promise<void> {
  await revertTransactionEntry(trx, userId, current, now);
  await softDelete(trx, 'transactions', userId, current.id, now);
}

/**
 * What deleting a transaction undoes, without the soft delete itself (the shared delete flow
 * does that): its balance effect is reverted, its recurring rule removed and its refund
 * record (if any) becomes a tombstone. Files and category links stay with the tombstone.
 */
export async function revertTransactionEntry(trx: Transaction<Database>, userId: number, current: TransactionRow, now: Date): Promise<void> {
  await moveBalances(trx, userId, { revert: [{ walletId: current.wallet_id, type: current.type, amount: current.amount }] }, now);
  await deleteRecurringRule(trx, userId, current.id);
  await recordWebhookEvent(trx, userId, 'transaction.deleted', current.id, now);
  const refund = await trx
    .selectFrom('refunds')
    .select('id')
    .where('user_id', '=', userId)
    .where('refund_transaction_id', '=', current.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (refund) await softDelete(trx, 'refunds', userId, refund.id, now);
}

/** Marks a transaction changed (attachments added or removed) so sync feeds carry it again, and webhooks announce it. */
export async function touchTransaction(trx: Transaction<Database>, userId: number, transactionId: number, now: Date): Promise<void> {
  await trx.updateTable('transactions').set({ updated_at: now, last_synced_at: now }).where('id', '=', transactionId).where('user_id', '=', userId).execute();
  await recordWebhookEvent(trx, userId, 'transaction.updated', transactionId, now);
}

/**
 * References of a create or update must name the caller's live records: 422 on the field.
 * For an update (`current`), references it already has are not checked again: clients send
 * the whole record back, and a link to a record deleted since stays as it is.
 */
export async function checkEntryReferences(
  db: Kysely<Database>,
  userId: number,
  refs: { walletId?: number; partyId?: number | null; groupId?: number | null; categoryIds?: number[]; splits?: SplitLine[] | null },
  current?: TransactionRow,
): Promise<void> {
  // the lines first: their categories are also `categoryIds`, and a bad one is named by its line
  await checkSplitReferences(db, userId, refs.splits, current);
  const changed = <T>(value: T | undefined, now: T | undefined) => value !== undefined && value !== null && value !== now;
  if (changed(refs.walletId, current?.wallet_id)) await requireOwned(db, 'wallets', userId, refs.walletId!, 'wallet_id', 'wallet');
  if (changed(refs.partyId, current?.party_id)) await requireOwned(db, 'parties', userId, refs.partyId!, 'party_id', 'party');
  if (changed(refs.groupId, current?.group_id)) await requireOwned(db, 'groups', userId, refs.groupId!, 'group_id', 'group');
  let categoryIds = [...new Set(refs.categoryIds ?? [])];
  if (current && categoryIds.length > 0) {
    const linked = await db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', current.id).execute();
    categoryIds = categoryIds.filter((id) => !linked.some((link) => link.category_id === id));
  }
  if ((await missingLiveIds(db, 'categories', userId, categoryIds)).length > 0) {
    throw invalidField('categories', 'The selected categories are invalid.');
  }
}

/** The transaction's recurring rule, if it has one. */
export function recurringRuleOf(db: Kysely<Database>, userId: number, transactionId: number): Promise<RecurringRuleRow | undefined> {
  return db.selectFrom('recurring_rules').selectAll().where('user_id', '=', userId).where('transaction_id', '=', transactionId).executeTakeFirst();
}

async function linkCategories(trx: Transaction<Database>, userId: number, transactionId: number, categoryIds: number[]): Promise<void> {
  const unique = [...new Set(categoryIds)];
  if (unique.length === 0) return;
  await trx
    .insertInto('transaction_categories')
    .values(unique.map((categoryId) => ({ transaction_id: transactionId, category_id: categoryId, user_id: userId })))
    .execute();
}

/**
 * Creates the rule, or changes the given fields of `existing`. `next_scheduled_at` is set to
 * the first occurrence after now when the rule is new or its schedule (anchor, period or
 * interval) changes; past occurrences are not back-filled.
 */
async function saveRecurringRule(
  trx: Transaction<Database>,
  userId: number,
  transactionId: number,
  anchor: Date,
  input: Partial<RecurrenceInput>,
  existing: RecurringRuleRow | undefined,
  now: Date,
  anchorMoved = false,
): Promise<void> {
  const period = input.period ?? existing?.recurrence_period;
  if (!period) throw invalidField('recurrence_period', 'The recurrence period field is required when is recurring is true.');
  const interval = input.interval ?? existing?.recurrence_interval ?? 1;
  const endsAt = input.endsAt !== undefined ? input.endsAt : (existing?.recurrence_ends_at ?? null);
  const rescheduled = !existing || anchorMoved || period !== existing.recurrence_period || interval !== existing.recurrence_interval;
  const next = rescheduled ? nextOccurrence({ anchor, period, interval }, now) : existing.next_scheduled_at;
  const values = { recurrence_period: period, recurrence_interval: interval, recurrence_ends_at: endsAt, next_scheduled_at: next, updated_at: now };
  if (existing) {
    await trx.updateTable('recurring_rules').set(values).where('id', '=', existing.id).execute();
  } else {
    await trx.insertInto('recurring_rules').values({ user_id: userId, transaction_id: transactionId, ...values, created_at: now }).execute();
  }
}

async function deleteRecurringRule(trx: Transaction<Database>, userId: number, transactionId: number): Promise<void> {
  await trx.deleteFrom('recurring_rules').where('user_id', '=', userId).where('transaction_id', '=', transactionId).execute();
}

/** Datetimes of transactions (transfer legs included) are kept at second precision. */
export function toSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
