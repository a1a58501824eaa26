// 047 transaction day counts: where a deep page of the transaction list starts, without walking
// every row before it. `GET /transactions?page=5000` at 1,000,000 rows skipped ~250,000 index
// entries (150-160 ms on a quiet machine); page anchors (db/page-anchors.ts) only help a list
// that a request has already read deep at the same data version.
//
// transaction_day_counts keeps the number of live transactions (transfer legs included, as the
// list shows them) per wallet and UTC day of `datetime`: about one row per wallet and day with
// activity, ~5,500 for a user with 1,000,000 rows over three years. The list is ordered by
// `datetime` first, so the rows of later days come before the rows of a day: the position of a
// day's first row is the sum of the counts of the days after it, and a deep page starts at the
// first row before that day's end and skips only rows of its own day (db/transaction-positions.ts).
//
// Maintained like 022's list totals, by statement triggers with transition tables in the write's
// own database transaction, so the counts always equal the live rows. The key starts with the
// wallet, and writers lock their wallets before writing rows (moveBalances), so two writers never
// wait on each other's keys; rows are upserted in key order. A delete only updates existing
// rows (an account's deletion cascades here first). Days whose count returns to 0 keep a row.
import { sql, type Kysely } from 'kysely';
import { createStatementTriggers } from './helpers.js';

// contribution of transaction rows `rows` (a transition table or the table)
const fromTransactions = (rows: string, sign: string) => `
  select r.user_id, r.wallet_id, (r.datetime at time zone 'UTC')::date as day, ${sign}::int as count
    from ${rows} r where r.deleted_at is null`;

const delta = (changes: string) => `
  select user_id, wallet_id, day, sum(count)::int as count from (${changes}) c
   group by user_id, wallet_id, day having sum(count) <> 0`;

const upsert = (changes: string) => `
  insert into transaction_day_counts as s (user_id, wallet_id, day, count)
  select * from (${delta(changes)}) d order by wallet_id, day
  on conflict (wallet_id, day) do update set count = s.count + excluded.count;`;

const subtract = (changes: string) => `
  update transaction_day_counts s set count = s.count + d.count
    from (${delta(changes)}) d where s.wallet_id = d.wallet_id and s.day = d.day;`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transaction_day_counts')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('wallet_id', 'bigint', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_day_counts_pkey', ['wallet_id', 'day'])
    .execute();
  await sql`create index transaction_day_counts_user_day_idx on transaction_day_counts (user_id, day desc) include (count)`.execute(db);

  await sql`create function transaction_day_counts_from_transactions() returns trigger language plpgsql as $$
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
  await createStatementTriggers(db, 'transactions', 'transactions_day_counts', 'transaction_day_counts_from_transactions');
  // the backfill reads the rows, it never updates them (that would re-stamp every row for sync)
  await sql.raw(upsert(fromTransactions('transactions', '1'))).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`transactions_day_counts_${event}`)} on transactions`.execute(db);
  await sql`drop function transaction_day_counts_from_transactions()`.execute(db);
  await db.schema.dropTable('transaction_day_counts').execute();
}
