// What one rule would change on a transaction that exists already (the dry run and "apply to
// existing"). Unlike a create, this is the user's explicit request to file what is there: the
// rule's values replace the transaction's (categories, party, description, group); its notes and
// its name are added to the metadata once. A transaction already as the rule would make it has
// no change, so applying twice changes nothing the second time. Skip and transfer actions only
// mean something on import and are left out here. A split transaction's categories are its
// lines': set_categories leaves them alone, set_splits replaces the lines (and so the
// categories); amounts a set_splits cannot fit to the transaction change nothing.
import { Decimal } from '../money.js';
import { splitCategoryIds, type SplitLine } from '../splits.js';
import { compileRules, evaluateRules, type TransactionFacts } from './evaluate.js';
import type { RuleDefinition } from './language.js';
import { ruleSplitLines } from './splits.js';

export interface ExistingTransaction {
  id: number;
  description: string | null;
  amount: string;
  type: 'income' | 'expense';
  walletId: number;
  currency: string | null;
  date: string;
  partyId: number | null;
  partyName: string | null;
  groupId: number | null;
  categoryIds: number[];
  /** Its split lines, in order (none: not split). */
  splits: SplitLine[];
  metadata: Record<string, unknown> | null;
}

/** One field's change, as the dry run shows it. */
export interface FieldChange<T> {
  from: T;
  to: T;
}

export interface ExistingChanges {
  description?: FieldChange<string | null>;
  category_ids?: FieldChange<number[]>;
  party_id?: FieldChange<number | null>;
  /** The party the rule names by a name the user has no party of yet (created on apply when the rule says so). */
  party_name?: FieldChange<string | null>;
  group_id?: FieldChange<number | null>;
  /** The lines a set_splits gives the transaction (its categories follow, in `category_ids`). */
  splits?: FieldChange<SplitLine[]>;
  /** The metadata after the rule's name and notes are added (undefined when they are there already). */
  metadata?: Record<string, unknown>;
}

export type RuleOnExisting = (tx: ExistingTransaction) => { matched: boolean; changes: ExistingChanges | null };

/**
 * The rule compiled for existing transactions; `partyIdByName` tells which of the user's live
 * parties a name names (the caller looks them up once for the rule).
 */
export function ruleOnExisting(rule: RuleDefinition, partyIdByName: Map<string, number>): RuleOnExisting {
  const compiled = compileRules([{ ...rule, enabled: true, stop_after: true }]);
  return (tx) => {
    const facts: TransactionFacts = {
      description: tx.description,
      partyName: tx.partyName,
      counterparty: null,
      amount: tx.amount,
      type: tx.type,
      walletId: tx.walletId,
      currency: tx.currency,
      date: tx.date,
    };
    const outcome = evaluateRules(compiled, facts);
    if (outcome.applied.length === 0) return { matched: false, changes: null };
    const changes: ExistingChanges = {};
    if (outcome.description !== undefined && outcome.description !== tx.description) changes.description = { from: tx.description, to: outcome.description };
    const made = outcome.splits ? ruleSplitLines(tx.amount, outcome.splits) : undefined;
    const lines = made && 'lines' in made ? made.lines : undefined;
    if (lines && !sameLines(lines, tx.splits)) changes.splits = { from: tx.splits, to: lines };
    const categoryIds = lines ? splitCategoryIds(lines) : tx.splits.length > 0 ? undefined : outcome.categoryIds;
    if (categoryIds) {
      const to = [...categoryIds].sort((a, b) => a - b);
      const from = [...tx.categoryIds].sort((a, b) => a - b);
      if (to.join(',') !== from.join(',')) changes.category_ids = { from, to };
    }
    if (outcome.party) {
      const to = 'id' in outcome.party ? outcome.party.id : (partyIdByName.get(outcome.party.name) ?? null);
      if (to !== null && to !== tx.partyId) changes.party_id = { from: tx.partyId, to };
      if (to === null && 'name' in outcome.party && outcome.party.create) changes.party_name = { from: tx.partyName, to: outcome.party.name };
    }
    if (outcome.groupId !== undefined && outcome.groupId !== tx.groupId) changes.group_id = { from: tx.groupId, to: outcome.groupId };
    const metadata = withRuleMark(tx.metadata, rule, outcome.notes);
    if (metadata) changes.metadata = metadata;
    return { matched: true, changes: Object.keys(changes).length > 0 ? changes : null };
  };
}

function sameLines(a: readonly SplitLine[], b: readonly SplitLine[]): boolean {
  return (
    a.length === b.length &&
    a.every((line, i) => new Decimal(line.amount).equals(b[i].amount) && line.categoryId === b[i].categoryId && line.partyId === b[i].partyId && line.description === b[i].description)
  );
}

/** The metadata with the rule's name and notes added, or undefined when both are there already. */
function withRuleMark(metadata: Record<string, unknown> | null, rule: RuleDefinition, notes: string[]): Record<string, unknown> | undefined {
  const rules = Array.isArray(metadata?.rules) ? (metadata!.rules as Array<{ id?: number }>) : [];
  const kept = Array.isArray(metadata?.rule_notes) ? (metadata!.rule_notes as string[]) : [];
  const newNotes = notes.filter((note) => !kept.includes(note));
  const marked = rules.some((r) => r?.id === rule.id);
  if (marked && newNotes.length === 0) return undefined;
  return {
    ...(metadata ?? {}),
    rules: marked ? rules : [...rules, { id: rule.id, name: rule.name }],
    ...(kept.length + newNotes.length > 0 ? { rule_notes: [...kept, ...newNotes] } : {}),
  };
}
