// Parties: the payees and payers of transactions. Everything but the party's own columns is
// the shared synced-resource flow (handlers/shared/crud.ts). Names repeat freely: a repeated
// create is recognised by its client id only. A deleted party stays as a tombstone, so
// transactions keep their party_id (they show the party as null).
import { saveIcon, withIcon } from '../db/icons.js';
import { selectSynced } from '../db/sync.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { toParty, type PartyRow } from './views/party.js';

const parties = syncedResource<PartyRow, ReturnType<typeof toParty>>({
  table: 'parties',
  label: 'Party',
  select: (db, userId) => withIcon(selectSynced(db, 'parties', userId), 'parties'),
  view: toParty,
  order: [['parties.id', 'asc']],
});

export const partyHandlers = {
  listParties: (ctx: HandlerContext<'listParties'>) => parties.list(ctx),

  getParty: (ctx: HandlerContext<'getParty'>) => parties.show(ctx),

  createParty: (ctx: HandlerContext<'createParty'>) =>
    parties.create(ctx, async (trx, columns) => {
      const { body, user } = ctx;
      const row = await trx
        .insertInto('parties')
        .values({
          ...columns,
          name: body.name,
          type: body.type ?? null,
          description: body.description ?? null,
          icon_id: await saveIcon(trx, user.id, null, body),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    }),

  updateParty: (ctx: HandlerContext<'updateParty'>) =>
    parties.update(ctx, async (trx, party, columns) => {
      const { body, user } = ctx;
      await trx
        .updateTable('parties')
        .set({
          ...columns,
          name: body.name,
          type: body.type,
          description: body.description,
          icon_id: await saveIcon(trx, user.id, party.icon_id, body),
        })
        .where('id', '=', party.id)
        .execute();
    }),

  deleteParty: (ctx: HandlerContext<'deleteParty'>) => parties.remove(ctx),
} satisfies Partial<Handlers>;
