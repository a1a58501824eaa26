// Queries of bank connections (migration 042): connections and the accounts they see, the line
// ids a sync already took, the pending lines held apart, the bridge's request budget per day,
// and how the last sync went.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { BankAccount, BankLine } from '../domain/bank-lines.js';
import type { BankAccountsTable, BankConnectionsTable } from './bank-schema.js';
import { listPage, type PageMeta } from './feed.js';
import type { Database } from './schema.js';

export type BankConnectionRow = { [K in keyof BankConnectionsTable]: BankConnectionsTable[K] extends import('kysely').ColumnType<infer S, any, any> ? S : BankConnectionsTable[K] };
export type BankAccountRow = { [K in keyof BankAccountsTable]: BankAccountsTable[K] extends import('kysely').ColumnType<infer S, any, any> ? S : BankAccountsTable[K] };

/** An account with its wallet's balance beside the bank's, and the difference (bank less wallet). */
export interface BankAccountView extends BankAccountRow {
  wallet_balance: string | null;
  difference: string | null;
  pending_count: number;
}

export async function insertConnection(db: Kysely<Database>, values: { userId: number; provider: 'simplefin'; name: string; secret: string; now: Date }): Promise<BankConnectionRow> {
  return db
    .insertInto('bank_connections')
    .values({ user_id: values.userId, provider: values.provider, name: values.name, secret: values.secret, next_sync_at: values.now, created_at: values.now, updated_at: values.now })
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<BankConnectionRow>;
}

export function findConnection(db: Kysely<Database>, userId: number, id: number): Promise<BankConnectionRow | undefined> {
  return db.selectFrom('bank_connections').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst() as Promise<BankConnectionRow | undefined>;
}

/** The connection locked for one sync's writes: a second sync of it waits, then sees what the first took. */
export function lockConnection(trx: Transaction<Database>, id: number): Promise<BankConnectionRow | undefined> {
  return trx.selectFrom('bank_connections').selectAll().where('id', '=', id).forUpdate().executeTakeFirst() as Promise<BankConnectionRow | undefined>;
}

export function connectionPage(db: Kysely<Database>, userId: number, options: { page: number; limit: number; now: Date }): Promise<{ rows: BankConnectionRow[]; meta: PageMeta }> {
  return listPage(db.selectFrom('bank_connections').selectAll().where('user_id', '=', userId).orderBy('id'), options) as Promise<{ rows: BankConnectionRow[]; meta: PageMeta }>;
}

/** The accounts of the connections, each with its wallet's balance and the difference, by connection id. */
export async function accountsOf(db: Kysely<Database>, connectionIds: number[]): Promise<Map<number, BankAccountView[]>> {
  const byConnection = new Map<number, BankAccountView[]>(connectionIds.map((id) => [id, []]));
  if (connectionIds.length === 0) return byConnection;
  const { rows } = await sql<BankAccountView>`
    select a.*, w.balance as wallet_balance, (a.balance - w.balance)::numeric(19, 4) as difference,
           (select count(*)::int from bank_pending_lines p where p.bank_account_id = a.id) as pending_count
      from bank_accounts a
      left join wallets w on w.id = a.wallet_id and w.deleted_at is null
     where a.connection_id = any(${connectionIds}::bigint[])
     order by a.connection_id, a.id`.execute(db);
  for (const row of rows) byConnection.get(Number(row.connection_id))?.push(row);
  return byConnection;
}

export function findAccount(db: Kysely<Database>, userId: number, id: number): Promise<BankAccountRow | undefined> {
  return db.selectFrom('bank_accounts').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst() as Promise<BankAccountRow | undefined>;
}

export async function setAccountWallet(db: Kysely<Database>, accountId: number, walletId: number | null, now: Date): Promise<void> {
  await db.updateTable('bank_accounts').set({ wallet_id: walletId, updated_at: now }).where('id', '=', accountId).execute();
}

