// Writing one imported entry (a CSV row, or a corrected failed row) to the ledger: names are
// resolved to the user's wallets, parties and categories (created where the import rules say
// so), then the income, expense or transfer is written through the one money path
// (transaction-writes.ts for incomes and expenses, the transfer plan and moveBalances for
// transfers), inside the caller's database transaction. A row that cannot be imported throws
// RowRejected (or the money path's 422) with the real reason as its message.
import type { Kysely, Transaction } from 'kysely';
import type { AlertBudgets } from '../../db/budget-alerts.js';
import { findOrCreateCategoryByName } from '../../db/category-names.js';
import { defaultWallet, findOrCreateNamedWallet, findWalletByName, type NamedWallet } from '../../db/import-wallets.js';
import { findOrCreateParty } from '../../db/import-record-names.js';
import type { Database } from '../../db/schema.js';
import { userTimeZone } from '../../db/transactions.js';
import { insertTransferWithLegs } from '../../db/transfers.js';
import { isTimeZone } from '../../domain/configuration-keys.js';
import { RATE_DECIMALS } from '../../domain/exchange.js';
import { parseImportAmount, parseImportDate } from '../../domain/import-rows.js';
import { Decimal, exceedsMoneyLimit } from '../../domain/money.js';
import { startOfDay } from '../../domain/time-zone.js';
import type { SplitLine } from '../../domain/splits.js';
import { HttpError } from '../../server/errors.js';
import { effectsOf, planTransfer } from '../transfers.js';
import { moveBalances } from './ledger.js';
import { createTransactionEntry } from './transaction-writes.js';
import { bookRuledTransfer, withTransferRefused } from './rule-transfers.js';
import { applyRulesToEntry, skippedByRule, type UserRules } from './transaction-rules.js';

/** A row that cannot be imported; the message is the reason the user reads. */
export class RowRejected extends Error {}

/** The reason stored for a failure nobody anticipated (the error itself is logged). */
export const UNEXPECTED_FAILURE = 'An error occurred while importing this row.';

/** The reason a row failed: the rule it broke, or undefined for anything else (the caller logs it). */
export function rejectionReason(error: unknown): string | undefined {
  if (error instanceof RowRejected) return error.message;
  if (error instanceof HttpError && error.statusCode === 422) return error.message;
  return undefined;
}

export interface ImportedEntry {
  type: 'income' | 'expense';
  /** Positive exact decimal string, at most 4 decimals. */
  amount: string;
  /** YYYY-MM-DD. */
  date: string;
  currency: string | null;
  wallet: string | null;
  party: string | null;
  category: string | null;
  description: string | null;
  /**
   * A bank export's row (resolveBankWallet): booked even below zero (the bank already booked
   * it); without an account it goes to the default wallet, or to this wallet (the file's) when
   * its currency is not the default wallet's.
   */
  bankRow?: { fileWallet: string };
  /** Resolved already (an import session's confirm): the wallet, party and category by id, names unused. */
  walletId?: number;
  partyId?: number | null;
  categoryId?: number | null;
  /** A statement row of an import session: booked even below zero, like `bankRow`. */
  bookedElsewhere?: boolean;
  /** The statement's own text for the other side (rules test it), when not `party`. */
  counterparty?: string | null;
  /** `categoryId` is the analysis' guess from history, not the user's choice: a rule's category wins over it. */
  categoryGuessed?: boolean;
  /** Split lines adding up to `amount` (checked by the caller); their categories are the transaction's. */
  splits?: SplitLine[];
}

export interface ImportedTransfer {
  /** What leaves the source wallet (positive exact decimal string). */
  amount: string;
  /** What reaches the destination (its currency); the rate is toAmount / amount. */
  toAmount: string;
  date: string;
  fromWallet: string | null;
  fromCurrency: string | null;
  toWallet: string | null;
  toCurrency: string | null;
  /** The currency a missing destination wallet is created in, when not `toCurrency` (a fix names one currency). */
  createToIn?: string | null;
}

/** What every entry of one import shares. */
export interface ImportWriteContext {
  userId: number;
  now: Date;
  /** The user's time zone: a CSV date is the start of that day there. */
  timeZone: string;
  /** Budget alerts for the expenses written (jobs and handlers run withBudgetAlerts). */
  alert?: AlertBudgets;
  /** The user's rules, loaded once for the import's batch (else per row). */
  rules?: UserRules;
}

