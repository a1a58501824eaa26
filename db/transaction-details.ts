// What transactions show nested (wallet, party, group, categories, files, recurring rule,
// owning transfer, split lines), read for a whole page in ONE statement: one `jsonb_agg` sub-select per
// kind, one row with one column per kind, kinds the page cannot show left out. It was one
// statement per kind (7 concurrent round trips a page); under 50 connections on 2 cores every
// round trip costs CPU on both sides, and a page's nested records are a few dozen small rows.
//
// JSON has no decimal or time types, so inside it numeric columns travel as their text (exact:
// never a JS number) and timestamptz columns as their text output, turned into Dates here by
// the very parser pg applies to a timestamptz column: the rows come out exactly as a query of
// the table gives them (test/transaction-details.test.ts compares them, and the page's bytes).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { IconColumns } from './icons.js';
import { PREPARE_ONCE } from './kept-plans.js';
import type { Database } from './schema.js';
import type { SyncedRow } from './sync.js';
import type { FileRow, RecurringRuleRow } from './transactions.js';
import { ownTotals, type WalletTotals } from './wallets.js';

// The nested records with their icons (the row types of their views).
type WalletRow = SyncedRow<'wallets'> & IconColumns;
type PartyRow = SyncedRow<'parties'> & IconColumns;
type GroupRow = SyncedRow<'groups'> & IconColumns;
type CategoryRow = SyncedRow<'categories'> & IconColumns;
/** The transaction columns the nested records are found by. */
type PageRow = { id: number; wallet_id: number; party_id: number | null; group_id: number | null; transfer_id: number | null };

export interface TransactionDetails {
  wallets: Map<number, WalletRow>;
  walletTotals: Map<number, WalletTotals>;
  parties: Map<number, PartyRow>;
  groups: Map<number, GroupRow>;
  /** By transaction id, by category id. */
  categories: Map<number, CategoryRow[]>;
  /** By transaction id, oldest first. */
  files: Map<number, FileRow[]>;
  /** By transaction id. */
  rules: Map<number, RecurringRuleRow>;
  /** Client id parts of owning transfers, by transfer id. */
  transfers: Map<number, { client_generated_id: string | null; device_token: string | null }>;
  /** By transaction id, in line order (046); a split line's party is in `parties`, its category among the transaction's `categories`. */
  splits: Map<number, SplitDetailRow[]>;
}

/** A line of a split transaction as the page reads it (amount exact, as text). */
export interface SplitDetailRow {
  amount: string;
  category_id: number | null;
  party_id: number | null;
  description: string | null;
}

const SYNC_STAMPS = ['created_at', 'updated_at', 'deleted_at', 'last_synced_at'];

/**
 * Each nested table's numeric and timestamptz columns, which its JSON carries as text; every
 * other column keeps its JSON form (ids are bigints far below 2^53, as the int8 parser assumes).
 * test/transaction-details.test.ts checks these lists against the database's catalog.
 */
export const NESTED_TABLES = {
  wallets: { numeric: ['opening_balance', 'balance', 'income_total', 'expense_total'], timestamps: SYNC_STAMPS, synced: true, icon: true },
  parties: { numeric: [], timestamps: SYNC_STAMPS, synced: true, icon: true },
  groups: { numeric: [], timestamps: SYNC_STAMPS, synced: true, icon: true },
  categories: { numeric: [], timestamps: SYNC_STAMPS, synced: true, icon: true },
  files: { numeric: [], timestamps: ['created_at', 'updated_at'], synced: false, icon: false },
  recurring_rules: { numeric: [], timestamps: ['recurrence_ends_at', 'next_scheduled_at', 'created_at', 'updated_at'], synced: false, icon: false },
} satisfies Record<string, { numeric: string[]; timestamps: string[]; synced: boolean; icon: boolean }>;
type NestedTable = keyof typeof NESTED_TABLES;

/**
 * The rows of `table` matching `where` as one jsonb array (null when none): each row as
 * `to_jsonb` gives it, its numeric and timestamptz columns as text, with the device and icon
 * columns selectSynced and withIcon add. The table is aliased `nested`.
 */
function nestedRows(table: NestedTable, where: RawBuilder<boolean>, orderBy?: string): RawBuilder<unknown> {
  const { numeric, timestamps, synced, icon } = NESTED_TABLES[table];
  const pairs = [...numeric, ...timestamps].map((column) => `'${column}', nested.${column}::text`);
  const joins: string[] = [];
  if (synced) {
    joins.push('left join devices nested_device on nested_device.id = nested.device_id');
    pairs.push(`'device_token', nested_device.token`, `'device_platform', nested_device.platform`);
  }
  if (icon) {
    joins.push('left join icons nested_icon on nested_icon.id = nested.icon_id');
    pairs.push(`'icon_type', nested_icon.type`, `'icon_content', nested_icon.content`, `'icon_file_id', nested_icon.file_id`);
  }
  const row = `to_jsonb(nested.*) || jsonb_build_object(${pairs.join(', ')})`;
  const order = orderBy ? ` order by ${orderBy}` : '';
  return sql`(select jsonb_agg(${sql.raw(row + order)}) from ${sql.table(table)} nested ${sql.raw(joins.join(' '))} where ${where})`;
}

/** The parsed rows of a `nestedRows` column, their time stamps as Dates again. */
function revived<Row>(table: NestedTable, rows: unknown): Row[] {
  if (rows === null || rows === undefined) return [];
  const { timestamps } = NESTED_TABLES[table];
  // looked up here, not at load: whatever parser the driver applies to timestamptz columns now
  const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;
  for (const row of rows as Array<Record<string, unknown>>) {
    for (const column of timestamps) {
      const text = row[column];
      if (typeof text === 'string') row[column] = parseTimestamp(text);
    }
  }
  return rows as Row[];
}

