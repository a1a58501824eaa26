// Evaluating a user's rules on one incoming transaction. Rules are compiled once per rule set
// (text folded, regexes compiled, amounts as decimals) and then tested against each line.
//
// Semantics, chosen so that a rule can never loop:
// - every condition of every rule tests the incoming fields, never what another rule set:
//   rules run once per write, and their output is not fed back to them;
// - rules are tried in their order; the first matching rule that sets a field (category,
//   party, description, group, transfer wallet) decides it, later ones do not override it
//   (so the order is a priority); categories and splits are one field here (the lines name
//   the categories); notes of every matching rule are kept, in order;
// - a matching rule with `stop_after` ends the evaluation; a disabled rule is skipped.
import { Decimal } from '../money.js';
import type { RuleAction, RuleCondition, RuleDefinition, RuleSplit, TextField } from './language.js';
import { compileRegex, foldText, regexSubject } from './text.js';

/** What rules test: the fields of a transaction as it comes in. */
export interface TransactionFacts {
  description: string | null;
  /** Name of the party the line is linked to (an existing party, or one the line names). */
  partyName: string | null;
  /** The statement's own counterparty text, as the bank wrote it (imports only). */
  counterparty: string | null;
  /** Positive decimal string. */
  amount: string;
  type: 'income' | 'expense';
  walletId: number | null;
  currency: string | null;
  /** The transaction's date, YYYY-MM-DD (UTC). */
  date: string;
}

/** What the matching rules decided; a field left undefined was set by no rule. */
export interface RuleOutcome {
  categoryIds?: number[];
  /** A set_splits action's lines (made into amounts by ruleSplitLines); they name the categories. */
  splits?: RuleSplit[];
  party?: { id: number } | { name: string; create: boolean };
  description?: string;
  groupId?: number;
  notes: string[];
  transferWalletId?: number;
  skip: boolean;
  /** The name of the rule that said to skip the line. */
  skippedBy?: string;
  /** The rules that matched, in order. */
  applied: Array<{ id: number; name: string }>;
}

type Test = (facts: FoldedFacts) => boolean;

interface FoldedFacts {
  raw: TransactionFacts;
  /** The folded texts, made on first use (foldText). */
  text: Partial<Record<TextField, string | null>>;
  /** The texts as regexes read them, made on first use (regexSubject). */
  subjects: Partial<Record<TextField, string | null>>;
  amount: Decimal;
  weekday: number;
}

interface CompiledRule {
  rule: RuleDefinition;
  tests: Test[];
}

export interface CompiledRules {
  rules: CompiledRule[];
}

/** Compiles the enabled rules, in the order given (the caller orders by position). */
export function compileRules(rules: RuleDefinition[]): CompiledRules {
  return { rules: rules.filter((rule) => rule.enabled).map((rule) => ({ rule, tests: rule.conditions.map(compileCondition) })) };
}

/** The outcome of the compiled rules on one transaction's facts. */
export function evaluateRules(compiled: CompiledRules, facts: TransactionFacts): RuleOutcome {
  const outcome: RuleOutcome = { notes: [], skip: false, applied: [] };
  if (compiled.rules.length === 0) return outcome;
  const folded = foldFacts(facts);
  for (const { rule, tests } of compiled.rules) {
    const matched = rule.match === 'any' ? tests.some((test) => test(folded)) : tests.every((test) => test(folded));
    if (!matched) continue;
    outcome.applied.push({ id: rule.id, name: rule.name });
    for (const action of rule.actions) applyAction(outcome, action);
    if (outcome.skip) outcome.skippedBy ??= rule.name;
    if (rule.stop_after) break;
  }
  return outcome;
}

