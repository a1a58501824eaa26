// One batch of a whole-session confirm (`accept_all`), inside the caller's database
// transaction with the suggestions locked. The suggestions the request says nothing about are
// written together through the legacy import's batch writer (shared/import-batch.ts: the
// overdraft rule walked in order, one INSERT, each wallet's balance moved once, budget alerts
// once per wallet and category); one whose item only splits it (`splits`, checked with the
// request) is written there too, its lines in one INSERT with the batch's; one with another
// override (or `accept_duplicate`) or a fee takes the single-suggestion path of a small
// confirm under a savepoint. The rules are a small confirm's: imported ones are left alone, duplicates skipped unless accepted, statement rows
// booked even below zero, a wallet created for a statement's account opens at its balance.
import { sql, type Transaction } from 'kysely';
import { markBatchFailed, markBatchImported } from '../../db/import-confirm-runs.js';
import type { ImportSuggestionRow } from '../../db/import-sessions.js';
import type { Database } from '../../db/schema.js';
import { findLive, liveIds, type SyncedTable } from '../../db/sync.js';
import { Decimal } from '../../domain/money.js';
import { notImportableReason } from '../../domain/statements/suggestions.js';
import { importEntries } from './import-batch.js';
import { confirmItemInBatch, findOrCreateStatementWallet, STATEMENT_SOURCES, type ConfirmContext, type ConfirmItem, type ItemOutcome } from './import-confirm.js';
import { rejectionReason, RowRejected, type ImportedEntry } from './import-entries.js';
import { itemSplits, onlySplits } from './import-splits.js';

/** Suggestions per database transaction of a whole-session confirm. */
export const CONFIRM_BATCH = 2000;

export interface BatchCounts {
  created: number;
  already_imported: number;
  skipped: number;
  /** Lines of amount 0 left out: no transaction (an item naming one with an amount imports it). */
  not_importable: number;
  failed: number;
}

/** Imports the batch's suggestions; returns what became of them. Unexpected database errors are thrown. */
export async function confirmSuggestionBatch(trx: Transaction<Database>, ctx: ConfirmContext, suggestions: ImportSuggestionRow[], items: Map<number, ConfirmItem>): Promise<BatchCounts> {
  const counts: BatchCounts = { created: 0, already_imported: 0, skipped: 0, not_importable: 0, failed: 0 };
  const tally = (status: ItemOutcome['status']) => {
    if (status === 'created') counts.created++;
    else if (status === 'already_imported') counts.already_imported++;
    else if (status === 'skipped_duplicate') counts.skipped++;
    else counts.failed++;
  };
  const plain: ImportSuggestionRow[] = [];
  for (const suggestion of suggestions) {
    const item = items.get(suggestion.suggestion_index);
    if (suggestion.status === 'confirmed') tally('already_imported');
    else if (suggestion.duplicate !== null && item?.accept_duplicate !== true) tally('skipped_duplicate');
    else if (!item && notImportableReason(suggestion.amount, suggestion.description) !== null) counts.not_importable++;
    else if ((item && !onlySplits(item)) || (suggestion.fee !== null && new Decimal(suggestion.fee).greaterThan(0))) tally((await confirmItemInBatch(trx, ctx, item ?? { index: suggestion.suggestion_index })).status);
    else plain.push(suggestion);
  }
  if (plain.length === 0) return counts;

  await sql`savepoint import_plain`.execute(trx);
  try {
    const written = await writePlain(trx, ctx, plain, items);
    await sql`release savepoint import_plain`.execute(trx);
    counts.created += written.created;
    counts.already_imported += written.paired;
    counts.failed += written.failed;
  } catch (error) {
    // an error nobody anticipated: the suggestions one by one, each alone
    await sql`rollback to savepoint import_plain`.execute(trx);
    ctx.log?.warn({ err: error }, 'writing an import confirm batch together failed; writing its suggestions one by one');
    for (const suggestion of plain) tally((await confirmItemInBatch(trx, ctx, items.get(suggestion.suggestion_index) ?? { index: suggestion.suggestion_index })).status);
  }
  return counts;
}

