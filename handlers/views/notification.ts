import type { components } from '../../generated/api.js';
import type { SyncedRow } from '../../db/sync.js';
import { syncFields } from './sync.js';

export type NotificationView = components['schemas']['Notification'];
export type NotificationRow = SyncedRow<'notifications'>;
export type NotificationPreferencesView = components['schemas']['NotificationPreferences'];

export function toNotification(row: NotificationRow): NotificationView {
  // A notification carries the sync fields without the `sync_state` object.
  const { sync_state: _syncState, ...sync } = syncFields(row, 'notification');
  return {
    ...sync,
    type: row.type,
    title: row.title,
    body: row.body,
    data: row.data,
    read_at: row.read_at?.toISOString() ?? null,
  };
}