function applyAction(outcome: RuleOutcome, action: RuleAction): void {
  switch (action.type) {
    case 'set_categories':
      if (outcome.splits === undefined) outcome.categoryIds ??= [...new Set(action.category_ids ?? [])];
      return;
    case 'set_splits':
      if (outcome.categoryIds === undefined) outcome.splits ??= action.splits;
      return;
    case 'set_party':
      outcome.party ??= action.party_id !== undefined ? { id: action.party_id } : { name: action.party_name!.trim(), create: action.create_party === true };
      return;
    case 'set_description':
      outcome.description ??= action.description!;
      return;
    case 'set_group':
      outcome.groupId ??= action.group_id!;
      return;
    case 'add_note':
      outcome.notes.push(action.note!);
      return;
    case 'transfer_to_wallet':
      outcome.transferWalletId ??= action.wallet_id!;
      return;
    case 'skip':
      outcome.skip = true;
      return;
  }
}

function foldFacts(facts: TransactionFacts): FoldedFacts {
  return {
    raw: facts,
    text: {},
    subjects: {},
    amount: new Decimal(facts.amount).abs(),
    // ISO weekday of a calendar date: 1 Monday .. 7 Sunday
    weekday: ((new Date(`${facts.date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1,
  };
}

function compileCondition(c: RuleCondition): Test {
  switch (c.field) {
    case 'description':
    case 'party':
    case 'counterparty':
      return compileTextCondition(c, c.field);
    case 'amount': {
      const amount = new Decimal(c.amount ?? 0).abs();
      const to = new Decimal(c.amount_to ?? 0).abs();
      if (c.operator === 'above') return (f) => f.amount.greaterThan(amount);
      if (c.operator === 'below') return (f) => f.amount.lessThan(amount);
      if (c.operator === 'between') return (f) => f.amount.greaterThanOrEqualTo(amount) && f.amount.lessThanOrEqualTo(to);
      return (f) => f.amount.equals(amount);
    }
    case 'type':
      return (f) => f.raw.type === c.value;
    case 'wallet': {
      const ids = new Set(c.wallet_ids ?? []);
      return (f) => f.raw.walletId !== null && ids.has(f.raw.walletId);
    }
    case 'currency': {
      const codes = new Set([...(c.values ?? []), ...(c.value ? [c.value] : [])].map((code) => code.toUpperCase()));
      return (f) => f.raw.currency !== null && codes.has(f.raw.currency.toUpperCase());
    }
    case 'date': {
      const from = c.date_from ?? '0000-01-01';
      const to = c.date_to ?? '9999-12-31';
      return (f) => f.raw.date >= from && f.raw.date <= to;
    }
    case 'weekday': {
      const days = new Set(c.weekdays ?? []);
      return (f) => days.has(f.weekday);
    }
  }
}

const RAW_TEXT: Record<TextField, (facts: TransactionFacts) => string | null> = {
  description: (facts) => facts.description,
  party: (facts) => facts.partyName,
  counterparty: (facts) => facts.counterparty,
};

function compileTextCondition(c: RuleCondition, field: TextField): Test {
  const rawOf = RAW_TEXT[field];
  const textOf = (f: FoldedFacts) => {
    let text = f.text[field];
    if (text === undefined) {
      const raw = rawOf(f.raw);
      f.text[field] = text = raw === null || raw === '' ? null : foldText(raw);
    }
    return text;
  };
  switch (c.operator) {
    case 'regex': {
      const pattern = compileRegex(c.value!);
      return (f) => {
        let subject = f.subjects[field];
        if (subject === undefined) {
          const text = rawOf(f.raw);
          f.subjects[field] = subject = text === null || text === '' ? null : regexSubject(text);
        }
        return subject !== null && pattern.test(subject);
      };
    }
    case 'one_of': {
      const options = new Set((c.values ?? []).map(foldText));
      return (f) => {
        const text = textOf(f);
        return text !== null && options.has(text);
      };
    }
    case 'contains': {
      const needle = foldText(c.value!);
      return (f) => textOf(f)?.includes(needle) === true;
    }
    case 'starts_with': {
      const prefix = foldText(c.value!);
      return (f) => textOf(f)?.startsWith(prefix) === true;
    }
    default: {
      const value = foldText(c.value!);
      return (f) => textOf(f) === value;
    }
  }
}
