import type { components } from '../../generated/api.js';
import type { IconColumns } from '../../db/icons.js';
import type { SyncedRow } from '../../db/sync.js';
import { toIcon } from './icon.js';
import { syncFields } from './sync.js';

export type GroupView = components['schemas']['Group'];
export type GroupRow = SyncedRow<'groups'> & IconColumns;

export function toGroup(row: GroupRow): GroupView {
  return Object.assign(syncFields(row, 'group'), { name: row.name, slug: row.slug, description: row.description, icon: toIcon(row) });
}
