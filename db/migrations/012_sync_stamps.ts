// 012 sync stamps: the database, not the request, stamps every change of a synced row, and
// sync feeds page by that stamp.
//
// - `last_synced_at` is set by a trigger on every insert and update to the clock at that moment
//   (truncated to milliseconds, so a JS Date holds it exactly). Feeds order and filter by it.
//   Why the write's own clock: a reader computes a horizon (db/sync-horizon.ts) from the open
//   transactions of pg_stat_activity, and every row that commits after that read carries a
//   stamp at or after the horizon; see docs/sync.md for the argument.
// - `updated_at` stays the record's own change time (the request's clock, or what an offline
//   client sent), but the same trigger keeps it at or after `created_at`.
// - The (user_id, updated_at, id) paging index of 002-004 is replaced by (user_id,
//   last_synced_at, id), the feeds' order; the transaction list gets an index in its own order
//   (datetime, created_at, id, live rows only).
// - sync_page_marks remembers, per token and feed, where each page of a `synced_since` feed
//   ended, so page N continues after page N-1's last row (keyset) instead of at an offset that
//   concurrent edits shift.
// - Each wallet keeps the count and sums of its live transactions by type (transfer legs
//   included), maintained by statement triggers on transactions from their transition tables:
//   the wallets' stats and the transaction list's totals read them instead of summing a
//   million rows per request. Statement-level, so a bulk insert updates each wallet once;
//   a statement that changes no live amount touches no wallet. Writers lock their wallets
//   first (moveBalances), so the trigger's update takes no lock they do not hold already.
import { sql, type Kysely } from 'kysely';

export const SYNCED_TABLES = [
  'wallets',
  'groups',
  'parties',
  'categories',
  'transactions',
  'transfers',
  'refunds',
  'configurations',
  'budgets',
  'budget_period_states',
  'reminders',
  'notifications',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await addWalletTotals(db);

  await sql`create function sync_stamp() returns trigger language plpgsql as $$
    begin
      new.last_synced_at := date_trunc('milliseconds', clock_timestamp());
      if new.updated_at < new.created_at then
        new.updated_at := new.created_at;
      end if;
      return new;
    end
  $$`.execute(db);

  for (const table of SYNCED_TABLES) {
    await sql`create trigger ${sql.id(`${table}_sync_stamp`)} before insert or update on ${sql.table(table)}
      for each row execute function sync_stamp()`.execute(db);
    await sql`drop index if exists ${sql.id(`${table}_user_updated_idx`)}`.execute(db);
    await db.schema
      .createIndex(`${table}_user_synced_idx`)
      .on(table)
      .columns(['user_id', 'last_synced_at', 'id'])
      .execute();
  }

  // the transaction list's own order over live rows, so a deep page is found on the index alone
  await sql`create index transactions_user_live_order_idx on transactions (user_id, datetime desc, created_at desc, id desc)
    where deleted_at is null`.execute(db);

  await db.schema
    .createTable('sync_page_marks')
    .addColumn('token_id', 'bigint', (c) => c.notNull().references('tokens.id').onDelete('cascade'))
    .addColumn('feed', 'text', (c) => c.notNull())
    .addColumn('page', 'integer', (c) => c.notNull())
    .addColumn('after_stamp', 'timestamptz', (c) => c.notNull())
    .addColumn('after_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('sync_page_marks_pkey', ['token_id', 'feed', 'page'])
    .execute();
  await db.schema.createIndex('sync_page_marks_created_idx').on('sync_page_marks').column('created_at').execute();
}

async function addWalletTotals(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('wallets')
    .addColumn('income_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expense_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('income_total', 'numeric', (c) => c.notNull().defaultTo(0))
    .addColumn('expense_total', 'numeric', (c) => c.notNull().defaultTo(0))
    .execute();
  // the signed contribution of transition-table rows: +1 for new live rows, -1 for old ones
  const contribution = (rows: string, sign: string) => `
    select wallet_id, ${sign} * (type = 'income')::int as income_count, ${sign} * (type = 'expense')::int as expense_count,
           case when type = 'income' then ${sign} * amount else 0 end as income_total,
           case when type = 'expense' then ${sign} * amount else 0 end as expense_total
      from ${rows} where deleted_at is null`;
  const applyDelta = (changes: string) => `
    update wallets w
       set income_count = w.income_count + d.income_count, expense_count = w.expense_count + d.expense_count,
           income_total = w.income_total + d.income_total, expense_total = w.expense_total + d.expense_total
      from (select wallet_id, sum(income_count) as income_count, sum(expense_count) as expense_count,
                   sum(income_total) as income_total, sum(expense_total) as expense_total
              from (${changes}) c group by wallet_id) d
     where w.id = d.wallet_id
       and (d.income_count <> 0 or d.expense_count <> 0 or d.income_total <> 0 or d.expense_total <> 0);`;
  await sql`create function wallet_totals_after_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyDelta(contribution('new_rows', '1')))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyDelta(contribution('old_rows', '-1')))}
      else
        ${sql.raw(applyDelta(`${contribution('new_rows', '1')} union all ${contribution('old_rows', '-1')}`))}
      end if;
      return null;
    end
  $$`.execute(db);
  // transition tables allow one event per trigger
  await sql`create trigger transactions_wallet_totals_insert after insert on transactions
    referencing new table as new_rows for each statement execute function wallet_totals_after_change()`.execute(db);
  await sql`create trigger transactions_wallet_totals_update after update on transactions
    referencing old table as old_rows new table as new_rows for each statement execute function wallet_totals_after_change()`.execute(db);
  await sql`create trigger transactions_wallet_totals_delete after delete on transactions
    referencing old table as old_rows for each statement execute function wallet_totals_after_change()`.execute(db);
  await sql`update wallets w
       set income_count = d.income_count, expense_count = d.expense_count, income_total = d.income_total, expense_total = d.expense_total
      from (${sql.raw(`select wallet_id, sum(income_count) as income_count, sum(expense_count) as expense_count,
                   sum(income_total) as income_total, sum(expense_total) as expense_total from (${contribution('transactions', '1')}) c group by wallet_id`)}) d
     where w.id = d.wallet_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index transactions_user_live_order_idx`.execute(db);
  for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`transactions_wallet_totals_${event}`)} on transactions`.execute(db);
  await sql`drop function wallet_totals_after_change()`.execute(db);
  await db.schema.alterTable('wallets').dropColumn('income_count').dropColumn('expense_count').dropColumn('income_total').dropColumn('expense_total').execute();
  await db.schema.dropTable('sync_page_marks').execute();
  for (const table of SYNCED_TABLES) {
    await sql`drop trigger ${sql.id(`${table}_sync_stamp`)} on ${sql.table(table)}`.execute(db);
    await sql`drop index ${sql.id(`${table}_user_synced_idx`)}`.execute(db);
    await db.schema.createIndex(`${table}_user_updated_idx`).on(table).columns(['user_id', 'updated_at', 'id']).execute();
  }
  await sql`drop function sync_stamp()`.execute(db);
}
