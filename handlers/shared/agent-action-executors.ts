// What executing a proposed action does, per action type: its payload read back as ledger
// input (422 keyed by payload key when it does not hold), the override keys it accepts, and the
// write itself through the ledger's own paths (transaction-writes.ts for incomes and expenses;
// the transfer plan, balance move and legs of handlers/transfers.ts), with the action's
// idempotency key as the new record's client id. Nothing here decides whether to run: that is
// the confirm flow's row lock (handlers/agent-actions.ts).
import type { Kysely, Transaction } from 'kysely';
import type { ExecutedRecord } from '../../db/agent-actions.js';
import type { AlertBudgets } from '../../db/budget-alerts.js';
import type { AgentAction, Database, JsonObject } from '../../db/schema.js';
import { selectTransactions } from '../../db/transactions.js';
import { insertTransferWithLegs, selectTransfers } from '../../db/transfers.js';
import { partyArguments, ToolError, transactionSummary, transferSummary, type PartyArguments } from '../../domain/assistant-tools.js';
import { withIcon } from '../../db/icons.js';
import { selectSynced } from '../../db/sync.js';
import { toParty } from '../views/party.js';
import { rateFromInput, rateProblem } from '../../domain/exchange.js';
import { exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../../domain/money.js';
import { HttpError, invalidField } from '../../server/errors.js';
import type { AppServices } from '../../server/services.js';
import { present } from '../transactions.js';
import { attachWallets, effectsOf, planTransfer } from '../transfers.js';
import { toTransfer } from '../views/transfer.js';
import { moveBalances } from './ledger.js';
import { requireOwned } from './records.js';
import { checkEntryReferences, createTransactionEntry, type TransactionEntry } from './transaction-writes.js';
import { applyRulesToEntry } from './transaction-rules.js';

export interface ExecutionCtx {
  user: { id: number };
  services: AppServices;
  /** Alerts the budgets a written income or expense moved (as the transaction endpoints do). */
  alert: AlertBudgets;
}

/** Override keys kept per action type (spec: ConfirmAgentActionRequest). */
export const OVERRIDABLE: Partial<Record<AgentAction['action_type'], string[]>> = {
  'transaction.create': ['amount', 'type', 'wallet_id', 'party_id', 'description', 'datetime', 'categories'],
  'transfer.create': ['amount', 'from_wallet_id', 'to_wallet_id', 'exchange_rate', 'datetime'],
  'party.create': ['name', 'type', 'description'],
};

function amountOf(payload: JsonObject): string {
  const amount = Number(payload.amount);
  if (!Number.isFinite(amount) || amount <= 0) throw invalidField('amount', 'Amount must be greater than zero.');
  if (hasTooManyDecimals(String(payload.amount))) throw invalidField('amount', 'The amount may have at most 4 decimal places.');
  if (exceedsMoneyLimit(moneyFromInput(amount))) throw invalidField('amount', 'The amount is too large.');
  return moneyFromInput(amount);
}

function datetimeOf(payload: JsonObject, now: Date): Date {
  const datetime = payload.datetime === undefined ? now : new Date(String(payload.datetime));
  if (Number.isNaN(datetime.getTime())) throw invalidField('datetime', 'The datetime must be an ISO 8601 date-time.');
  return datetime;
}

function idOf(payload: JsonObject, key: string, what: string): number {
  if (!Number.isInteger(payload[key])) throw invalidField(key, `The selected ${what} is invalid.`);
  return payload[key] as number;
}

function transactionEntryOf(payload: JsonObject, now: Date): TransactionEntry {
  const amount = amountOf(payload);
  if (payload.type !== 'income' && payload.type !== 'expense') throw invalidField('type', 'Type must be income or expense.');
  const walletId = idOf(payload, 'wallet_id', 'wallet');
  const partyId = payload.party_id === undefined ? null : idOf(payload, 'party_id', 'party');
  const categories = payload.categories ?? [];
  if (!Array.isArray(categories) || !categories.every((id) => Number.isInteger(id))) throw invalidField('categories', 'The selected categories are invalid.');
  return {
    type: payload.type,
    amount,
    walletId,
    partyId,
    description: typeof payload.description === 'string' ? payload.description : null,
    categoryIds: categories as number[],
    datetime: datetimeOf(payload, now),
  };
}

function transferRequestOf(payload: JsonObject, now: Date) {
  const amount = amountOf(payload);
  const from = idOf(payload, 'from_wallet_id', 'source wallet');
  const to = idOf(payload, 'to_wallet_id', 'destination wallet');
  if (from === to) throw invalidField('to_wallet_id', 'The destination wallet must be different from the source wallet.');
  const rate = payload.exchange_rate === undefined ? 1 : Number(payload.exchange_rate);
  if (!Number.isFinite(rate) || rate <= 0) throw invalidField('exchange_rate', 'The exchange rate must be greater than zero.');
  const problem = rateProblem(rate);
  if (problem) throw invalidField('exchange_rate', problem);
  return { from, to, amount, requestedRate: rateFromInput(rate), datetime: datetimeOf(payload, now) };
}

function partyOf(payload: JsonObject): PartyArguments {
  try {
    return partyArguments(payload);
  } catch (error) {
    if (error instanceof ToolError) throw invalidField(/type/.test(error.message) ? 'type' : 'name', error.message);
    throw error;
  }
}

/** Checks a payload (with overrides) before anything runs: 422, and nothing changes, when it does not hold. */
export async function checkPayload(db: Kysely<Database>, userId: number, action: AgentAction, payload: JsonObject, now: Date): Promise<void> {
  if (action.action_type === 'transaction.create') {
    await checkEntryReferences(db, userId, transactionEntryOf(payload, now));
  } else if (action.action_type === 'transfer.create') {
    const request = transferRequestOf(payload, now);
    await requireOwned(db, 'wallets', userId, request.from, 'from_wallet_id', 'source wallet');
    await requireOwned(db, 'wallets', userId, request.to, 'to_wallet_id', 'destination wallet');
  } else if (action.action_type === 'party.create') {
    partyOf(payload);
  }
}

/** Writes the action's record inside `trx`; what it wrote, in the shape its own endpoint returns. */
export async function executeAction(trx: Transaction<Database>, ctx: ExecutionCtx, action: AgentAction, payload: JsonObject, now: Date): Promise<ExecutedRecord> {
  switch (action.action_type) {
    case 'transaction.create':
      return createTransactionFrom(trx, ctx, action, payload, now);
    case 'transfer.create':
      return createTransferFrom(trx, ctx, action, payload, now);
    case 'party.create':
      return createPartyFrom(trx, ctx, action, payload, now);
    default: {
      const message = 'This kind of action cannot be executed by this server.';
      throw new HttpError(422, message, { action_type: [message] });
    }
  }
}

async function createTransactionFrom(trx: Transaction<Database>, ctx: ExecutionCtx, action: AgentAction, payload: JsonObject, now: Date): Promise<ExecutedRecord> {
  const userId = ctx.user.id;
  const entry = transactionEntryOf(payload, now);
  await checkEntryReferences(trx, userId, entry);
  const id = await createTransactionEntry(trx, userId, await applyRulesToEntry(trx, userId, entry, now), now, { client_generated_id: action.idempotency_key });
  await ctx.alert(trx, userId, id);
  const row = await selectTransactions(trx, userId).where('transactions.id', '=', id).executeTakeFirstOrThrow();
  const [view] = await present({ db: trx, user: ctx.user, services: ctx.services }, [row]);
  const wallet = await trx.selectFrom('wallets').select('currency').where('id', '=', entry.walletId).executeTakeFirstOrThrow();
  return {
    resourceType: 'transaction',
    resourceId: id,
    result: view as unknown as JsonObject,
    payload,
    summary: transactionSummary(entry.type, Number(entry.amount), wallet.currency, entry.description ?? undefined),
  };
}

async function createTransferFrom(trx: Transaction<Database>, ctx: ExecutionCtx, action: AgentAction, payload: JsonObject, now: Date): Promise<ExecutedRecord> {
  const userId = ctx.user.id;
  const request = transferRequestOf(payload, now);
  const plan = await planTransfer(trx, userId, request);
  await moveBalances(trx, userId, { apply: effectsOf(plan.values) }, now);
  const columns = { user_id: userId, client_generated_id: action.idempotency_key, updated_at: now, last_synced_at: now };
  const id = await insertTransferWithLegs(trx, columns, plan.values, { description: plan.description, expense: {}, income: {} });
  const row = await selectTransfers(trx, userId).where('transfers.id', '=', id).executeTakeFirstOrThrow();
  const [view] = await attachWallets(trx, userId, [toTransfer(row)]);
  return {
    resourceType: 'transfer',
    resourceId: id,
    result: view as unknown as JsonObject,
    payload,
    summary: transferSummary(Number(request.amount), view.source_wallet?.currency ?? '', view.source_wallet?.name ?? `#${request.from}`, view.destination_wallet?.name ?? `#${request.to}`),
  };
}

/** A party as POST /parties creates it (no icon). */
async function createPartyFrom(trx: Transaction<Database>, ctx: ExecutionCtx, action: AgentAction, payload: JsonObject, now: Date): Promise<ExecutedRecord> {
  const userId = ctx.user.id;
  const party = partyOf(payload);
  const { id } = await trx
    .insertInto('parties')
    .values({
      user_id: userId,
      client_generated_id: action.idempotency_key,
      name: party.name,
      type: party.type ?? null,
      description: party.description ?? null,
      icon_id: null,
      created_at: now,
      updated_at: now,
      last_synced_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const row = await withIcon(selectSynced(trx, 'parties', userId), 'parties').where('parties.id', '=', id).executeTakeFirstOrThrow();
  return { resourceType: 'party', resourceId: id, result: toParty(row) as unknown as JsonObject, payload, summary: `Create a party "${party.name}".` };
}
