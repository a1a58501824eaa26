// Configurations: per-user settings addressed by key, one entry per (user, key) over all rows.
// Synced like every record (client ids, synced_since feeds, tombstones) but not on the
// shared crud flow, which addresses records by id: here POST is an upsert on the key (a
// deleted entry is revived) and the path names the key.
import { sql, type Kysely } from 'kysely';
import { isUniqueViolation } from '../db/errors.js';
import { feedPage } from '../db/feed.js';
import type { Database } from '../db/schema.js';
import { clientIdColumns, findByClientId, selectSynced, softDelete } from '../db/sync.js';
import { configurationValue, isConfigurationKey, type ConfigurationKey, type ConfigurationValueType, type JsonValue } from '../domain/configuration-keys.js';
import { created, done, ok } from '../server/envelope.js';
import { invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { checkClientUpdatedAt, clientIdFrom, feedOptions } from './shared/records.js';
import { toConfiguration, type ConfigurationRow } from './views/configuration.js';

const LABEL = 'Configuration';
/** A user has at most one entry per key (about two dozen), so one page holds them all. */
const ALL_ENTRIES = 100;
const CLIENT_ID_TAKEN = 'The client id is already used by another record.';

/** The caller's entry for `key`, deleted or not. */
const entryByKey = (db: Kysely<Database>, userId: number, key: string) =>
  selectSynced(db, 'configurations', userId).where('configurations.key', '=', key).executeTakeFirst() as Promise<ConfigurationRow | undefined>;

const entryById = (db: Kysely<Database>, userId: number, id: number) =>
  selectSynced(db, 'configurations', userId).where('configurations.id', '=', id).executeTakeFirstOrThrow() as Promise<ConfigurationRow>;

async function liveEntryOr404(db: Kysely<Database>, userId: number, key: string): Promise<ConfigurationRow> {
  const entry = await entryByKey(db, userId, key);
  if (!entry || entry.deleted_at) throw notFound(LABEL);
  return entry;
}

/**
 * The key a GET path names. No key is all digits, so such a path is the entry's numeric id
 * (the reference's mobile sync engine reads `configurations/{id}`); an unknown id is 404.
 */
async function keyOf(db: Kysely<Database>, userId: number, keyOrId: string): Promise<string> {
  if (!/^\d{1,15}$/.test(keyOrId)) return keyOrId;
  const entry = await selectSynced(db, 'configurations', userId).where('configurations.id', '=', Number(keyOrId)).executeTakeFirst();
  if (!entry) throw notFound(LABEL);
  return (entry as ConfigurationRow).key;
}

/** The value to store as a JSON string for jsonb; 422 on `value` when it breaks the key's rule. */
function storedValue(key: ConfigurationKey, type: ConfigurationValueType, value: unknown): string {
  const checked = configurationValue(key, type, value as JsonValue);
  if ('error' in checked) throw invalidField('value', checked.error);
  return JSON.stringify(checked.value);
}

export const configurationHandlers = {
  listConfigurations: async ({ db, user, query, services, request }: HandlerContext<'listConfigurations'>) => {
    const options = feedOptions({ ...query, limit: ALL_ENTRIES, page: 1 }, services.now(), [['configurations.id', 'asc']], { user, request, pagesByMark: false });
    const page = await feedPage(db, selectSynced(db, 'configurations', user.id), 'configurations', options);
    const rows = page.rows as ConfigurationRow[];
    return ok({ ...page.meta, per_page: Math.max(1, rows.length), last_page: 1, data: rows.map(toConfiguration) });
  },

  getConfiguration: async ({ db, user, params }: HandlerContext<'getConfiguration'>) =>
    ok(toConfiguration(await liveEntryOr404(db, user.id, await keyOf(db, user.id, params.key))), 'Configuration retrieved successfully'),

  createConfiguration: async ({ db, user, body, services }: HandlerContext<'createConfiguration'>) => {
    const value = storedValue(body.key, body.type, body.value);
    const clientId = clientIdFrom(body.client_id);
    const replayed = async () => (clientId ? await findByClientId(db, 'configurations', user.id, clientId) : undefined);
    const known = await replayed();
    if (known) return ok(toConfiguration(known), 'Configuration already exists');

    const now = services.now();
    let saved: { id: number; isNew: boolean };
    try {
      saved = await db.transaction().execute(async (trx) => {
        const before = await entryByKey(trx, user.id, body.key);
        const row = await trx
          .insertInto('configurations')
          .values({
            user_id: user.id,
            key: body.key,
            type: body.type,
            value,
            ...(await clientIdColumns(trx, user.id, clientId)),
            ...(body.created_at ? { created_at: body.created_at } : {}),
            updated_at: now,
            last_synced_at: now,
          })
          // The key's entry is updated in place, revived when deleted; its id, created_at and
          // client id stay (a client id is only attached when it has none).
          .onConflict((oc) =>
            oc.columns(['user_id', 'key']).doUpdateSet({
              type: body.type,
              value,
              deleted_at: null,
              updated_at: now,
              last_synced_at: now,
              client_generated_id: sql`coalesce(configurations.client_generated_id, excluded.client_generated_id)`,
              device_id: sql`case when configurations.client_generated_id is null then excluded.device_id else configurations.device_id end`,
            }),
          )
          .returning('id')
          .executeTakeFirstOrThrow();
        return { id: row.id, isNew: !before || before.deleted_at !== null };
      });
    } catch (error) {
      if (!isUniqueViolation(error, 'configurations_user_client_id_key')) throw error;
      // The same client id sent twice at once: the first one made the entry, this is its replay.
      const winner = await replayed();
      if (winner) return ok(toConfiguration(winner), 'Configuration already exists');
      throw invalidField('client_id', CLIENT_ID_TAKEN);
    }
    const entry = toConfiguration(await entryById(db, user.id, saved.id));
    return saved.isNew ? created(entry, 'Configuration added successfully') : ok(entry, 'Configuration updated successfully');
  },

  updateConfiguration: async ({ db, user, params, body, services }: HandlerContext<'updateConfiguration'>) => {
    const key = params.key;
    if (!isConfigurationKey(key)) throw invalidField('key', 'The selected key is invalid.');
    const entry = await liveEntryOr404(db, user.id, key);
    checkClientUpdatedAt(body.updated_at, entry.created_at);
    // Without `type` the stored type stays; a new type alone re-converts the stored value.
    const changesValue = 'value' in body || body.type !== undefined;
    const type = body.type ?? entry.type;
    const value = changesValue ? storedValue(key, type, 'value' in body ? body.value : entry.value) : undefined;
    const clientId = entry.client_generated_id ? undefined : clientIdFrom(body.client_id);
    const now = services.now();
    try {
      await db.transaction().execute(async (trx) =>
        trx
          .updateTable('configurations')
          .set({
            ...(value !== undefined ? { type, value } : {}),
            ...(await clientIdColumns(trx, user.id, clientId)),
            updated_at: now,
            last_synced_at: now,
          })
          .where('id', '=', entry.id)
          .execute(),
      );
    } catch (error) {
      if (isUniqueViolation(error, 'configurations_user_client_id_key')) throw invalidField('client_id', CLIENT_ID_TAKEN);
      throw error;
    }
    return ok(toConfiguration(await entryById(db, user.id, entry.id)), 'Configuration updated successfully');
  },

  // Soft delete: a tombstone for synced_since feeds; setting the key again revives the entry.
  deleteConfiguration: async ({ db, user, params, services }: HandlerContext<'deleteConfiguration'>) => {
    const entry = await liveEntryOr404(db, user.id, params.key);
    await softDelete(db, 'configurations', user.id, entry.id, services.now());
    return done('Configuration deleted successfully');
  },
} satisfies Partial<Handlers>;
