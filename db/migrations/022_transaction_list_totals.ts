// 022 transaction list totals: `GET /transactions` answers `total` and `totals` (count and sums
// of every live row matching the filters, before paging). 012's per-wallet totals answer the
// `type` and `wallet_ids` filters; `intent`, `exclude_transfers` and `category_ids` made the
// list sum every matching row (at 1,000,000 rows no answer within 5 s at 50 connections).
//
// transaction_list_totals keeps the count and sum of live transactions per wallet, type,
// intent and whether the row is a transfer leg (category_id 0), and the same per linked
// category (category_id > 0): a few hundred rows per user, whatever the ledger's size, so each
// combination of those filters is one small indexed read.
//
// Maintained like 012's wallet totals, by statement triggers with transition tables, in the
// write's own database transaction: on transactions (joined to their current category links)
// and on transaction_categories (joined to their current transaction). Each statement changes
// one of the two tables and its delta is computed against the other's current state, so the
// summary always equals what summing the live rows and their links would give, whatever the
// order in which a write changes rows and links. Deltas that net to zero are dropped (a
// statement that changes no live amount, type, intent or link writes nothing), and a delete
// only updates existing rows (account deletion cascades here before the summary goes).
// Keys are written in one order, after the wallets they belong to are locked, so concurrent
// writers queue instead of deadlocking.
//
// `search` (a substring of the description, or an exact amount) cannot be summarised; a
// trigram index on live descriptions and a (user_id, amount) index let the page and its totals
// read only the matching rows (a bitmap OR of both) instead of every row of the user.
import { sql, type Kysely } from 'kysely';

// contribution of transaction rows `rows` (a transition table or the table), with their links
const fromTransactions = (rows: string, sign: string) => `
  select r.user_id, r.wallet_id, 0::bigint as category_id, r.type, r.intent, r.transfer_id is not null as is_transfer,
         ${sign}::bigint as count, ${sign} * r.amount as total
    from ${rows} r where r.deleted_at is null
  union all
  select r.user_id, r.wallet_id, l.category_id, r.type, r.intent, r.transfer_id is not null,
         ${sign}::bigint, ${sign} * r.amount
    from ${rows} r join transaction_categories l on l.transaction_id = r.id where r.deleted_at is null`;

// contribution of link rows `rows`, with their transactions
const fromLinks = (rows: string, sign: string) => `
  select t.user_id, t.wallet_id, l.category_id, t.type, t.intent, t.transfer_id is not null as is_transfer,
         ${sign}::bigint as count, ${sign} * t.amount as total
    from ${rows} l join transactions t on t.id = l.transaction_id where t.deleted_at is null`;

const KEY = 'wallet_id, category_id, type, intent, is_transfer';

const delta = (changes: string) => `
  select user_id, ${KEY}, sum(count) as count, sum(total) as total
    from (${changes}) c group by user_id, ${KEY}
  having sum(count) <> 0 or sum(total) <> 0`;

// Writers of a wallet queue on its row (moveBalances locks it the same way, in id order), so a
// write that changes a transaction's links in one statement and its row in another never holds
// one summary key while waiting for another that a second writer of the wallet holds.
const lockWallets = (changes: string) => `
  perform 1 from wallets w where w.id in (select wallet_id from (${delta(changes)}) d) order by w.id for no key update;`;

const insertDelta = (changes: string) => `
  insert into transaction_list_totals as s (user_id, ${KEY}, count, total)
  select * from (${delta(changes)}) d order by ${KEY}
  on conflict (${KEY}) do update set count = s.count + excluded.count, total = s.total + excluded.total;`;

const upsert = (changes: string) => lockWallets(changes) + insertDelta(changes);

const subtract = (changes: string) => `${lockWallets(changes)}
  update transaction_list_totals s set count = s.count + d.count, total = s.total + d.total
    from (${delta(changes)}) d
   where s.wallet_id = d.wallet_id and s.category_id = d.category_id and s.type = d.type
     and s.intent = d.intent and s.is_transfer = d.is_transfer;`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transaction_list_totals')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('intent', 'text', (c) => c.notNull())
    .addColumn('is_transfer', 'boolean', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('total', 'numeric', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_list_totals_pkey', ['wallet_id', 'category_id', 'type', 'intent', 'is_transfer'])
    .execute();
  await db.schema.createIndex('transaction_list_totals_user_idx').on('transaction_list_totals').columns(['user_id', 'category_id']).execute();

  await sql`create function transaction_list_totals_from_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(upsert(fromTransactions('new_rows', '1')))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(subtract(fromTransactions('old_rows', '-1')))}
      else
        ${sql.raw(upsert(`${fromTransactions('new_rows', '1')} union all ${fromTransactions('old_rows', '-1')}`))}
      end if;
      return null;
    end
  $$`.execute(db);
  await sql`create function transaction_list_totals_from_links() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(upsert(fromLinks('new_rows', '1')))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(subtract(fromLinks('old_rows', '-1')))}
      else
        ${sql.raw(upsert(`${fromLinks('new_rows', '1')} union all ${fromLinks('old_rows', '-1')}`))}
      end if;
      return null;
    end
  $$`.execute(db);
  for (const [table, fn] of [['transactions', 'transaction_list_totals_from_transactions'], ['transaction_categories', 'transaction_list_totals_from_links']]) {
    // transition tables allow one event per trigger
    await sql`create trigger ${sql.id(`${table}_list_totals_insert`)} after insert on ${sql.table(table)}
      referencing new table as new_rows for each statement execute function ${sql.id(fn)}()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_list_totals_update`)} after update on ${sql.table(table)}
      referencing old table as old_rows new table as new_rows for each statement execute function ${sql.id(fn)}()`.execute(db);
    await sql`create trigger ${sql.id(`${table}_list_totals_delete`)} after delete on ${sql.table(table)}
      referencing old table as old_rows for each statement execute function ${sql.id(fn)}()`.execute(db);
  }
  // Search by description: a trigram index. pg_trgm is a trusted extension (PostgreSQL 13+): a
  // user with CREATE on the database may create it. A server without it (or without that right)
  // still searches correctly, by scanning the user's rows. Search by amount uses 020's
  // (user_id, amount, datetime) index.
  const { rows } = await sql<{ usable: boolean }>`
    select exists (select 1 from pg_extension where extname = 'pg_trgm')
        or (exists (select 1 from pg_available_extensions where name = 'pg_trgm') and has_database_privilege(current_database(), 'CREATE')) as usable`.execute(db);
  if (rows[0]?.usable) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index transactions_live_description_trgm_idx on transactions using gin (description gin_trgm_ops)
      where deleted_at is null`.execute(db);
  }
  // the backfill reads the rows, it never updates them (that would re-stamp every row for sync)
  await sql.raw(insertDelta(fromTransactions('transactions', '1'))).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists transactions_live_description_trgm_idx`.execute(db);
  for (const table of ['transactions', 'transaction_categories']) {
    for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`${table}_list_totals_${event}`)} on ${sql.table(table)}`.execute(db);
  }
  await sql`drop function transaction_list_totals_from_transactions()`.execute(db);
  await sql`drop function transaction_list_totals_from_links()`.execute(db);
  await db.schema.dropTable('transaction_list_totals').execute();
}