/** The plain suggestions resolved to entries and written together; each one's outcome recorded on it. */
async function writePlain(trx: Transaction<Database>, ctx: ConfirmContext, plain: ImportSuggestionRow[], items: Map<number, ConfirmItem>): Promise<{ created: number; paired: number; failed: number }> {
  const failed: Array<{ id: number; reason: string }> = [];
  const entries: ImportedEntry[] = [];
  const owners: ImportSuggestionRow[] = [];
  const resolve = new Resolver(trx, ctx);
  await resolve.prefetch(plain);
  for (const suggestion of plain) {
    try {
      const item = items.get(suggestion.suggestion_index);
      entries.push({ ...(await entryOf(suggestion, ctx, resolve)), splits: item ? itemSplits(item) : undefined });
      owners.push(suggestion);
    } catch (error) {
      const reason = rejectionReason(error);
      if (reason === undefined) throw error;
      failed.push({ id: suggestion.id, reason });
    }
  }
  const created: Array<{ id: number; transactionId: number }> = [];
  // a line a rule pairs with a transfer booked before (its counter-line) is marked imported with that transfer's leg
  let paired = 0;
  const reasons = await importEntries(trx, entries, { userId: ctx.userId, now: ctx.now, timeZone: ctx.timeZone, alert: ctx.alert }, (at, transactionId, isPaired) => {
    created.push({ id: owners[at].id, transactionId });
    if (isPaired) paired++;
  });
  reasons.forEach((reason, at) => {
    if (reason !== undefined) failed.push({ id: owners[at].id, reason });
  });
  await markBatchImported(trx, created, ctx.now);
  await markBatchFailed(trx, failed, ctx.now);
  return { created: created.length - paired, paired, failed: failed.length };
}

/** A suggestion as the entry a small confirm would write for it without overrides. */
async function entryOf(suggestion: ImportSuggestionRow, ctx: ConfirmContext, resolve: Resolver): Promise<ImportedEntry> {
  const type = suggestion.type ?? 'expense';
  const amount = suggestion.amount;
  if (amount === null || !new Decimal(amount).greaterThan(0)) throw new RowRejected('Amount must be a number greater than zero.');
  const date = suggestion.date;
  if (date === null || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RowRejected('The suggestion has no date: give one.');
  const { request } = ctx;
  const partyId = await resolve.live('parties', suggestion.party_id);
  const categoryId = await resolve.live('categories', suggestion.category_id);
  return {
    type,
    amount: new Decimal(amount).toFixed(),
    date,
    currency: suggestion.currency,
    wallet: suggestion.wallet,
    walletId: await resolve.wallet(suggestion),
    // a name is created by the batch writer when auto-creation is on, else left empty
    party: request.auto_create_parties ? suggestion.party : null,
    partyId: partyId ?? (request.auto_create_parties && suggestion.party ? undefined : null),
    category: request.auto_create_categories ? suggestion.category : null,
    categoryId: categoryId ?? (request.auto_create_categories && suggestion.category ? undefined : null),
    description: suggestion.description,
    bookedElsewhere: STATEMENT_SOURCES.includes(suggestion.document_type ?? ''),
    counterparty: suggestion.party,
    categoryGuessed: true,
  };
}

/** Matched records checked live, and wallets found or created by name, once per batch. */
class Resolver {
  private readonly lives = new Map<string, Promise<boolean>>();
  private readonly wallets = new Map<string, Promise<number>>();

  constructor(
    private readonly trx: Transaction<Database>,
    private readonly ctx: ConfirmContext,
  ) {}

  /** The batch's matched wallets, parties and categories checked live, one query per table rather than one per record. */
  async prefetch(suggestions: ImportSuggestionRow[]): Promise<void> {
    const columns = { wallets: 'wallet_id', parties: 'party_id', categories: 'category_id' } as const;
    for (const [table, column] of Object.entries(columns) as Array<[SyncedTable, (typeof columns)[keyof typeof columns]]>) {
      const ids = suggestions.flatMap((suggestion) => (suggestion[column] === null ? [] : [Number(suggestion[column])]));
      const live = await liveIds(this.trx, table, this.ctx.userId, ids);
      for (const id of new Set(ids)) this.lives.set(`${table}:${id}`, Promise.resolve(live.has(id)));
    }
  }

  async live(table: SyncedTable, id: number | null): Promise<number | null> {
    if (id === null) return null;
    const key = `${table}:${id}`;
    if (!this.lives.has(key)) this.lives.set(key, findLive(this.trx, table, this.ctx.userId, id).then((row) => row !== undefined));
    return (await this.lives.get(key)!) ? id : null;
  }

  /** The matched wallet if still live, else one found or made by name and currency (the statement's opening balance when it states one). */
  async wallet(suggestion: ImportSuggestionRow): Promise<number> {
    const matched = await this.live('wallets', suggestion.wallet_id);
    if (matched !== null) return matched;
    const { ctx } = this;
    if (!(ctx.request.auto_create_wallets && suggestion.wallet)) {
      throw new RowRejected(suggestion.wallet_id !== null ? 'The matched wallet was deleted: select a wallet.' : 'A wallet must be selected or auto-created.');
    }
    const { wallet: name, currency } = suggestion;
    const key = JSON.stringify([name, currency]);
    if (!this.wallets.has(key)) this.wallets.set(key, findOrCreateStatementWallet(this.trx, ctx, name, currency).then((wallet) => wallet.id));
    return this.wallets.get(key)!;
  }
}
