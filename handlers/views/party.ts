import type { components } from '../../generated/api.js';
import type { IconColumns } from '../../db/icons.js';
import type { SyncedRow } from '../../db/sync.js';
import { toIcon } from './icon.js';
import { syncFields } from './sync.js';

export type PartyView = components['schemas']['Party'];
export type PartyRow = SyncedRow<'parties'> & IconColumns;

export function toParty(row: PartyRow): PartyView {
  return Object.assign(syncFields(row, 'party'), { name: row.name, type: row.type, description: row.description, icon: toIcon(row) });
}