/** The time zone imported dates are read in: the user's configured one, else UTC. */
export async function importTimeZone(db: Kysely<Database>, userId: number): Promise<string> {
  const zone = await userTimeZone(db, userId);
  return zone && isTimeZone(zone) ? zone : 'UTC';
}

/**
 * The start of an imported day in the user's zone. Years before 1000 are refused: no import
 * has them, and the day arithmetic reads a two-digit year as 19xx (0050-01-01 became 1950).
 */
export function importDayStart(date: string, timeZone: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number(date.slice(0, 4)) < 1000) throw new RowRejected(`The date ${date} is not a valid date.`);
  return startOfDay(date, timeZone);
}

/** The row's date as YYYY-MM-DD, or the reason it cannot be read. */
export function dateOf(raw: string | null): string {
  if (raw === null || raw.trim() === '') throw new RowRejected('The date is required.');
  const date = parseImportDate(raw);
  if (!date) throw new RowRejected(`The date ${raw.trim()} is not a valid date (use YYYY-MM-DD, or a day and month that cannot be mistaken for each other).`);
  return date;
}

/** The row's amount (unsigned) and sign, or the reason it cannot be read. */
export function amountOf(raw: string | null): { amount: string; negative: boolean } {
  if (raw === null || raw.trim() === '') throw new RowRejected('The amount is required.');
  const parsed = parseImportAmount(raw);
  if (!parsed) throw new RowRejected(`The amount ${raw.trim()} is not a number with at most 4 decimals.`);
  return parsed;
}

/** Checks an amount for the money columns; returns it as given. */
export function checkedAmount(amount: string): string {
  if (new Decimal(amount).lte(0)) throw new RowRejected('Amount must be a number greater than zero.');
  if (exceedsMoneyLimit(amount)) throw new RowRejected('The amount is too large.');
  return amount;
}

/** Creates the income or expense; returns its transaction id. */
export async function importEntry(trx: Transaction<Database>, entry: ImportedEntry, ctx: ImportWriteContext): Promise<number> {
  const amount = checkedAmount(entry.amount);
  const wallet = await entryWallet(trx, ctx, entry);
  const partyId = entry.party ? await findOrCreateParty(trx, ctx.userId, entry.party, ctx.now) : null;
  const categoryIds = entry.category ? [await findOrCreateCategoryByName(trx, ctx.userId, entry.category, entry.type, ctx.now)] : [];
  const ruled = await applyRulesToEntry(
    trx,
    ctx.userId,
    { type: entry.type, amount, walletId: wallet.id, datetime: importDayStart(entry.date, ctx.timeZone), description: entry.description, partyId, categoryIds, bookedElsewhere: entry.bankRow !== undefined },
    ctx.now,
    { counterparty: entry.counterparty ?? entry.party, currency: wallet.currency },
    ctx.rules,
  );
  if (ruled.ruled.skippedBy !== null) throw new RowRejected(skippedByRule(ruled.ruled));
  if (ruled.ruled.transferWalletId !== null) {
    const line = { type: entry.type, amount, walletId: wallet.id, otherWalletId: ruled.ruled.transferWalletId, datetime: ruled.datetime, description: ruled.description ?? null, bookedElsewhere: entry.bankRow !== undefined };
    const transfer = await bookRuledTransfer(trx, ctx.userId, line, ctx.now, new Set());
    if (transfer.status !== 'refused') return transfer.transactionId;
    ruled.metadata = withTransferRefused(ruled.ruled, transfer.reason).metadata;
  }
  const id = await createTransactionEntry(trx, ctx.userId, ruled, ctx.now);
  if (entry.type === 'expense') await ctx.alert?.(trx, ctx.userId, id);
  return id;
}

