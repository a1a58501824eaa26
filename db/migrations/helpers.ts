// Shared building blocks of the numbered migrations (this file is not a migration itself).
//
// A migration that has run must replay identically forever, so the behaviour of a helper here
// is frozen once a migration uses it: never change what a helper emits, add a new one instead.
//
// Conventions the helpers encode:
// - ids are `bigint generated always as identity`;
// - synced tables carry their sync bookkeeping as columns (client_generated_id = the record
//   UUID half of `client_id`, device_id = the device half, last_synced_at, created_at,
//   updated_at, deleted_at) instead of a polymorphic side table: one row, plain indexes, real
//   foreign keys;
// - "owned" foreign keys are composite, (x_id, user_id) -> parent (id, user_id), so the database
//   itself refuses a row that points at another user's record. Every parent that is referenced
//   this way has a unique (id, user_id) constraint named <table>_id_user_id_key.
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';

/** `id bigint generated always as identity primary key` */
export function withId<T extends string, C extends string>(tb: CreateTableBuilder<T, C>) {
  return tb.addColumn('id', 'bigint', (c) => c.generatedAlwaysAsIdentity().primaryKey());
}

/** `user_id bigint not null references users(id) on delete cascade` */
export function withUser<T extends string, C extends string>(tb: CreateTableBuilder<T, C>) {
  return tb.addColumn('user_id', 'bigint', (c) =>
    c.notNull().references('users.id').onDelete('cascade'),
  );
}

/** `created_at` and `updated_at`, both `timestamptz not null default now()` */
export function withTimestamps<T extends string, C extends string>(tb: CreateTableBuilder<T, C>) {
  return tb
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`));
}

/**
 * The sync columns of a synced table: client_generated_id, device_id, last_synced_at,
 * created_at, updated_at, deleted_at. Call `addSyncIndexes` after the table exists.
 */
export function withSync<T extends string, C extends string>(tb: CreateTableBuilder<T, C>) {
  return withTimestamps(
    tb
      .addColumn('client_generated_id', 'uuid')
      .addColumn('device_id', 'bigint')
      .addColumn('last_synced_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`)),
  ).addColumn('deleted_at', 'timestamptz');
}

/** Unique (id, user_id), the target of owned foreign keys. */
export function withOwnerKey<T extends string, C extends string>(tb: CreateTableBuilder<T, C>, table: string) {
  return tb.addUniqueConstraint(`${table}_id_user_id_key`, ['id', 'user_id'] as C[]);
}

/**
 * For a table built with `withSync`: the device foreign key (a device deleted leaves the record
 * without its device half), one client id per user and table, and the sync paging index
 * (user_id, updated_at, id).
 */
export async function addSyncIndexes(db: Kysely<any>, table: string): Promise<void> {
  await ownedFk(db, table, 'device_id', 'devices', 'set null');
  await db.schema
    .createIndex(`${table}_user_client_id_key`)
    .on(table)
    .columns(['user_id', 'client_generated_id'])
    .unique()
    .where(sql.ref('client_generated_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex(`${table}_user_updated_idx`)
    .on(table)
    .columns(['user_id', 'updated_at', 'id'])
    .execute();
}

export type FkAction = 'cascade' | 'set null' | 'no action';

/**
 * `foreign key (column, user_id) references refTable (id, user_id)`.
 * 'set null' nulls only `column` (PostgreSQL 15+ column list), never user_id.
 * 'no action' protects the parent from a hard delete while children exist; deleting the
 * user still works because the check runs after the user's cascades.
 */
export async function ownedFk(
  db: Kysely<any>,
  table: string,
  column: string,
  refTable: string,
  onDelete: FkAction,
): Promise<void> {
  const action =
    onDelete === 'set null'
      ? sql`on delete set null (${sql.id(column)})`
      : onDelete === 'cascade'
        ? sql`on delete cascade`
        : sql`on delete no action`;
  await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_${column}_fkey`)}
    foreign key (${sql.id(column)}, user_id) references ${sql.table(refTable)} (id, user_id) ${action}`.execute(db);
}

/** `check (column in (...values))`, for enum-like text columns. */
export function oneOf(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/**
 * `<name>_insert`, `<name>_update` and `<name>_delete`: after-statement triggers on `table` that
 * run `fn()` with their transition tables (`new_rows`, `old_rows`; one event per trigger, as
 * transition tables require).
 */
export async function createStatementTriggers(db: Kysely<any>, table: string, name: string, fn: string): Promise<void> {
  for (const [event, referencing] of [
    ['insert', 'new table as new_rows'],
    ['update', 'old table as old_rows new table as new_rows'],
    ['delete', 'old table as old_rows'],
  ]) {
    await sql`create trigger ${sql.id(`${name}_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(referencing)} for each statement execute function ${sql.id(fn)}()`.execute(db);
  }
}

/** The random_page_cost of trigger functions whose statements find a statement's rows by key (049). */
export const KEY_LOOKUP_PAGE_COST = '1.1';

/**
 * Plans the statements of `functions` (no arguments) as if pages were in memory
 * (`random_page_cost` 1.1, `KEY_LOOKUP_PAGE_COST`) or, with `on` false, at the server's setting.
 */
export async function planFunctionsForKeyLookups(db: Kysely<any>, functions: readonly string[], on: boolean): Promise<void> {
  for (const fn of functions) {
    await (on ? sql`alter function ${sql.id(fn)}() set random_page_cost = ${sql.lit(KEY_LOOKUP_PAGE_COST)}` : sql`alter function ${sql.id(fn)}() reset random_page_cost`).execute(db);
  }
}
