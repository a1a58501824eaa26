// 033 data versions: a counter per user that the database bumps whenever a row the user's
// GET responses show changes, and one for the exchange rates every user's conversions read.
// A response's ETag is derived from them (server/conditional.ts, docs/sync.md "Conditional
// requests"), so an unchanged counter means an unchanged answer.
//
// - user_versions: bumped once per database transaction and user, by a deferred constraint
//   trigger on every table whose rows a user's responses show. Deferred, the trigger runs at
//   commit: the row lock on the user's counter is the transaction's last lock (it cannot
//   deadlock with the transaction's other locks and is held only while it commits), and the new
//   version becomes visible exactly when the change does. The first event of a transaction for
//   a user bumps; the others return at once (the users bumped are remembered in the
//   transaction-local setting app.versions_bumped).
//   `changed_at` is the clock at the bump, after every write of the transaction: every row of
//   a change the version counts is stamped (last_synced_at) at or before it, which tells a sync
//   page whether its horizon may have held back one of them (db/feed.ts).
// - Tables a trigger maintains from another one (wallet totals, the statistics and budget
//   summaries, suggestion counts) get none: the write that changes them is counted already.
//   Tables no GET of the user shows (tokens, devices, sync page marks, e-mails, codes) get
//   none either, so reading a sync page (which writes a page mark) bumps nothing.
// - shared_versions: one counter per global table a response depends on, for now the
//   exchange rates (statistics and budgets convert with them); bumped once per statement.
import { sql, type Kysely } from 'kysely';

/** The tables whose rows a user's responses show, each with its owner column. */
export const VERSIONED_TABLES: ReadonlyArray<readonly [table: string, owner: 'id' | 'user_id']> = [
  ['users', 'id'],
  ...[
    'configurations',
    'files',
    'icons',
    'wallets',
    'groups',
    'parties',
    'categories',
    'transfers',
    'transactions',
    'transaction_categories',
    'recurring_rules',
    'refunds',
    'budgets',
    'budget_targets',
    'budget_period_states',
    'reminders',
    'notifications',
    'notification_preferences',
    'file_imports',
    'failed_imports',
    'import_sessions',
    'import_suggestions',
    'import_column_mappings',
    'chat_sessions',
    'chat_messages',
    'agent_actions',
  ].map((table) => [table, 'user_id'] as const),
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_versions')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('changed_at', 'timestamptz', (c) => c.notNull())
    .execute();

  // The owner is the trigger's argument's column; a deleted account (its rows go with it in the
  // same transaction) gets no counter.
  await sql`create function bump_user_version() returns trigger language plpgsql as $$
    declare
      owner bigint;
      bumped text := coalesce(nullif(current_setting('app.versions_bumped', true), ''), ',');
    begin
      if tg_argv[0] = 'id' then
        owner := case when tg_op = 'DELETE' then old.id else new.id end;
      else
        owner := case when tg_op = 'DELETE' then old.user_id else new.user_id end;
      end if;
      if owner is null or position(',' || owner || ',' in bumped) > 0 then
        return null;
      end if;
      perform set_config('app.versions_bumped', bumped || owner || ',', true);
      insert into user_versions (user_id, version, changed_at)
        select owner, 1, clock_timestamp() where exists (select 1 from users where id = owner)
        on conflict (user_id) do update
          set version = user_versions.version + 1, changed_at = greatest(user_versions.changed_at, excluded.changed_at);
      return null;
    end
  $$`.execute(db);
  for (const [table, owner] of VERSIONED_TABLES) {
    await sql`create constraint trigger ${sql.id(`${table}_user_version`)} after insert or update or delete on ${sql.table(table)}
      deferrable initially deferred for each row execute function bump_user_version(${sql.lit(owner)})`.execute(db);
  }

  await db.schema
    .createTable('shared_versions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into shared_versions (name, version) values ('exchange_rates', 0)`.execute(db);
  await sql`create function bump_shared_version() returns trigger language plpgsql as $$
    begin
      update shared_versions set version = version + 1 where name = tg_table_name;
      return null;
    end
  $$`.execute(db);
  await sql`create trigger exchange_rates_shared_version after insert or update or delete on exchange_rates
    for each statement execute function bump_shared_version()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger exchange_rates_shared_version on exchange_rates`.execute(db);
  await sql`drop function bump_shared_version()`.execute(db);
  await db.schema.dropTable('shared_versions').execute();
  for (const [table] of VERSIONED_TABLES) await sql`drop trigger ${sql.id(`${table}_user_version`)} on ${sql.table(table)}`.execute(db);
  await sql`drop function bump_user_version()`.execute(db);
  await db.schema.dropTable('user_versions').execute();
}
