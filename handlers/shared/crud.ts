// The flow every synced resource shares, written once: list (a sync feed when asked), show,
// create (a repeated client_id returns the existing record and writes nothing), update (a
// client_id adopts a record that has none, never replaces one; an offline updated_at may not
// precede created_at), soft delete. A resource supplies its table, its row query, its view
// and the few column writes particular to it.
import type { FastifyRequest } from 'fastify';
import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { ClientId } from '../../domain/client-id.js';
import { isUniqueViolation } from '../../db/errors.js';
import { feedPage, type FeedOptions } from '../../db/feed.js';
import type { Database } from '../../db/schema.js';
import { clientIdColumns, findByClientId, softDelete, type ChangedRecordColumns, type NewRecordColumns, type SyncedTable } from '../../db/sync.js';
import { created, done, ok } from '../../server/envelope.js';
import { invalidField, notFound } from '../../server/errors.js';
import type { AuthUser } from '../../server/handler-types.js';
import type { AppServices } from '../../server/services.js';
import { checkClientUpdatedAt, clientIdFrom, feedOptions, type ListQuery } from './records.js';

interface Ctx {
  user: AuthUser;
  db: Kysely<Database>;
  services: AppServices;
  request: FastifyRequest;
}

interface RecordRow {
  id: number;
  created_at: Date;
  updated_at: Date;
  last_synced_at: Date;
  client_generated_id: string | null;
  deleted_at: Date | null;
}

export interface ResourceConfig<Row extends RecordRow, View> {
  table: SyncedTable;
  /** Singular, capitalised: messages say "Group not found." */
  label: string;
  /** The user's rows with everything the view needs (deleted ones included). */
  select(db: Kysely<Database>, userId: number): SelectQueryBuilder<any, any, Row>;
  view(row: Row): View;
  /** Order of a plain listing (sync feeds are ordered by updated_at, id). */
  order: FeedOptions['order'];
  /**
   * The user's rows without the joins `select` adds columns with, for a table whose lists go
   * deep (db/feed.ts `bare`); `list`'s filter must then use the table's own columns only.
   */
  bare?: (db: Kysely<Database>, userId: number) => SelectQueryBuilder<any, any, any>;
}

/** A unique violation on any table's (user_id, client_generated_id) index. */
function isClientIdClash(error: unknown): boolean {
  return isUniqueViolation(error) && String((error as { constraint?: string }).constraint).endsWith('_user_client_id_key');
}

