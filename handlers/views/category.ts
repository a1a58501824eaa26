import type { components } from '../../generated/api.js';
import type { IconColumns } from '../../db/icons.js';
import type { SyncedRow } from '../../db/sync.js';
import { toIcon } from './icon.js';
import { syncFields } from './sync.js';

export type CategoryView = components['schemas']['Category'];
export type CategoryRow = SyncedRow<'categories'> & IconColumns;

export function toCategory(row: CategoryRow): CategoryView {
  return Object.assign(syncFields(row, 'category'), {
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    icon: toIcon(row),
  });
}
