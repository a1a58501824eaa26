// A configuration entry as the API shows it: the value with the JSON type it was stored as.
import type { components } from '../../generated/api.js';
import type { SyncedRow } from '../../db/sync.js';
import { syncFields } from './sync.js';

export type ConfigurationView = components['schemas']['Configuration'];
export type ConfigurationRow = SyncedRow<'configurations'>;

export function toConfiguration(row: ConfigurationRow): ConfigurationView {
  return Object.assign(syncFields(row, 'configuration'), { key: row.key, type: row.type, value: row.value });
}
