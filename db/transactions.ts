// Transaction queries: the user's rows, the list filters and their totals (summed in SQL over
// the whole filtered set). What a page of transactions shows nested is db/transaction-details.ts.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { EntryType } from '../domain/ledger.js';
import { Decimal } from '../domain/money.js';
import type { Database, FilesTable, RecurringRulesTable, TransactionIntent } from './schema.js';
import { settingOf } from './settings.js';
import { selectSynced, type SyncedRow } from './sync.js';

export type TransactionRow = SyncedRow<'transactions'>;
export type FileRow = Selectable<FilesTable>;
export type RecurringRuleRow = Selectable<RecurringRulesTable>;

/** The user's transactions, deleted ones included; callers add filters. */
export function selectTransactions(db: Kysely<Database>, userId: number): SelectQueryBuilder<any, any, TransactionRow> {
  return selectSynced(db, 'transactions', userId);
}

/**
 * Locks the user's live transaction (FOR UPDATE) and returns it as it is now, or undefined.
 * Writers of one transaction queue here, so none reverts a balance effect from a stale row.
 */
export async function lockLiveTransaction(trx: Transaction<Database>, userId: number, id: number): Promise<TransactionRow | undefined> {
  const locked = await trx
    .selectFrom('transactions')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  return locked ? selectTransactions(trx, userId).where('transactions.id', '=', id).executeTakeFirst() : undefined;
}

export interface TransactionFilters {
  type?: EntryType;
  /** Inclusive lower bound of `datetime`. */
  from?: Date;
  /** Exclusive upper bound of `datetime`. */
  before?: Date;
  walletIds?: number[];
  categoryIds?: number[];
  partyIds?: number[];
  intents?: TransactionIntent[];
  excludeTransfers?: boolean;
  search?: string;
}

/** Narrows a query over `transactions` to the rows matching the filters. */
export function whereMatches<Q extends SelectQueryBuilder<any, any, any>>(query: Q, filters: TransactionFilters): Q {
  let q: SelectQueryBuilder<any, any, any> = query;
  if (filters.type) q = q.where('transactions.type', '=', filters.type);
  if (filters.from) q = q.where('transactions.datetime', '>=', filters.from);
  if (filters.before) q = q.where('transactions.datetime', '<', filters.before);
  if (filters.walletIds?.length) q = q.where('transactions.wallet_id', 'in', filters.walletIds);
  if (filters.partyIds?.length) q = q.where('transactions.party_id', 'in', filters.partyIds);
  if (filters.intents?.length) q = q.where('transactions.intent', 'in', filters.intents);
  if (filters.excludeTransfers) q = q.where('transactions.transfer_id', 'is', null);
  const categoryIds = filters.categoryIds;
  if (categoryIds?.length) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('transaction_categories as filter_link')
          .select('filter_link.transaction_id')
          .whereRef('filter_link.transaction_id', '=', 'transactions.id')
          .where('filter_link.category_id', 'in', categoryIds),
      ),
    );
  }
  const search = filters.search;
  if (search) {
    const amount = searchedAmount(search);
    q = q.where((eb) =>
      eb.or([
        eb('transactions.description', 'ilike', `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`),
        ...(amount ? [eb('transactions.amount', '=', amount)] : []),
      ]),
    );
  }
  return q as Q;
}

/** The search text as an amount: its digits and dots, when they make a number. */
function searchedAmount(search: string): string | undefined {
  const digits = search.replace(/[^0-9.]/g, '');
  return /^(\d+\.?\d*|\.\d+)$/.test(digits) && digits.length <= 30 ? digits : undefined;
}

export interface TransactionTotals {
  income: string;
  expenses: string;
  net: string;
  /** How many live rows match. */
  count: number;
}

/** Whether transaction_list_totals (022) answers the filters: no date window, no search, no party (not one of its keys). */
function answeredBySummary(filters: TransactionFilters): boolean {
  return !filters.from && !filters.before && !filters.search && !filters.partyIds?.length;
}

/**
 * Count and sums of the live rows matching the filters (exact decimal strings). Filters on
 * wallets, type, intent, transfer legs and categories are answered from the counts and sums
 * kept per wallet, category, type, intent and transfer leg (022), so the list of a million
 * transactions costs one read of a few hundred summary rows; a date window, a search or parties
 * sum the matching rows in one pass.
 */
