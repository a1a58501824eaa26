// Groups: user-defined groups of transactions. Everything but the group's own columns is the
// shared synced-resource flow (handlers/shared/crud.ts).
import { saveIcon, withIcon } from '../db/icons.js';
import { uniqueSlug } from '../db/slugs.js';
import { selectSynced } from '../db/sync.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { toGroup, type GroupRow } from './views/group.js';

const groups = syncedResource<GroupRow, ReturnType<typeof toGroup>>({
  table: 'groups',
  label: 'Group',
  select: (db, userId) => withIcon(selectSynced(db, 'groups', userId), 'groups'),
  view: toGroup,
  order: [['groups.id', 'asc']],
});

export const groupHandlers = {
  listGroups: (ctx: HandlerContext<'listGroups'>) => groups.list(ctx),

  getGroup: (ctx: HandlerContext<'getGroup'>) => groups.show(ctx),

  createGroup: (ctx: HandlerContext<'createGroup'>) =>
    groups.create(ctx, async (trx, columns) => {
      const { body, user } = ctx;
      const row = await trx
        .insertInto('groups')
        .values({
          ...columns,
          name: body.name,
          slug: await uniqueSlug(trx, 'groups', user.id, body.name),
          description: body.description ?? null,
          icon_id: await saveIcon(trx, user.id, null, body),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }),

  updateGroup: (ctx: HandlerContext<'updateGroup'>) =>
    groups.update(ctx, async (trx, group, columns) => {
      const { body, user } = ctx;
      await trx
        .updateTable('groups')
        .set({
          // Kysely leaves out undefined values: a field the body omits keeps its value.
          ...columns,
          name: body.name,
          description: body.description,
          icon_id: await saveIcon(trx, user.id, group.icon_id, body),
        })
        .where('id', '=', group.id)
        .execute();
    }),

  deleteGroup: (ctx: HandlerContext<'deleteGroup'>) => groups.remove(ctx),
} satisfies Partial<Handlers>;
