// The user's notification preferences: configuration entries `notifications-*` holding JSON
// booleans; an entry that is not set (or deleted) counts as on (DECISIONS: everything is on by
// default). Read by the preferences endpoints and by notification delivery.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Each preference switch and the configuration entry that stores it. */
export const PREFERENCE_KEYS = {
  channels: { email: 'notifications-email', push: 'notifications-push', inapp: 'notifications-inapp' },
  types: { reminders: 'notifications-reminders', insights: 'notifications-insights', inactivity: 'notifications-inactivity' },
} as const;

export type PreferenceGroup = keyof typeof PREFERENCE_KEYS;
export const PREFERENCE_GROUPS = Object.keys(PREFERENCE_KEYS) as PreferenceGroup[];

export interface NotificationPreferences {
  channels: Record<keyof (typeof PREFERENCE_KEYS)['channels'], boolean>;
  types: Record<keyof (typeof PREFERENCE_KEYS)['types'], boolean>;
}

export async function preferencesOf(db: Kysely<Database>, userId: number): Promise<NotificationPreferences> {
  const stored = await db
    .selectFrom('configurations')
    .select(['key', 'value'])
    .where('user_id', '=', userId)
    .where('key', 'in', PREFERENCE_GROUPS.flatMap((group) => Object.values(PREFERENCE_KEYS[group])))
    .where('deleted_at', 'is', null)
    .execute();
  const valueOf = new Map(stored.map((entry) => [entry.key, entry.value]));
  const switches = (group: PreferenceGroup) =>
    Object.fromEntries(Object.entries(PREFERENCE_KEYS[group]).map(([name, key]) => [name, valueOf.get(key) !== false]));
  return { channels: switches('channels'), types: switches('types') } as NotificationPreferences;
}
