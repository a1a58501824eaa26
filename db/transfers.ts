// Transfers in the database: a transfers row and its two legs (rows of `transactions` with
// transfer_id set: the expense in the source wallet, the income in the destination), always
// written together inside the caller's database transaction. Balances are not touched here:
// handlers move them with moveBalances in that same transaction.
import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { EntryType } from '../domain/ledger.js';
import type { Database } from './schema.js';
import { recordWebhookEvent } from './webhook-outbox.js';
import { selectSynced, softDelete, type ChangedRecordColumns, type clientIdColumns, type NewRecordColumns, type SyncedRow } from './sync.js';

/** The legs' ids and client ids, selected with each transfer for its view. */
export interface LegColumns {
  expense_leg_id: number;
  expense_leg_client_generated_id: string | null;
  expense_leg_device_token: string | null;
  income_leg_id: number;
  income_leg_client_generated_id: string | null;
  income_leg_device_token: string | null;
}

export type TransferRow = SyncedRow<'transfers'> & LegColumns;

/** What a transfer says: the columns its row and its legs are written from. */
export interface TransferValues {
  from_wallet_id: number;
  to_wallet_id: number;
  amount: string;
  received_amount: string;
  exchange_rate: string;
  datetime: Date | string;
}

/** A live leg as the balances see it. */
export interface Leg {
  id: number;
  wallet_id: number;
  type: EntryType;
  amount: string;
}

/** A leg's client id and device (none when it has no client id). */
export type LegClientIdColumns = Awaited<ReturnType<typeof clientIdColumns>>;

/** The user's transfers (deleted ones included) with their legs' ids and client ids. */
export function selectTransfers(db: Kysely<Database>, userId: number): SelectQueryBuilder<any, any, TransferRow> {
  return joinLeg(joinLeg(selectSynced(db, 'transfers', userId), 'expense'), 'income') as SelectQueryBuilder<any, any, TransferRow>;
}

function joinLeg(query: SelectQueryBuilder<any, any, any>, type: EntryType): SelectQueryBuilder<any, any, any> {
  const alias = `${type}_leg`;
  return query
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('transactions as leg')
          .leftJoin('devices as leg_device', 'leg_device.id', 'leg.device_id')
          .select(['leg.id', 'leg.client_generated_id', 'leg_device.token'])
          .whereRef('leg.transfer_id', '=', 'transfers.id')
          .where('leg.type', '=', type)
          // the live leg; a deleted transfer shows the legs deleted with it
          .orderBy(sql`leg.deleted_at is null`, 'desc')
          .orderBy('leg.id', 'desc')
          .limit(1)
          .as(alias),
      (join) => join.onTrue(),
    )
    .select([`${alias}.id as ${alias}_id`, `${alias}.client_generated_id as ${alias}_client_generated_id`, `${alias}.token as ${alias}_device_token`]);
}

/**
 * The user's live transfer, locked until the end of the transaction, so that concurrent
 * updates and deletes of one transfer revert its effect once, from its current state.
 */
export async function lockLiveTransfer(trx: Transaction<Database>, userId: number, id: number) {
  return trx
    .selectFrom('transfers')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** The transfer's live legs. */
export async function liveLegs(trx: Transaction<Database>, userId: number, transferId: number): Promise<Leg[]> {
  return trx
    .selectFrom('transactions')
    .select(['id', 'wallet_id', 'type', 'amount'])
    .where('user_id', '=', userId)
    .where('transfer_id', '=', transferId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** True when one of the user's transactions (deleted ones included) has this record uuid. */
export async function transactionClientIdTaken(db: Kysely<Database>, userId: number, recordUuid: string): Promise<boolean> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('user_id', '=', userId)
    .where('client_generated_id', '=', recordUuid)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts a transfer and its two legs; returns the transfer's id. */
export async function insertTransferWithLegs(
  trx: Transaction<Database>,
  columns: NewRecordColumns,
  values: TransferValues,
  legs: { description: string; expense: LegClientIdColumns; income: LegClientIdColumns },
): Promise<number> {
  const transfer = await trx.insertInto('transfers').values({ ...columns, ...values }).returning('id').executeTakeFirstOrThrow();
  const leg = (type: EntryType, walletId: number, amount: string, clientIdColumns: LegClientIdColumns) => ({
    user_id: columns.user_id,
    transfer_id: transfer.id,
    type,
    wallet_id: walletId,
    amount,
    description: legs.description,
    datetime: values.datetime,
    ...clientIdColumns,
    ...(columns.created_at ? { created_at: columns.created_at } : {}),
    updated_at: columns.updated_at,
    last_synced_at: columns.last_synced_at,
  });
  await trx
    .insertInto('transactions')
    .values([
      leg('expense', values.from_wallet_id, values.amount, legs.expense),
      leg('income', values.to_wallet_id, values.received_amount, legs.income),
    ])
    .execute();
  await recordWebhookEvent(trx, columns.user_id, 'transfer.created', transfer.id, columns.updated_at);
  return transfer.id;
}

/**
 * Writes the changed values of a transfer to its row and its live legs. Only the values given
 * are written (Kysely leaves out undefined properties of `set`), so a change of date alone
 * never rewrites the legs' wallets or amounts. Records transfer.updated (the legs are not
 * announced as transactions).
 */
export async function updateTransferWithLegs(
  trx: Transaction<Database>,
  userId: number,
  transferId: number,
  columns: ChangedRecordColumns,
  changes: Partial<TransferValues> & { description?: string },
): Promise<void> {
  const { description, ...transfer } = changes;
  await trx.updateTable('transfers').set({ ...columns, ...transfer }).where('id', '=', transferId).where('user_id', '=', userId).execute();
  const legs: Array<[EntryType, number | undefined, string | undefined]> = [
    ['expense', changes.from_wallet_id, changes.amount],
    ['income', changes.to_wallet_id, changes.received_amount],
  ];
  for (const [type, walletId, amount] of legs) {
    await trx
      .updateTable('transactions')
      .set({
        wallet_id: walletId,
        amount,
        datetime: changes.datetime,
        description,
        updated_at: columns.updated_at,
        last_synced_at: columns.last_synced_at,
      })
      .where('user_id', '=', userId)
      .where('transfer_id', '=', transferId)
      .where('type', '=', type)
      .where('deleted_at', 'is', null)
      .execute();
  }
  await recordWebhookEvent(trx, userId, 'transfer.updated', transferId, columns.updated_at);
}

/**
 * Soft-deletes the legs of a transfer being deleted (tombstones for sync feeds, like the
 * transfer itself, which the shared delete flow soft-deletes) and records transfer.deleted.
 */
export async function deleteTransferLegs(trx: Transaction<Database>, userId: number, transferId: number, legs: Leg[], now: Date): Promise<void> {
  for (const leg of legs) await softDelete(trx, 'transactions', userId, leg.id, now);
  await recordWebhookEvent(trx, userId, 'transfer.deleted', transferId, now);
}
