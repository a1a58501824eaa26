// Transfers: money moved between two of the caller's wallets. A transfer row and its two legs
// are written with the balance change (moveBalances) in one database transaction; replays,
// client ids, feeds and soft deletes are the shared synced-resource flow.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { lockWallets } from '../db/balances.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { clientIdColumns } from '../db/sync.js';
import { ownTotals, selectWallets } from '../db/wallets.js';
import {
  deleteTransferLegs,
  insertTransferWithLegs,
  liveLegs,
  lockLiveTransfer,
  selectTransfers,
  transactionClientIdTaken,
  updateTransferWithLegs,
  type Leg,
  type TransferRow,
  type TransferValues,
} from '../db/transfers.js';
import { rateFromInput, rateProblem, receivedAmount, transferDescription, transferRate } from '../domain/exchange.js';
import { Decimal, exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../domain/money.js';
import type { Result } from '../server/envelope.js';
import { invalidField, notFound, validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { moveBalances, type Effect } from './shared/ledger.js';
import { clientIdFrom } from './shared/records.js';
import { toSecond } from './shared/transaction-writes.js';
import { toTransfer, withWallets, type TransferCore, type TransferView } from './views/transfer.js';
import { toWallet } from './views/wallet.js';

const transfers = syncedResource<TransferRow, TransferCore>({
  table: 'transfers',
  label: 'Transfer',
  select: selectTransfers,
  view: toTransfer,
  order: [['transfers.datetime', 'desc'], ['transfers.id', 'desc']],
});

export const transferHandlers = {
  listTransfers: async (ctx: HandlerContext<'listTransfers'>) => {
    const page = await transfers.list(ctx);
    return { ...page, data: { ...page.data, data: await attachWallets(ctx.db, ctx.user.id, page.data.data) } };
  },

  getTransfer: async (ctx: HandlerContext<'getTransfer'>) => attachWallet(ctx.db, ctx.user.id, await transfers.show(ctx)),

  createTransfer: (ctx: HandlerContext<'createTransfer'>) => createTransfer(ctx),

  // the web client's path: the same operation
  createTransferAlias: (ctx: HandlerContext<'createTransferAlias'>) => createTransfer(ctx),


  updateTransfer: async (ctx: HandlerContext<'updateTransfer'>) => {
    const { body, user } = ctx;
    checkNumbers(body);
    const result = await transfers.update(ctx, async (trx, loaded, columns) => {
      // Re-read under lock: the effect to revert is the transfer's current one.
      const current = await lockLiveTransfer(trx, user.id, loaded.id);
      if (!current) throw notFound('Transfer');
      const movesMoney = [body.amount, body.from_wallet_id, body.to_wallet_id, body.exchange_rate].some((v) => v !== undefined);
      if (!movesMoney) return updateTransferWithLegs(trx, user.id, current.id, columns, { datetime: body.datetime });
      const from = body.from_wallet_id ?? current.from_wallet_id;
      const to = body.to_wallet_id ?? current.to_wallet_id;
      // Every wallet the update touches, old legs' and new, locked together in id order before
      // planTransfer locks the new pair: locking the new pair first and the old wallets later
      // (in moveBalances) took a lower id after a higher one and deadlocked with a transfer
      // between them (found by the fuzzer).
      await lockWallets(trx, user.id, [current.from_wallet_id, current.to_wallet_id, from, to]);
      const plan = await planTransfer(trx, user.id, {
        from,
        to,
        amount: body.amount === undefined ? current.amount : moneyFromInput(body.amount),
        requestedRate: body.exchange_rate === undefined ? undefined : rateFromInput(body.exchange_rate),
        keptRate: from === current.from_wallet_id && to === current.to_wallet_id ? current.exchange_rate : undefined,
        datetime: body.datetime ?? current.datetime,
      });
      const revert = (await liveLegs(trx, user.id, current.id)).map(effectOfLeg);
      await moveBalances(trx, user.id, { revert, apply: effectsOf(plan.values) }, columns.updated_at);
      await updateTransferWithLegs(trx, user.id, current.id, columns, { ...plan.values, description: plan.description });
    });
    return attachWallet(ctx.db, user.id, result);
  },

  deleteTransfer: (ctx: HandlerContext<'deleteTransfer'>) =>
    transfers.remove(ctx, async (trx, loaded) => {
      const current = await lockLiveTransfer(trx, ctx.user.id, loaded.id);
      if (!current) throw notFound('Transfer');
      const legs = await liveLegs(trx, ctx.user.id, current.id);
      const now = ctx.services.now();
      await moveBalances(trx, ctx.user.id, { revert: legs.map(effectOfLeg) }, now);
      await deleteTransferLegs(trx, ctx.user.id, current.id, legs, now);
    }),
} satisfies Partial<Handlers>;

/** POST /v1/transfer and its alias POST /v1/transfers. */
async function createTransfer(ctx: HandlerContext<'createTransfer'> | HandlerContext<'createTransferAlias'>) {
  const { body, user } = ctx;
  checkNumbers(body);
  const result = await transfers.create(ctx, async (trx, columns) => {
    const legClientIds = await legClientIdColumns(trx, user.id, body);
    const plan = await planTransfer(trx, user.id, {
      from: body.from_wallet_id,
      to: body.to_wallet_id,
      amount: moneyFromInput(body.amount),
      requestedRate: body.exchange_rate === undefined ? undefined : rateFromInput(body.exchange_rate),
      // the web client sends the date the user picked as created_at (reference/clients.md)
      datetime: body.datetime ?? body.created_at ?? columns.updated_at,
    });
    await moveBalances(trx, user.id, { apply: effectsOf(plan.values) }, columns.updated_at);
    return insertTransferWithLegs(trx, columns, plan.values, { description: plan.description, ...legClientIds }).catch((error) => {
      // One leg client id in two simultaneous transfers: the later one is refused like a used id.
      if (isUniqueViolation(error, 'transactions_user_client_id_key')) throw legClientIdUsed(body);
      throw error;
    });
  });
  return attachWallet(ctx.db, user.id, result);
}


interface TransferRequest {
  from: number;
  to: number;
  amount: string;
  requestedRate?: string;
  /** The stored rate, when an update keeps both wallets. */
  keptRate?: string;
  datetime: Date | string;
}

/**
 * Checks a transfer against the ledger's rules with both wallets locked (different live
 * wallets of the caller, a rate when currencies differ, something received) and returns what
 * to write. Overdrafts are moveBalances' to refuse.
 */
export async function planTransfer(trx: Transaction<Database>, userId: number, request: TransferRequest) {
  const errors: FieldErrors = {};
  const wallets = await lockWallets(trx, userId, [request.from, request.to]);
  const source = wallets.get(request.from);
  const destination = wallets.get(request.to);
  if (!source) errors.from_wallet_id = ['The selected source wallet is invalid.'];
  if (!destination) errors.to_wallet_id = ['The selected destination wallet is invalid.'];
  else if (request.from === request.to) errors.to_wallet_id = ['The destination wallet must be different from the source wallet.'];
  if (!source || !destination || errors.to_wallet_id) throw validationFailed(errors);

  const rate = transferRate({ sourceCurrency: source.currency, destinationCurrency: destination.currency, requested: request.requestedRate, kept: request.keptRate });
  if (!rate) throw invalidField('exchange_rate', `An exchange rate is required from a ${source.currency} wallet to a ${destination.currency} wallet.`);
  const received = receivedAmount(request.amount, rate);
  if (new Decimal(received).isZero()) throw invalidField('exchange_rate', 'The amount received rounds to zero at this exchange rate.');
  if (exceedsMoneyLimit(received)) throw invalidField('exchange_rate', 'The amount received is too large.');

  const values: TransferValues = {
    from_wallet_id: request.from,
    to_wallet_id: request.to,
    amount: request.amount,
    received_amount: received,
    exchange_rate: rate,
    datetime: toSecond(new Date(request.datetime)),
  };
  return { values, description: transferDescription(source.currency, destination.currency) };
}

/** What the schema cannot say: money has at most 4 decimals, rates 6, and both fit the columns. */
function checkNumbers(body: { amount?: number; exchange_rate?: number }): void {
  const errors: FieldErrors = {};
  if (body.amount !== undefined && hasTooManyDecimals(body.amount)) errors.amount = ['The amount may have at most 4 decimals.'];
  else if (body.amount !== undefined && exceedsMoneyLimit(moneyFromInput(body.amount))) errors.amount = ['The amount is too large.'];
  const rateError = body.exchange_rate === undefined ? undefined : rateProblem(body.exchange_rate);
  if (rateError) errors.exchange_rate = [rateError];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/**
 * The legs' client id columns: the ids given (unused by the caller's transactions, and
 * different), else, when the transfer has a client id, fresh ones on the same device. Their
 * device rows are locked here, before the wallets, in the order the shared create flow uses.
 */
async function legClientIdColumns(
  trx: Transaction<Database>,
  userId: number,
  body: { client_id?: string; expense_transaction_client_id?: string; income_transaction_client_id?: string },
) {
  const transferClientId = clientIdFrom(body.client_id);
  const given = {
    expense_transaction_client_id: clientIdFrom(body.expense_transaction_client_id, 'expense_transaction_client_id'),
    income_transaction_client_id: clientIdFrom(body.income_transaction_client_id, 'income_transaction_client_id'),
  };
  const errors: FieldErrors = {};
  for (const [field, clientId] of Object.entries(given)) {
    if (clientId && (await transactionClientIdTaken(trx, userId, clientId.recordUuid))) errors[field] = ['The client id is already used by another transaction.'];
  }
  const { expense_transaction_client_id: expense, income_transaction_client_id: income } = given;
  if (expense && income && expense.recordUuid === income.recordUuid) {
    errors.income_transaction_client_id = ['The income transaction client id must be different from the expense transaction client id.'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const fresh = () => (transferClientId ? { deviceToken: transferClientId.deviceToken, recordUuid: randomUUID() } : undefined);
  return {
    expense: await clientIdColumns(trx, userId, expense ?? fresh()),
    income: await clientIdColumns(trx, userId, income ?? fresh()),
  };
}

function legClientIdUsed(body: { expense_transaction_client_id?: string; income_transaction_client_id?: string }) {
  const message = ['The client id is already used by another transaction.'];
  const errors: FieldErrors = {};
  if (body.expense_transaction_client_id) errors.expense_transaction_client_id = message;
  if (body.income_transaction_client_id) errors.income_transaction_client_id = message;
  return validationFailed(errors);
}

export function effectsOf(values: TransferValues): Effect[] {
  return [
    { walletId: values.from_wallet_id, type: 'expense', amount: values.amount },
    { walletId: values.to_wallet_id, type: 'income', amount: values.received_amount },
  ];
}

function effectOfLeg(leg: Leg): Effect {
  return { walletId: leg.wallet_id, type: leg.type, amount: leg.amount };
}

/** The transfers with their wallets, loaded for the whole list in one query. */
export async function attachWallets(db: Kysely<Database>, userId: number, list: TransferCore[]): Promise<TransferView[]> {
  const ids = [...new Set(list.flatMap((t) => [t.from_wallet_id, t.to_wallet_id]))];
  if (ids.length === 0) return [];
  const rows = await selectWallets(db, userId).where('wallets.id', 'in', ids).execute();
  const wallets = new Map(rows.map((row) => [row.id, toWallet(row, ownTotals(row))]));
  return list.map((transfer) => withWallets(transfer, wallets));
}

type WithWallets<R> = R extends Result<infer S, TransferCore> ? Result<S, TransferView> : never;

/** The result with its transfer's wallets; its status stays (200 or 201 for a create). */
async function attachWallet<R extends Result<number, TransferCore>>(db: Kysely<Database>, userId: number, result: R): Promise<WithWallets<R>> {
  const [data] = await attachWallets(db, userId, [result.data]);
  return { ...result, data } as unknown as WithWallets<R>;
}
