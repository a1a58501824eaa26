// Notifications: the caller's in-app notifications (created by the server only) and the
// notification preferences. Listing, showing and soft delete are the shared synced-resource
// flow; marking read is particular (spec: markNotificationRead). The preferences are the
// configuration entries `notifications-*` (JSON booleans, on until set otherwise).
import { sql, type Kysely } from 'kysely';
import { isUniqueViolation } from '../db/errors.js';
import type { Database } from '../db/schema.js';
import { PREFERENCE_GROUPS as GROUPS, PREFERENCE_KEYS, preferencesOf } from '../db/notification-preferences.js';
import { clientIdColumns, selectSynced } from '../db/sync.js';
import { done, ok } from '../server/envelope.js';
import { invalidField } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { clientIdFrom } from './shared/records.js';
import { toNotification, type NotificationRow } from './views/notification.js';

const notifications = syncedResource<NotificationRow, ReturnType<typeof toNotification>>({
  table: 'notifications',
  label: 'Notification',
  select: (db, userId) => selectSynced(db, 'notifications', userId),
  view: toNotification,
  order: [['notifications.created_at', 'desc'], ['notifications.id', 'desc']],
});

/** The user's unread, non-deleted notifications. */
async function unreadCount(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The device's read time in UTC at whole seconds; 422 on `read_at` when unreadable. */
function readTimeFrom(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalidField('read_at', 'The read_at must be an ISO 8601 date-time.');
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** POST and PUT /notifications/{id}/read (spec: markNotificationRead). */
async function markRead({ db, user, params, body, services }: HandlerContext<'markNotificationRead'> | HandlerContext<'markNotificationReadAlias'>) {
  const clientId = clientIdFrom(body?.client_id);
  const readAt = readTimeFrom(body?.read_at);
  const marksRead = readAt !== undefined || clientId === undefined;
  const notification = await notifications.liveOr404(db, user.id, params.id);
  const newlyRead = marksRead && notification.read_at === null;
  const linkedClientId = notification.client_generated_id ? undefined : clientId;
  const now = services.now();
  try {
    await db.transaction().execute(async (trx) =>
      trx
        .updateTable('notifications')
        .set({
          // An already read notification keeps its original read_at.
          ...(newlyRead ? { read_at: sql<Date>`coalesce(read_at, ${readAt ?? now})` } : {}),
          ...(await clientIdColumns(trx, user.id, linkedClientId)),
          ...(newlyRead || linkedClientId ? { updated_at: now } : {}),
          last_synced_at: now,
        })
        .where('id', '=', notification.id)
        .execute(),
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidField('client_id', 'The client id is already used by another record.');
    throw error;
  }
  const changed = (await notifications.load(db, user.id, notification.id))!;
  return ok(toNotification(changed), marksRead ? 'Notification marked as read' : 'Notification synced');
}

export const notificationHandlers = {
  listNotifications: async (ctx: HandlerContext<'listNotifications'>) => {
    const unreadOnly = ctx.query.unread_only === true;
    const [page, unread] = await Promise.all([
      notifications.list(ctx, (q) => (unreadOnly ? q.where('notifications.read_at', 'is', null) : q)),
      unreadCount(ctx.db, ctx.user.id),
    ]);
    return ok({ ...page.data, unread_count: unread });
  },

  getNotification: (ctx: HandlerContext<'getNotification'>) => notifications.show(ctx),

  deleteNotification: (ctx: HandlerContext<'deleteNotification'>) => notifications.remove(ctx),

  markNotificationRead: markRead,

  markNotificationReadAlias: markRead,

  markAllNotificationsRead: async ({ db, user, services }: HandlerContext<'markAllNotificationsRead'>) => {
    const now = services.now();
    await db
      .updateTable('notifications')
      .set({ read_at: now, updated_at: now, last_synced_at: now })
      .where('user_id', '=', user.id)
      .where('read_at', 'is', null)
      .where('deleted_at', 'is', null)
      .execute();
    return done('All notifications marked as read');
  },

  getUnreadNotificationCount: async ({ db, user }: HandlerContext<'getUnreadNotificationCount'>) =>
    ok({ count: await unreadCount(db, user.id) }),

  getNotificationPreferences: async ({ db, user }: HandlerContext<'getNotificationPreferences'>) => ok(await preferencesOf(db, user.id)),

  updateNotificationPreferences: async ({ db, user, body, services }: HandlerContext<'updateNotificationPreferences'>) => {
    const sent = GROUPS.flatMap((group) =>
      Object.entries(PREFERENCE_KEYS[group]).flatMap(([name, key]) => {
        const value: unknown = (body[group] as Record<string, unknown> | undefined)?.[name];
        return value === undefined ? [] : [{ key, value: value as boolean }];
      }),
    );
    const now = services.now();
    if (sent.length > 0) {
      // An entry is updated in place (revived when deleted); a missing one is created.
      await db
        .insertInto('configurations')
        .values(
          sent.map(({ key, value }) => ({
            user_id: user.id,
            key,
            type: 'bool' as const,
            value: JSON.stringify(value),
            updated_at: now,
            last_synced_at: now,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['user_id', 'key']).doUpdateSet({
            type: 'bool',
            value: sql`excluded.value`,
            deleted_at: null,
            updated_at: now,
            last_synced_at: now,
          }),
        )
        .execute();
    }
    return ok(await preferencesOf(db, user.id), 'Notification preferences updated');
  },
} satisfies Partial<Handlers>;
