// Transactions: incomes and expenses in the caller's wallets. Replays, client ids, feeds and
// soft deletes are the shared synced-resource flow; every write goes through
// shared/transaction-writes.ts (row, links, rule and balance in one database transaction).
// Transfer legs are shown here but changed only through their transfer.
import type { Kysely, Transaction } from 'kysely';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import type { Database } from '../db/schema.js';
import { loadTransactionDetails } from '../db/transaction-details.js';
import { transactionPageStarts } from '../db/transaction-positions.js';
import {
  lockLiveTransaction,
  selectTransactions,
  transactionTotals,
  userTimeZone,
  whereMatches,
  type TransactionFilters,
  type TransactionRow,
} from '../db/transactions.js';
import { isTimeZone } from '../domain/configuration-keys.js';
import { Decimal, moneyToJson } from '../domain/money.js';
import { startOfDay, startOfNextDay } from '../domain/time-zone.js';
import { ok } from '../server/envelope.js';
import { conflict, invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { syncedResource } from './shared/crud.js';
import { checkUploads, uploadsFromBase64, withStoredUploads } from './shared/transaction-files.js';
import { changesFromUpdate, entryFromCreate } from './shared/transaction-input.js';
import {
  checkEntryReferences,
  createTransactionEntry,
  revertTransactionEntry,
  touchTransaction,
  updateTransactionEntry,
} from './shared/transaction-writes.js';
import { recordCorrections } from './shared/rule-learning.js';
import { applyRulesToEntry } from './shared/transaction-rules.js';
import { splitChanges } from './shared/transaction-splits.js';
import { toTransactions, type TransactionView } from './views/transaction.js';

// The flow works on rows; `present` turns them into views with their nested records.
const transactions = syncedResource<TransactionRow, TransactionRow>({
  table: 'transactions',
  label: 'Transaction',
  select: selectTransactions,
  view: (row) => row,
  order: [['transactions.datetime', 'desc'], ['transactions.created_at', 'desc'], ['transactions.id', 'desc']],
  bare: (db, userId) => db.selectFrom('transactions').where('transactions.user_id', '=', userId),
});

interface PresentCtx {
  db: Kysely<Database>;
  user: { id: number };
  services: AppServices;
}

/** Rows as views, their nested records loaded for all of them at once (also for other lists of transactions). */
export async function present(ctx: PresentCtx, rows: TransactionRow[]): Promise<TransactionView[]> {
  const details = await loadTransactionDetails(ctx.db, ctx.user.id, rows);
  return toTransactions(rows, details, ctx.services.config.publicUrl);
}

async function presentOne(ctx: PresentCtx, row: TransactionRow): Promise<TransactionView> {
  return (await present(ctx, [row]))[0];
}

/** The live transaction, locked for this write; 404 when it was deleted meanwhile. */
async function lockOr404(trx: Transaction<Database>, userId: number, id: number): Promise<TransactionRow> {
  const row = await lockLiveTransaction(trx, userId, id);
  if (!row) throw notFound('Transaction');
  return row;
}

export const transactionHandlers = {
  listTransactions: async (ctx: HandlerContext<'listTransactions'>) => {
    const filters = await listFilters(ctx);
    // one pass gives the totals and the plain list's count (totals ignore synced_since); it runs
    // beside the page (which reads its sync horizon first)
    const counted = transactionTotals(ctx.db, ctx.user.id, filters);
    // a list that fails before it waits for the totals (a 422 on its parameters) gets its own error
    counted.catch(() => undefined);
    // the nested records load while the page's count and mark are written
    let views: Promise<TransactionView[]> | undefined;
    const [page, totals] = await Promise.all([
      transactions.list(ctx, (q) => whereMatches(q, filters), {
        countLive: async () => (await counted).count,
        alongside: (rows) => (views = present(ctx, rows)),
        pageStart: transactionPageStarts(ctx.db, ctx.user.id, filters, ctx.query.no_client_id),
      }),
      counted,
    ]);
    return ok({
      ...page.data,
      data: await (views ?? present(ctx, page.data.data)),
      totals: { income: moneyToJson(totals.income), expenses: moneyToJson(totals.expenses), net: moneyToJson(totals.net) },
    });
  },

  getTransaction: async (ctx: HandlerContext<'getTransaction'>) => {
    const row = await transactions.liveOr404(ctx.db, ctx.user.id, ctx.params.id);
    if (ctx.query.type !== undefined && row.type !== ctx.query.type) throw notFound('Transaction');
    return ok(await presentOne(ctx, row));
  },

  createTransaction: async (ctx: HandlerContext<'createTransaction'>) => {
    const { body, user, services } = ctx;
    const entry = entryFromCreate(body, services.now());
    const uploads = await checkUploads(ctx.files.files);
    const result = await withBudgetAlerts(services, ctx.log, (alert) =>
      withStoredUploads(services.storage, uploads, (attach) =>
        transactions.create(ctx, async (trx, { user_id, updated_at: now, ...sync }) => {
          await checkEntryReferences(trx, user.id, entry);
          const id = await createTransactionEntry(trx, user_id, await applyRulesToEntry(trx, user.id, entry, now), now, sync);
          await attach(trx, user.id, id, now);
          await alert(trx, user.id, id);
          return id;
        }),
      ),
      { db: ctx.db, userId: user.id },
    );
    return { ...result, data: await presentOne(ctx, result.data) };
  },

  updateTransaction: async (ctx: HandlerContext<'updateTransaction'>) => {
    const { body, query, user, services } = ctx;
    const changes = changesFromUpdate(body, services.now());
    const uploads = await checkUploads(ctx.files.files);
    const result = await withBudgetAlerts(services, ctx.log, (alert) =>
      withStoredUploads(services.storage, uploads, (attach) =>
        transactions.update(ctx, async (trx, stale, { updated_at: now, last_synced_at: _, ...sync }) => {
          const row = await lockOr404(trx, user.id, stale.id);
          // the query's `type` selects the transaction (the reference clients omit it); the body's `type` converts it
          if (query.type !== undefined && query.type !== row.type) throw invalidField('type', `The transaction is an ${row.type}, not an ${query.type}.`);
          const converts = changes.type !== undefined && changes.type !== row.type;
          const moves = (changes.walletId !== undefined && changes.walletId !== row.wallet_id) || (changes.amount !== undefined && !new Decimal(changes.amount).equals(row.amount));
          if (row.transfer_id !== null && converts) throw conflict('This transaction is part of a transfer: its type cannot change.');
          if (row.transfer_id !== null && moves) throw conflict('This transaction is part of a transfer: change the transfer to change its amount or wallet.');
          if (converts) await checkConvertible(trx, user.id, row);
          const split = await splitChanges(trx, user.id, row, changes);
          await checkEntryReferences(trx, user.id, split, row);
          // an imported line's new category or party is remembered, to propose a rule (never to run one)
          await recordCorrections(trx, user.id, row, split, now);
          await updateTransactionEntry(trx, user.id, row, split, now, sync);
          await attach(trx, user.id, row.id, now);
          await alert(trx, user.id, row.id);
        }),
      ),
      { db: ctx.db, userId: user.id },
    );
    return { ...result, data: await presentOne(ctx, result.data) };
  },

  deleteTransaction: (ctx: HandlerContext<'deleteTransaction'>) =>
    withBudgetAlerts(ctx.services, ctx.log, (alert) =>
      transactions.remove(
        ctx,
        async (trx, stale) => {
          const row = await lockOr404(trx, ctx.user.id, stale.id);
          if (row.transfer_id !== null) throw conflict('This transaction is part of a transfer: delete the transfer instead.');
          await revertTransactionEntry(trx, ctx.user.id, row, ctx.services.now());
        },
        // deleting a refund gives its expense's budgets the refunded amount back
        (trx, row) => alert(trx, ctx.user.id, row.id),
      ),
      { db: ctx.db, userId: ctx.user.id },
    ),

  uploadTransactionFiles: async (ctx: HandlerContext<'uploadTransactionFiles'>) => {
    const { db, user, services } = ctx;
    const row = await transactions.liveOr404(db, user.id, ctx.params.id);
    const body = ctx.body as { files?: unknown };
    const sent = ctx.files.files ?? (Array.isArray(body.files) ? uploadsFromBase64(body.files as string[]) : []);
    const uploads = await checkUploads(sent);
    if (uploads.length === 0) throw invalidField('files', 'The files field is required.');
    await withStoredUploads(services.storage, uploads, (attach) =>
      db.transaction().execute(async (trx) => {
        const now = services.now();
        await lockOr404(trx, user.id, row.id);
        await attach(trx, user.id, row.id, now);
        await touchTransaction(trx, user.id, row.id, now);
      }),
    );
    return ok(await presentOne(ctx, await transactions.liveOr404(db, user.id, row.id)), 'Files uploaded successfully');
  },

  deleteTransactionFile: async (ctx: HandlerContext<'deleteTransactionFile'>) => {
    const { db, user, services, params } = ctx;
    const row = await transactions.liveOr404(db, user.id, params.id);
    const file = await db
      .selectFrom('files')
      .select(['id', 'path'])
      .where('id', '=', params.file_id)
      .where('transaction_id', '=', row.id)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    if (!file) throw notFound('File');
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('files').where('id', '=', file.id).execute();
      await touchTransaction(trx, user.id, row.id, services.now());
    });
    // the bytes go once the record is gone, so a failed delete never leaves a dangling record
    await services.storage.delete(file.path);
    return ok(await presentOne(ctx, await transactions.liveOr404(db, user.id, row.id)), 'File deleted successfully');
  },
} satisfies Partial<Handlers>;

