// The sync bookkeeping every synced table shares (client id, device, timestamps, soft
// delete), written once. Resources call these instead of repeating the queries: finding a
// record by id or client id, attaching a client id, soft-deleting, listing a sync feed.
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { ClientId } from '../domain/client-id.js';
import type { Database } from './schema.js';

export type SyncedTable =
  | 'wallets'
  | 'groups'
  | 'parties'
  | 'categories'
  | 'transactions'
  | 'transfers'
  | 'refunds'
  | 'configurations'
  | 'budgets'
  | 'budget_period_states'
  | 'reminders'
  | 'notifications'
  | 'rules';

/** A row of a synced table with its device's token and platform (to rebuild the client id). */
export type SyncedRow<T extends SyncedTable> = Selectable<Database[T]> & {
  device_token: string | null;
  device_platform: string | null;
};

/** The sync columns a create writes besides the resource's own. */
export interface NewRecordColumns {
  user_id: number;
  client_generated_id?: string;
  device_id?: number;
  created_at?: string;
  updated_at: Date;
  last_synced_at: Date;
}

/** The sync columns an update writes besides the resource's own. */
export interface ChangedRecordColumns {
  updated_at: Date;
  last_synced_at: Date;
  client_generated_id?: string;
  device_id?: number;
}

// Generic over the table name, which Kysely cannot type; every function here returns typed rows.
type AnyDb = Kysely<any>;

/** The user's rows of a synced table, each with its device columns. Callers add filters. */
export function selectSynced<T extends SyncedTable>(
  db: Kysely<Database>,
  table: T,
  userId: number,
): SelectQueryBuilder<any, any, SyncedRow<T>> {
  const name: string = table;
  return (db as AnyDb)
    .selectFrom(name)
    .leftJoin('devices as sync_device', 'sync_device.id', `${name}.device_id`)
    .selectAll(name)
    .select(['sync_device.token as device_token', 'sync_device.platform as device_platform'])
    .where(`${name}.user_id`, '=', userId) as SelectQueryBuilder<any, any, SyncedRow<T>>;
}

/** The user's live (not deleted) record with this id. */
export async function findLive<T extends SyncedTable>(db: Kysely<Database>, table: T, userId: number, id: number): Promise<SyncedRow<T> | undefined> {
  const name: string = table;
  return (await selectSynced(db, table, userId).where(`${name}.id`, '=', id).where(`${name}.deleted_at`, 'is', null).executeTakeFirst()) as
    | SyncedRow<T>
    | undefined;
}

/** Which of these ids name live records of the user (one query for many, e.g. a batch's matches). */
export async function liveIds(db: Kysely<Database>, table: SyncedTable, userId: number, ids: number[]): Promise<Set<number>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  const rows = await sql<{ id: number | string }>`select id from ${sql.table(table)} where user_id = ${userId} and id = any(${unique}::bigint[]) and deleted_at is null`.execute(db);
  return new Set(rows.rows.map((row) => Number(row.id)));
}

/**
 * The user's record created with this client id, deleted ones included: a client id names
 * one record forever, so a replayed create finds it even after it was deleted.
 */
export async function findByClientId<T extends SyncedTable>(
  db: Kysely<Database>,
  table: T,
  userId: number,
  clientId: ClientId,
): Promise<SyncedRow<T> | undefined> {
  const name: string = table;
  return (await selectSynced(db, table, userId)
    .where(`${name}.client_generated_id`, '=', clientId.recordUuid)
    .where('sync_device.token', '=', clientId.deviceToken)
    .executeTakeFirst()) as SyncedRow<T> | undefined;
}

/** The ids among `ids` that name none of the user's live records of `table` (for 422s on references). */
export async function missingLiveIds(db: Kysely<Database>, table: SyncedTable, userId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const name: string = table;
  const rows: Array<{ id: number }> = await (db as AnyDb)
    .selectFrom(name)
    .select('id')
    .where('user_id', '=', userId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
  const found = new Set(rows.map((row) => row.id));
  return ids.filter((id) => !found.has(id));
}

/** The id of the user's device row for this token, made on first use. */
export async function deviceIdFor(db: Kysely<Database>, userId: number, deviceToken: string): Promise<number> {
  const row = await db
    .insertInto('devices')
    .values({ user_id: userId, token: deviceToken })
    .onConflict((oc) => oc.columns(['user_id', 'token']).doUpdateSet({ updated_at: new Date() }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The columns that store a client id on a record (none when no client id was sent). */
export async function clientIdColumns(
  db: Kysely<Database>,
  userId: number,
  clientId: ClientId | undefined,
): Promise<{ client_generated_id: string; device_id: number } | Record<string, never>> {
  if (!clientId) return {};
  return { client_generated_id: clientId.recordUuid, device_id: await deviceIdFor(db, userId, clientId.deviceToken) };
}

/** Soft delete: the row stays as a tombstone that `synced_since` feeds carry to clients. */
/** Marks the live row deleted; false when it was not live (gone already, or deleted by a concurrent write). */
export async function softDelete(db: Kysely<Database>, table: SyncedTable, userId: number, id: number, now: Date): Promise<boolean> {
  const result = await (db as AnyDb)
    .updateTable(table)
    .set({ deleted_at: now, updated_at: now, last_synced_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The user's live records of `table` whose name is `name` regardless of case (records with a `name` column), at most a few. */
export async function liveRecordsNamed(db: Kysely<Database>, table: 'wallets' | 'parties' | 'categories' | 'groups', userId: number, name: string): Promise<Array<{ id: number; name: string }>> {
  const rows = await sql<{ id: number | string; name: string }>`select id, name from ${sql.table(table)}
    where user_id = ${userId} and deleted_at is null and lower(name) = lower(${name}) order by id limit 10`.execute(db);
  return rows.rows.map((row) => ({ id: Number(row.id), name: row.name }));
}