export async function transactionTotals(db: Kysely<Database>, userId: number, filters: TransactionFilters): Promise<TransactionTotals> {
  if (answeredBySummary(filters)) return summaryTotals(db, userId, filters);
  const zero = sql<string>`0::numeric`;
  const query = db
    .selectFrom('transactions')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>('transactions.amount').filterWhere('transactions.type', '=', 'income'), zero).as('income'),
      eb.fn.coalesce(eb.fn.sum<string>('transactions.amount').filterWhere('transactions.type', '=', 'expense'), zero).as('expenses'),
      eb.fn.countAll<number>().as('count'),
    ])
    .where('transactions.user_id', '=', userId)
    .where('transactions.deleted_at', 'is', null);
  const row = await whereMatches(query, filters).executeTakeFirstOrThrow();
  return withNet(String(row.income), String(row.expenses), Number(row.count));
}

async function summaryTotals(db: Kysely<Database>, userId: number, filters: TransactionFilters): Promise<TransactionTotals> {
  return totalsOfSummary(db, userId, filters, await summaryRow(db, userId, filters));
}

/** The summary's sums over the filters' keys (several categories count some rows twice). */
function summaryRow(db: Kysely<Database>, userId: number, filters: TransactionFilters) {
  const zero = sql<string>`0::numeric`;
  const categoryIds = [...new Set(filters.categoryIds ?? [])];
  return db
    .selectFrom('transaction_list_totals')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>('total').filterWhere('type', '=', 'income'), zero).as('income'),
      eb.fn.coalesce(eb.fn.sum<string>('total').filterWhere('type', '=', 'expense'), zero).as('expenses'),
      eb.fn.coalesce(eb.fn.sum<string>('count'), sql`0`).as('count'),
    ])
    .where('user_id', '=', userId)
    // category 0 holds every transaction; a category's rows hold the transactions linked to it
    .where('category_id', 'in', categoryIds.length ? categoryIds : [0])
    .$if(Boolean(filters.type), (q) => q.where('type', '=', filters.type!))
    .$if(Boolean(filters.walletIds?.length), (q) => q.where('wallet_id', 'in', filters.walletIds!))
    .$if(Boolean(filters.intents?.length), (q) => q.where('intent', 'in', filters.intents!))
    .$if(Boolean(filters.excludeTransfers), (q) => q.where('is_transfer', '=', false))
    .executeTakeFirstOrThrow();
}

async function totalsOfSummary(
  db: Kysely<Database>,
  userId: number,
  filters: TransactionFilters,
  row: { income: string; expenses: string; count: unknown },
): Promise<TransactionTotals> {
  const categoryIds = [...new Set(filters.categoryIds ?? [])];
  let income = new Decimal(String(row.income));
  let expenses = new Decimal(String(row.expenses));
  let count = Number(row.count);
  if (categoryIds.length > 1) {
    // a transaction linked to n of the listed categories was summed n times: take n - 1 back
    const twice = await repeatedInCategories(db, userId, categoryIds, { ...filters, categoryIds: undefined });
    income = income.minus(twice.income);
    expenses = expenses.minus(twice.expenses);
    count -= twice.count;
  }
  return withNet(income.toFixed(), expenses.toFixed(), count);
}

/** Live matching transactions linked to several of the categories, weighted by links - 1. */
async function repeatedInCategories(db: Kysely<Database>, userId: number, categoryIds: number[], filters: TransactionFilters) {
  const zero = sql<string>`0::numeric`;
  const repeated = db
    .selectFrom('transaction_categories')
    .select((eb) => ['transaction_id', sql<number>`${eb.fn.countAll()} - 1`.as('extra')])
    .where('user_id', '=', userId)
    .where('category_id', 'in', categoryIds)
    .groupBy('transaction_id')
    .having((eb) => eb.fn.countAll(), '>', 1);
  const query = db
    .selectFrom(repeated.as('repeated'))
    .innerJoin('transactions', 'transactions.id', 'repeated.transaction_id')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string>(sql`transactions.amount * repeated.extra`).filterWhere('transactions.type', '=', 'income'), zero).as('income'),
      eb.fn.coalesce(eb.fn.sum<string>(sql`transactions.amount * repeated.extra`).filterWhere('transactions.type', '=', 'expense'), zero).as('expenses'),
      eb.fn.coalesce(eb.fn.sum<string>('repeated.extra'), sql`0`).as('count'),
    ])
    .where('transactions.user_id', '=', userId)
    .where('transactions.deleted_at', 'is', null);
  const row = await whereMatches(query, filters).executeTakeFirstOrThrow();
  return { income: String(row.income), expenses: String(row.expenses), count: Number(row.count) };
}

function withNet(income: string, expenses: string, count: number): TransactionTotals {
  return { income, expenses, net: new Decimal(income).minus(expenses).toFixed(), count };
}

/** The user's `timezone` configuration, when set. */
export async function userTimeZone(db: Kysely<Database>, userId: number): Promise<string | undefined> {
  const zone = await settingOf(db, userId, 'timezone');
  return typeof zone === 'string' && zone !== '' ? zone : undefined;
}
