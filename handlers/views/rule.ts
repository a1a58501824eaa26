import type { components } from '../../generated/api.js';
import type { RuleApplicationRow } from '../../db/rule-applications.js';
import type { SyncedRow } from '../../db/sync.js';
import { syncFields } from './sync.js';
import type { ExistingChanges } from '../../domain/rules/existing.js';
import { moneyToJson } from '../../domain/money.js';
import type { SplitLine } from '../../domain/splits.js';

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

type SplitLineView = components['schemas']['RuleSplitLine'];

/** A split line as a review or a dry run shows it. */
export function splitLineView(line: SplitLine): SplitLineView {
  return { amount: moneyToJson(line.amount), category_id: line.categoryId, party_id: line.partyId, description: line.description };
}

/** What a rule would change on an existing transaction, as the dry run shows it. */
export function changesView(changes: ExistingChanges): components['schemas']['RulePreviewChange']['changes'] {
  const { splits, ...rest } = changes;
  return { ...rest, ...(splits && { splits: { from: splits.from.map(splitLineView), to: splits.to.map(splitLineView) } }) };
}