/** Creates the transfer (dated on the row's date); returns it and its expense leg. */
export async function importTransfer(
  trx: Transaction<Database>,
  transfer: ImportedTransfer,
  ctx: ImportWriteContext,
): Promise<{ transferId: number; expenseLegId: number }> {
  const amount = checkedAmount(transfer.amount);
  const toAmount = checkedAmount(transfer.toAmount);
  const source = await resolveWallet(trx, ctx, transfer.fromWallet, transfer.fromCurrency);
  const destination = await resolveWallet(trx, ctx, transfer.toWallet, transfer.toCurrency, transfer.createToIn);
  const rate = new Decimal(toAmount).div(amount).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_EVEN);
  if (source.currency !== destination.currency && rate.isZero()) throw new RowRejected('The amount received is too small for the amount sent.');
  const plan = await planTransfer(trx, ctx.userId, {
    from: source.id,
    to: destination.id,
    amount,
    requestedRate: rate.toFixed(),
    datetime: importDayStart(transfer.date, ctx.timeZone),
  });
  await moveBalances(trx, ctx.userId, { apply: effectsOf(plan.values) }, ctx.now);
  const columns = { user_id: ctx.userId, updated_at: ctx.now, last_synced_at: ctx.now };
  const transferId = await insertTransferWithLegs(trx, columns, plan.values, { description: plan.description, expense: {}, income: {} });
  const leg = await trx
    .selectFrom('transactions')
    .select('id')
    .where('transfer_id', '=', transferId)
    .where('type', '=', 'expense')
    .executeTakeFirstOrThrow();
  return { transferId, expenseLegId: leg.id };
}

/** The wallet of an entry: a bank export's (resolveBankWallet) or the one the row names (resolveWallet). */
export function entryWallet(trx: Transaction<Database>, ctx: ImportWriteContext, entry: ImportedEntry): Promise<NamedWallet> {
  return entry.bankRow ? resolveBankWallet(trx, ctx, entry, entry.bankRow.fileWallet) : resolveWallet(trx, ctx, entry.wallet, entry.currency);
}

/**
 * The wallet of a bank export's row: the statement's account (its IBAN names the wallet,
 * created in the row's currency or else the default wallet's); without an account, the
 * default wallet when the currencies agree, else the file's own wallet in the row's currency
 * (`<file> <currency>`, created when missing). A bank export names no wallet of the user's,
 * so its rows must land somewhere the user can see and move.
 */
async function resolveBankWallet(trx: Transaction<Database>, ctx: ImportWriteContext, entry: ImportedEntry, fileWallet: string): Promise<NamedWallet> {
  const fallback = await defaultWallet(trx, ctx.userId);
  if (entry.wallet) {
    const found = await findWalletByName(trx, ctx.userId, entry.wallet, entry.currency);
    if (found) return found;
    const currency = entry.currency ?? fallback?.currency;
    if (!currency) throw new RowRejected(`There is no wallet named ${entry.wallet}; give its currency to create it.`);
    return findOrCreateNamedWallet(trx, ctx.userId, entry.wallet, entry.currency, currency, ctx.now);
  }
  if (fallback && (entry.currency === null || entry.currency === fallback.currency)) return fallback;
  if (entry.currency === null) throw new RowRejected('The row names no wallet and no default wallet is set.');
  const name = `${fileWallet} ${entry.currency}`;
  return findOrCreateNamedWallet(trx, ctx.userId, name, entry.currency, entry.currency, ctx.now);
}

/**
 * The wallet a row names: by exact name (and currency when given), created when missing and a
 * currency (`createIn`, by default the one matched) says which; without a name, the user's
 * default wallet.
 */
async function resolveWallet(
  trx: Transaction<Database>,
  ctx: ImportWriteContext,
  name: string | null,
  currency: string | null,
  createIn: string | null = currency,
): Promise<NamedWallet> {
  for (const code of [currency, createIn]) {
    if (code !== null && !/^[A-Z]{3}$/.test(code)) throw new RowRejected(`The currency ${code} is not a three-letter currency code.`);
  }
  if (!name) {
    const wallet = await defaultWallet(trx, ctx.userId);
    if (!wallet) throw new RowRejected('The row names no wallet and no default wallet is set.');
    if (currency !== null && wallet.currency !== currency) {
      throw new RowRejected(`The row names no wallet, and the default wallet ${wallet.name} is in ${wallet.currency}, not ${currency}.`);
    }
    return wallet;
  }
  const found = await findWalletByName(trx, ctx.userId, name, currency);
  if (found) return found;
  if (createIn === null) throw new RowRejected(`There is no wallet named ${name}; give its currency to create it.`);
  return findOrCreateNamedWallet(trx, ctx.userId, name, currency, createIn, ctx.now);
}
