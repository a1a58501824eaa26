import type { components } from '../../generated/api.js';
import type { SyncedRow } from '../../db/sync.js';
import { syncFields } from './sync.js';

export type RuleView = components['schemas']['Rule'];
export type RuleRow = SyncedRow<'rules'>;

export function toRule(row: RuleRow): RuleView {
  return Object.assign(syncFields(row, 'rule'), {
    name: row.name,
    position: row.position,
    enabled: row.enabled,
    stop_after: row.stop_after,
    match: row.match,
    conditions: row.conditions as RuleView['conditions'],
    actions: row.actions as RuleView['actions'],
  });
}