/** The list's filters; days are calendar days in the user's time zone (UTC when unset). */
async function listFilters(ctx: HandlerContext<'listTransactions'>): Promise<TransactionFilters> {
  const { query } = ctx;
  let zone = 'UTC';
  if (query.date_from !== undefined || query.date_to !== undefined) {
    const configured = await userTimeZone(ctx.db, ctx.user.id);
    if (configured && isTimeZone(configured)) zone = configured;
  }
  return {
    type: query.type,
    from: query.date_from !== undefined ? startOfDay(query.date_from, zone) : undefined,
    before: query.date_to !== undefined ? startOfNextDay(query.date_to, zone) : undefined,
    walletIds: query.wallet_ids,
    categoryIds: query.category_ids,
    partyIds: query.party_ids,
    intents: query.intent,
    excludeTransfers: query.exclude_transfers,
    search: query.search,
  };
}

/**
 * A refund link needs an income on one side and an expense on the other, so a transaction in
 * one keeps its type until the refund is unmarked (422 on `type`, nothing written).
 */
async function checkConvertible(trx: Transaction<Database>, userId: number, row: TransactionRow): Promise<void> {
  const refunded = !row.is_refund && await trx
    .selectFrom('transactions')
    .select('id')
    .where('user_id', '=', userId)
    .where('refund_of_transaction_id', '=', row.id)
    .where('is_refund', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (row.is_refund || refunded) {
    throw invalidField('type', 'This transaction is linked to a refund: unmark the refund before changing its type.');
  }
}
