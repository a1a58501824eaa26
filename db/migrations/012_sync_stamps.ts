// 012 sync stamps: the database, not the request, stamps every change of a synced row, and
// sync feeds page by that stamp.
//
// - `last_synced_at` is set by a trigger on every insert and update to the clock at that moment
//   (truncated to milliseconds, so a JS Date holds it exactly). Feeds order and filter by it.
//   Why the write's own clock: a reader computes a horizon (db/sync-horizon.ts) from the open
//   transactions of pg_stat_activity, and every row that commits after that read carries a
//   stamp at or after the horizon; see the README's "Sync" section for the argument.
// - `updated_at` stays the record's own change time (the request's clock, or what an offline
//   client sent), but the same trigger keeps it at or after `created_at`.
// - The (user_id, updated_at, id) paging index of 002-004 is replaced by (user_id,
//   last_synced_at, id), the feeds' order.
// - sync_page_marks remembers, per token and feed, where each page of a `synced_since` feed
//   ended, so page N continues after page N-1's last row (keyset) instead of at an offset that
//   concurrent edits shift.
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

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sync_page_marks').execute();
  for (const table of SYNCED_TABLES) {
    await sql`drop trigger ${sql.id(`${table}_sync_stamp`)} on ${sql.table(table)}`.execute(db);
    await sql`drop index ${sql.id(`${table}_user_synced_idx`)}`.execute(db);
    await db.schema.createIndex(`${table}_user_updated_idx`).on(table).columns(['user_id', 'updated_at', 'id']).execute();
  }
  await sql`drop function sync_stamp()`.execute(db);
}