/** Deletes the connection with its accounts and line records; the transactions they made stay. */
export async function deleteConnection(db: Kysely<Database>, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('bank_connections').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * The accounts the bridge answered, kept (new ones added, known ones' names and balances
 * refreshed); accounts it no longer answers are marked missing, not deleted (their wallets and
 * lines stay). Returns the connection's accounts by external id.
 */
export async function keepAccounts(trx: Transaction<Database>, connection: BankConnectionRow, accounts: BankAccount[], now: Date): Promise<Map<string, BankAccountRow>> {
  for (const account of accounts) {
    // what the bridge says of the account, written on first sight and refreshed after
    const told = {
      name: account.name,
      bank: account.bank,
      currency: account.currency,
      balance: account.balance,
      available_balance: account.available_balance,
      balance_date: account.balance_date,
      updated_at: now,
    };
    await trx
      .insertInto('bank_accounts')
      .values({ ...told, user_id: connection.user_id, connection_id: connection.id, external_id: account.id, created_at: now })
      .onConflict((oc) => oc.columns(['connection_id', 'external_id']).doUpdateSet({ ...told, missing_since: null }))
      .execute();
  }
  const answered = accounts.map((a) => a.id);
  let gone = trx.updateTable('bank_accounts').set({ missing_since: sql`coalesce(missing_since, ${now})`, updated_at: now }).where('connection_id', '=', connection.id);
  if (answered.length > 0) gone = gone.where('external_id', 'not in', answered);
  await gone.execute();
  const rows = (await trx.selectFrom('bank_accounts').selectAll().where('connection_id', '=', connection.id).execute()) as BankAccountRow[];
  return new Map(rows.map((row) => [row.external_id, row]));
}

/** The ids among `ids` the account's syncs already took. */
export async function takenLineIds(trx: Transaction<Database>, accountId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await trx.selectFrom('bank_lines').select('external_id').where('bank_account_id', '=', accountId).where('external_id', 'in', ids).execute();
  return new Set(rows.map((row) => row.external_id));
}

export interface TakenLine {
  userId: number;
  accountId: number;
  line: BankLine;
  transactionId: number | null;
}

/** Lines taken by a sync, in one statement. */
export async function recordTakenLines(trx: Transaction<Database>, lines: TakenLine[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  await sql`
    insert into bank_lines (user_id, bank_account_id, external_id, posted_date, amount, transaction_id, created_at)
    select u, a, e, d, m, t, ${now}
      from unnest(${lines.map((l) => l.userId)}::bigint[], ${lines.map((l) => l.accountId)}::bigint[], ${lines.map((l) => l.line.id)}::text[],
                  ${lines.map((l) => l.line.date)}::text[], ${lines.map((l) => l.line.amount)}::numeric[], ${lines.map((l) => l.transactionId)}::bigint[]) as v(u, a, e, d, m, t)`.execute(trx);
}

/** The account's pending lines replaced by these (a pending line the bank posted since is gone). */
export async function replacePendingLines(trx: Transaction<Database>, account: BankAccountRow, lines: BankLine[], now: Date): Promise<void> {
  await trx.deleteFrom('bank_pending_lines').where('bank_account_id', '=', account.id).execute();
  if (lines.length === 0) return;
  await trx
    .insertInto('bank_pending_lines')
    .values(lines.map((line) => ({ user_id: account.user_id, bank_account_id: account.id, external_id: line.id, date: line.date, amount: line.amount, description: line.description, created_at: now })))
    .onConflict((oc) => oc.columns(['bank_account_id', 'external_id']).doNothing())
    .execute();
}

export async function setLastPosted(trx: Transaction<Database>, accountId: number, day: string, now: Date): Promise<void> {
  await trx
    .updateTable('bank_accounts')
    .set({ last_posted_date: sql`greatest(coalesce(last_posted_date, ''), ${day})`, updated_at: now })
    .where('id', '=', accountId)
    .execute();
}

/**
 * One request to the bridge counted against the connection's budget for the UTC day; false
 * when the budget is spent (nothing counted). One statement: two processes never both take the last.
 */
export async function takeRequest(db: Kysely<Database>, connectionId: number, perDay: number, now: Date): Promise<boolean> {
  const today = now.toISOString().slice(0, 10);
  const { rows } = await sql<{ id: number }>`
    update bank_connections
       set requests_count = case when requests_day = ${today}::date then requests_count + 1 else 1 end, requests_day = ${today}::date
     where id = ${connectionId} and (requests_day is distinct from ${today}::date or requests_count < ${perDay})
     returning id`.execute(db);
  return rows.length > 0;
}

/** A sync that worked: the state cleared, the bridge's messages kept, the next one scheduled. */
export async function recordSyncSuccess(trx: Transaction<Database>, id: number, bridgeErrors: string[], next: Date, now: Date): Promise<void> {
  await trx
    .updateTable('bank_connections')
    .set({ status: 'active', last_error: null, bridge_errors: JSON.stringify(bridgeErrors), failure_count: 0, last_attempt_at: now, last_synced_at: now, next_sync_at: next, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** A sync that failed: accounts and lines left as they were, the reason kept; returns the failures in a row. */
export async function recordSyncFailure(db: Kysely<Database>, id: number, reason: string, next: Date, now: Date): Promise<number> {
  const row = await db
    .updateTable('bank_connections')
    .set({ status: 'failing', last_error: reason, failure_count: sql`failure_count + 1`, last_attempt_at: now, next_sync_at: next, updated_at: now })
    .where('id', '=', id)
    .returning('failure_count')
    .executeTakeFirst();
  return row?.failure_count ?? 0;
}

/**
 * Connections whose next sync is due, claimed: their next sync moved to `until` in the same
 * statement (SKIP LOCKED), so a second worker does not take them too and spend the bridge's
 * requests twice. A sync that ends sets the real next time.
 */
export async function claimDueConnections(db: Kysely<Database>, now: Date, until: Date, limit = 20): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    update bank_connections set next_sync_at = ${until}
     where id in (select id from bank_connections where next_sync_at <= ${now} order by next_sync_at limit ${limit} for update skip locked)
     returning id`.execute(db);
  return rows.map((row) => Number(row.id));
}
