// Refunds: an income marked as money given back, optionally for one of the caller's expenses.
// The refunds row (the synced record) and the transaction's flags (is_refund,
// refund_of_transaction_id, which budgets read) change together in one database transaction,
// under the income's row lock, and the income's transaction.updated is recorded with them (its
// view shows the flags). Balances never move: the income already counted. Unmarking, or
// re-marking for another expense, raises the formerly refunded expense's budgets' net
// spending, so it checks their alerts.
import type { Transaction } from 'kysely';
import { withBudgetAlerts, type AlertBudgets } from '../db/budget-alerts.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { clientIdColumns, findByClientId, findLive, selectSynced, softDelete } from '../db/sync.js';
import { lockLiveTransaction } from '../db/transactions.js';
import { recordWebhookEvent } from '../db/webhook-outbox.js';
import type { ClientId } from '../domain/client-id.js';
import { done, ok } from '../server/envelope.js';
import { invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { asksForSyncFeed, clientIdFrom } from './shared/records.js';
import { toRefund, type RefundRow } from './views/refund.js';

const refunds = syncedResource<RefundRow, ReturnType<typeof toRefund>>({
  table: 'refunds',
  label: 'Refund',
  select: (db, userId) =>
    selectSynced(db, 'refunds', userId)
      .innerJoin('transactions as refund_income', 'refund_income.id', 'refunds.refund_transaction_id')
      .select('refund_income.amount as amount'),
  view: toRefund,
  order: [['refunds.id', 'asc']],
});

export const refundHandlers = {
  // A plain list shows the refunds of live incomes; a sync feed also carries tombstones.
  listRefunds: (ctx: HandlerContext<'listRefunds'>) =>
    refunds.list(ctx, (q) => (asksForSyncFeed(ctx.query) ? q : q.where('refund_income.deleted_at', 'is', null))),

  markTransactionRefund: async (ctx: HandlerContext<'markTransactionRefund'>) => {
    const { db, user, services, params } = ctx;
    const body = ctx.body ?? {};
    const clientId = clientIdFrom(body.client_id);
    const original: OriginalRef = { id: body.original_transaction_id ?? null, clientId: clientIdFrom(body.original_client_id, 'original_client_id') };
    try {
      const refundId = await withBudgetAlerts(services, ctx.log, (alert) =>
        db.transaction().execute((trx) => markRefund(trx, user.id, params.id, original, clientId, services.now(), alert)),
        { db, userId: user.id },
      );
      return ok(toRefund((await refunds.load(db, user.id, refundId))!), 'Transaction marked as refund');
    } catch (error) {
      // two incomes marked at once with one client id: the second is refused like a known one
      if (isUniqueViolation(error, 'refunds_user_client_id_key')) throw clientIdTaken();
      throw error;
    }
  },

  unmarkTransactionRefund: async (ctx: HandlerContext<'unmarkTransactionRefund'>) => {
    const { db, user, services, params } = ctx;
    await withBudgetAlerts(services, ctx.log, (alert) =>
      db.transaction().execute(async (trx) => {
        const income = await lockLiveTransaction(trx, user.id, params.id);
        if (!income) throw notFound('Transaction');
        const refund = await refundOf(trx, user.id, income.id);
        if (!refund || refund.deleted_at) return; // not marked: nothing to change
        const now = services.now();
        await softDelete(trx, 'refunds', user.id, refund.id, now);
        await trx
          .updateTable('transactions')
          .set({ is_refund: false, refund_of_transaction_id: null, updated_at: now, last_synced_at: now })
          .where('id', '=', income.id)
          .execute();
        await recordWebhookEvent(trx, user.id, 'transaction.updated', income.id, now);
        // the expense it refunded counts in full again
        await alert(trx, user.id, income.id);
      }),
      { db, userId: user.id },
    );
    return done('Refund flag removed');
  },
} satisfies Partial<Handlers>;

/** How the body names the expense refunded: by id, else by its client id, else none. */
type OriginalRef = { id: number | null; clientId: ClientId | undefined };

/** The id of the caller's live expense the body names, null when it names none; 422 on the field used otherwise. */
async function resolveOriginal(trx: Transaction<Database>, userId: number, original: OriginalRef): Promise<number | null> {
  const [field, found] =
    original.id !== null
      ? ['original_transaction_id', await findLive(trx, 'transactions', userId, original.id)]
      : original.clientId
        ? ['original_client_id', await findByClientId(trx, 'transactions', userId, original.clientId)]
        : [null, undefined];
  if (field === null) return null;
  if (!found || found.deleted_at || found.type !== 'expense') {
    throw invalidField(field, 'The selected original transaction is invalid: it must be one of your expenses.');
  }
  return found.id;
}

/** Marks (or re-marks, or restores) the income's single refund record; returns its id. */
async function markRefund(
  trx: Transaction<Database>,
  userId: number,
  transactionId: number,
  original: OriginalRef,
  clientId: ClientId | undefined,
  now: Date,
  alert: AlertBudgets,
): Promise<number> {
  const income = await lockLiveTransaction(trx, userId, transactionId);
  if (!income) throw notFound('Transaction');
  if (income.type !== 'income') throw invalidField('type', 'Only income transactions can be marked as refunds.');
  const existing = await refundOf(trx, userId, income.id);
  if (clientId) {
    const known = await findByClientId(trx, 'refunds', userId, clientId);
    if (known && known.id !== existing?.id) throw clientIdTaken();
    if (known && !known.deleted_at) return known.id; // a replay: nothing changes
  }
  const refundedId = await resolveOriginal(trx, userId, original);
  // an existing client id is never replaced; a record without one adopts the sent one
  const clientColumns = existing?.client_generated_id ? {} : await clientIdColumns(trx, userId, clientId);
  const values = { original_transaction_id: refundedId, deleted_at: null, updated_at: now, last_synced_at: now, ...clientColumns };
  const refundId = existing
    ? (await trx.updateTable('refunds').set(values).where('id', '=', existing.id).returning('id').executeTakeFirstOrThrow()).id
    : (await trx.insertInto('refunds').values({ user_id: userId, refund_transaction_id: income.id, ...values }).returning('id').executeTakeFirstOrThrow()).id;
  await trx
    .updateTable('transactions')
    .set({ is_refund: true, refund_of_transaction_id: refundedId, updated_at: now, last_synced_at: now })
    .where('id', '=', income.id)
    .execute();
  await recordWebhookEvent(trx, userId, 'transaction.updated', income.id, now);
  // the expense it refunded until now counts in full again
  const formerOriginal = existing?.deleted_at ? null : existing?.original_transaction_id;
  if (formerOriginal && formerOriginal !== refundedId) await alert(trx, userId, formerOriginal);
  return refundId;
}

/** The income's refund record, live or a tombstone (there is at most one per transaction). */
function refundOf(trx: Transaction<Database>, userId: number, transactionId: number) {
  return trx
    .selectFrom('refunds')
    .select(['id', 'client_generated_id', 'deleted_at', 'original_transaction_id'])
    .where('user_id', '=', userId)
    .where('refund_transaction_id', '=', transactionId)
    .executeTakeFirst();
}

const clientIdTaken = () => invalidField('client_id', 'The client id is already used by another refund.');