interface DetailsRow {
  wallets: unknown;
  parties?: unknown;
  groups?: unknown;
  links: Array<[transactionId: number, categoryId: number]> | null;
  categories: unknown;
  files: unknown;
  rules: unknown;
  transfers?: Array<{ id: number; client_generated_id: string | null; device_token: string | null }> | null;
  splits: Array<[transactionId: number, amount: string, categoryId: number | null, partyId: number | null, description: string | null]> | null;
}

/**
 * Everything the rows show nested, in one statement. The wallet is shown even when deleted (the
 * spec requires it); deleted parties, groups and categories are left out. Categories are found
 * through the rows' links, each transaction's in category id order.
 */
export async function loadTransactionDetails(db: Kysely<Database>, userId: number, rows: PageRow[]): Promise<TransactionDetails> {
  if (rows.length === 0) return emptyDetails();
  const ids = rows.map((r) => r.id);
  const idsOf = (pick: (r: PageRow) => number | null) => [...new Set(rows.map(pick).filter((id): id is number => id !== null))];
  const walletIds = idsOf((r) => r.wallet_id);
  const partyIds = idsOf((r) => r.party_id);
  const groupIds = idsOf((r) => r.group_id);
  const transferIds = idsOf((r) => r.transfer_id);
  const mine = sql<boolean>`nested.user_id = ${userId}`;

  const columns: RawBuilder<unknown>[] = [
    sql`${nestedRows('wallets', sql`${mine} and nested.id = any(${walletIds}::bigint[])`)} as wallets`,
  ];
  // the transactions' parties and their split lines' (046)
  columns.push(sql`${nestedRows('parties', sql`${mine} and (nested.id = any(${partyIds}::bigint[]) or nested.id in (select party_id from page_splits)) and nested.deleted_at is null`)} as parties`);
  if (groupIds.length) {
    columns.push(sql`${nestedRows('groups', sql`${mine} and nested.id = any(${groupIds}::bigint[]) and nested.deleted_at is null`)} as groups`);
  }
  columns.push(
    sql`(select jsonb_agg(jsonb_build_array(transaction_id, category_id) order by category_id, transaction_id) from page_links) as links`,
    sql`${nestedRows('categories', sql`${mine} and nested.id in (select category_id from page_links) and nested.deleted_at is null`)} as categories`,
    sql`${nestedRows('files', sql`${mine} and nested.transaction_id = any(${ids}::bigint[])`, 'nested.created_at, nested.id')} as files`,
    sql`${nestedRows('recurring_rules', sql`${mine} and nested.transaction_id = any(${ids}::bigint[])`)} as rules`,
    sql`(select jsonb_agg(jsonb_build_array(transaction_id, amount::text, category_id, party_id, description) order by transaction_id, position) from page_splits) as splits`,
  );
  if (transferIds.length) {
    columns.push(sql`(select jsonb_agg(jsonb_build_object('id', transfer.id, 'client_generated_id', transfer.client_generated_id, 'device_token', transfer_device.token))
        from transfers transfer left join devices transfer_device on transfer_device.id = transfer.device_id
       where transfer.user_id = ${userId} and transfer.id = any(${transferIds}::bigint[])) as transfers`);
  }
  // every page runs one of a few texts (by which kinds it shows): prepared once per connection
  const { rows: [found] } = await sql<DetailsRow>`${sql.raw(PREPARE_ONCE)}
    with page_links as (select transaction_id, category_id from transaction_categories where transaction_id = any(${ids}::bigint[])),
    page_splits as (select transaction_id, position, amount, category_id, party_id, description from transaction_splits
      where transaction_id = any(${ids}::bigint[]) and user_id = ${userId})
    select ${sql.join(columns)}`.execute(db);

  const wallets = revived<WalletRow>('wallets', found.wallets);
  const categories = new Map(revived<CategoryRow>('categories', found.categories).map((c) => [c.id, c]));
  const linked = new Map<number, CategoryRow[]>();
  for (const [transactionId, categoryId] of found.links ?? []) {
    const category = categories.get(categoryId);
    if (category) pushTo(linked, transactionId, category);
  }
  const splits = new Map<number, SplitDetailRow[]>();
  for (const [transactionId, amount, category_id, party_id, description] of found.splits ?? []) {
    pushTo(splits, transactionId, { amount, category_id, party_id, description });
  }
  const files = new Map<number, FileRow[]>();
  for (const file of revived<FileRow>('files', found.files)) pushTo(files, file.transaction_id!, file);
  return {
    wallets: new Map(wallets.map((w) => [w.id, w])),
    // the wallet rows carry their totals (012): no second read of the same rows
    walletTotals: new Map(wallets.map((w) => [w.id, ownTotals(w)])),
    parties: new Map(revived<PartyRow>('parties', found.parties).map((p) => [p.id, p])),
    groups: new Map(revived<GroupRow>('groups', found.groups).map((g) => [g.id, g])),
    categories: linked,
    files,
    rules: new Map(revived<RecurringRuleRow>('recurring_rules', found.rules).map((r) => [r.transaction_id, r])),
    transfers: new Map((found.transfers ?? []).map((t) => [t.id, { client_generated_id: t.client_generated_id, device_token: t.device_token }])),
    splits,
  };
}

function emptyDetails(): TransactionDetails {
  return { wallets: new Map(), walletTotals: new Map(), parties: new Map(), groups: new Map(), categories: new Map(), files: new Map(), rules: new Map(), transfers: new Map(), splits: new Map() };
}

function pushTo<T>(map: Map<number, T[]>, key: number, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}
