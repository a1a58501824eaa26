// Learned rules: what a user's corrections of imported lines propose. A correction is keyed by
// the line's own text (the statement's counterparty, else its description) folded as rules
// compare text, so "REWE Markt GmbH" and "REWE MARKT GMBH" are one counterparty; a proposal is
// the rule that would have filed those lines as the user did. Pure: storing corrections and
// offering proposals is in db/rule-proposals.ts and handlers/rule-proposals.ts.
import type { RuleAction, RuleCondition } from './language.js';
import { MAX_TEXT } from './language.js';
import { foldText } from './text.js';

/** Corrections of one text to one value before a rule is proposed. */
export const CORRECTIONS_TO_PROPOSE = 2;

export type LineField = 'counterparty' | 'description';

/** The text of an imported line a learned rule tests, with the field it is in; undefined when the line has none. */
export function learnedLine(line: { counterparty: string | null; description: string | null }): { field: LineField; text: string; key: string } | undefined {
  for (const field of ['counterparty', 'description'] as const) {
    const text = line[field]?.trim().slice(0, MAX_TEXT);
    const key = text ? foldText(text) : '';
    if (text && key) return { field, text, key };
  }
  return undefined;
}

/** The correction a changed category or party makes, or undefined when it teaches nothing. */
export function correctionsOf(
  before: { categoryIds: number[]; partyId: number | null },
  after: { categoryIds?: number[]; partyId?: number | null },
): Array<{ kind: 'category'; to: number; from: number[] } | { kind: 'party'; to: number; from: number[] }> {
  const out: Array<{ kind: 'category'; to: number; from: number[] } | { kind: 'party'; to: number; from: number[] }> = [];
  if (after.categoryIds !== undefined) {
    const to = [...new Set(after.categoryIds)];
    // one category is what a rule proposes: a line filed under several is not learned from
    if (to.length === 1 && !(before.categoryIds.length === 1 && before.categoryIds[0] === to[0])) out.push({ kind: 'category', to: to[0], from: [...before.categoryIds].sort((a, b) => a - b) });
  }
  if (after.partyId !== undefined && after.partyId !== null && after.partyId !== before.partyId) {
    out.push({ kind: 'party', to: after.partyId, from: before.partyId === null ? [] : [before.partyId] });
  }
  return out;
}

/** A proposal as the rule it would create (the shape of POST /v1/rules). */
export interface ProposedRule {
  name: string;
  match: 'all';
  conditions: RuleCondition[];
  actions: RuleAction[];
}

export function proposedRule(proposal: { field: LineField; text: string; kind: 'category' | 'party'; targetId: number; targetName: string }): ProposedRule {
  const action: RuleAction = proposal.kind === 'category' ? { type: 'set_categories', category_ids: [proposal.targetId] } : { type: 'set_party', party_id: proposal.targetId };
  return {
    name: `${proposal.text}: ${proposal.targetName}`.slice(0, 255),
    match: 'all',
    conditions: [{ field: proposal.field, operator: 'is', value: proposal.text }],
    actions: [action],
  };
}
