import type { components } from '../../generated/api.js';
import type { RuleApplicationRow } from '../../db/rule-applications.js';
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

export function toRuleApplication(row: RuleApplicationRow): components['schemas']['RuleApplication'] {
  return {
    id: row.id,
    rule_id: row.rule_id,
    state: row.state,
    processed: row.processed,
    changed: row.changed,
    total: row.total,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