export function syncedResource<Row extends RecordRow, View>(config: ResourceConfig<Row, View>) {
  const { table, label } = config;

  const load = (db: Kysely<Database>, userId: number, id: number) =>
    config.select(db, userId).where(`${table}.id`, '=', id).executeTakeFirst() as Promise<Row | undefined>;

  async function liveOr404(db: Kysely<Database>, userId: number, id: number): Promise<Row> {
    const row = await load(db, userId, id);
    if (!row || row.deleted_at) throw notFound(label);
    return row;
  }

  async function replayed(db: Kysely<Database>, userId: number, clientId: ClientId | undefined) {
    if (!clientId) return undefined;
    const existing = await findByClientId(db, table, userId, clientId);
    return existing ? load(db, userId, existing.id) : undefined;
  }

  return {
    liveOr404,
    load,

    /** Lists the caller's records; `filter` narrows by the resource's own query parameters. */
    async list(
      ctx: Ctx & { query: ListQuery },
      filter: (q: SelectQueryBuilder<any, any, Row>) => SelectQueryBuilder<any, any, Row> = (q) => q,
      /** What the resource knows or reads on its own: see FeedOptions. */
      feed: Pick<FeedOptions, 'countLive' | 'horizon' | 'pageStart'> & { alongside?: (rows: Row[]) => Promise<unknown> } = {},
    ) {
      const bare = config.bare && filter(config.bare(ctx.db, ctx.user.id));
      const reader = { user: ctx.user, request: ctx.request, cursorKey: await ctx.services.appKey() };
      const options = { ...feedOptions(ctx.query, ctx.services.now(), config.order, reader), ...feed, bare };
      const page = await feedPage(ctx.db, filter(config.select(ctx.db, ctx.user.id)), table, options);
      return ok({ ...page.meta, data: page.rows.map(config.view) });
    },

    async show(ctx: Ctx & { params: { id: number } }) {
      return ok(config.view(await liveOr404(ctx.db, ctx.user.id, ctx.params.id)));
    },

    /** Creates a record with `insert`, which writes the row (with `columns`) and returns its id. */
    async create(
      ctx: Ctx & { body: { client_id?: string | null; created_at?: string } },
      insert: (trx: Transaction<Database>, columns: NewRecordColumns) => Promise<number>,
    ) {
      const { user, db, body } = ctx;
      const clientId = clientIdFrom(body.client_id);
      const existing = await replayed(db, user.id, clientId);
      if (existing) return ok(config.view(existing), `${label} already exists`);
      const now = ctx.services.now();
      for (let attempt = 1; ; attempt++) {
        try {
          const id = await db.transaction().execute(async (trx) =>
            insert(trx, {
              user_id: user.id,
              ...(await clientIdColumns(trx, user.id, clientId)),
              ...(body.created_at ? { created_at: body.created_at } : {}),
              updated_at: now,
              last_synced_at: now,
            }),
          );
          return created(config.view((await load(db, user.id, id))!), `${label} created successfully`);
        } catch (error) {
          // Simultaneous creates with one client id: whatever refused this one (the client-id
          // index, or a rule such as unique category names that the winner's row now breaks),
          // the record the client meant exists, so this is a replay. A known client id always
          // wins over a uniqueness rule.
          const winner = await replayed(db, user.id, clientId);
          if (winner) return ok(config.view(winner), `${label} already exists`);
          if (!isUniqueViolation(error)) throw error;
          // Otherwise two new records chose one slug: the later one picks the next slug.
          if (isClientIdClash(error)) throw invalidField('client_id', 'The client id is already used by another record.');
          if (!isUniqueViolation(error, `${table}_user_slug_key`) || attempt >= 5) throw error;
        }
      }
    },

    /** Updates a live record with `write`, which changes the row (with `columns`). */
    async update(
      ctx: Ctx & { params: { id: number }; body: { client_id?: string | null; updated_at?: string } },
      write: (trx: Transaction<Database>, row: Row, columns: ChangedRecordColumns) => Promise<void>,
    ) {
      const { user, db, body } = ctx;
      const row = await liveOr404(db, user.id, ctx.params.id);
      checkClientUpdatedAt(body.updated_at, row.created_at);
      const clientId = row.client_generated_id ? undefined : clientIdFrom(body.client_id);
      const now = ctx.services.now();
      try {
        await db.transaction().execute(async (trx) =>
          write(trx, row, { updated_at: now, last_synced_at: now, ...(await clientIdColumns(trx, user.id, clientId)) }),
        );
      } catch (error) {
        if (isClientIdClash(error)) throw invalidField('client_id', 'The client id is already used by another record.');
        throw error;
      }
      return ok(config.view((await load(db, user.id, row.id))!), `${label} updated successfully`);
    },

    /**
     * Soft-deletes a live record; `before` undoes what the record's existence did (balances...),
     * `after` reacts to its absence (budget alerts), both in the delete's database transaction.
     */
    async remove(
      ctx: Ctx & { params: { id: number } },
      before?: (trx: Transaction<Database>, row: Row) => Promise<void>,
      after?: (trx: Transaction<Database>, row: Row) => Promise<void>,
    ) {
      const { user, db } = ctx;
      const row = await liveOr404(db, user.id, ctx.params.id);
      await db.transaction().execute(async (trx) => {
        await before?.(trx, row);
        // Two deletes at once both find the row live above; the second waits on the first's
        // row lock here, then finds it deleted: 404, and its `before` is rolled back.
        if (!(await softDelete(trx, table, user.id, row.id, ctx.services.now()))) throw notFound(label);
        await after?.(trx, row);
      });
      return done(`${label} deleted successfully`);
    },
  };
}
