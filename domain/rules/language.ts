// The rule language: what a rule may test and what it may do, as the API carries it, and the
// checks the schema cannot express (which fields an operator needs, a regex that compiles, a
// date range in order). Pure: evaluation is in evaluate.ts, references to the user's records
// (categories, wallets, groups, parties) are checked against the database by the handlers.
import { Decimal } from '../money.js';
import { compileRegex, RegexSyntaxError } from './text.js';

export type TextField = 'description' | 'party' | 'counterparty';
export type TextOperator = 'is' | 'contains' | 'starts_with' | 'one_of' | 'regex';
export type AmountOperator = 'eq' | 'between' | 'above' | 'below';

/**
 * One condition. Which of the value fields it uses depends on `field` and `operator`:
 * text fields: `value` (is, contains, starts_with, regex) or `values` (one_of);
 * amount: `amount` (eq, above, below), `amount` and `amount_to` (between), the absolute amount;
 * type: `value` (income or expense); wallet: `wallet_ids`; currency: `values` (or `value`);
 * date: `date_from` and/or `date_to` (inclusive); weekday: `weekdays` (ISO: 1 Monday .. 7 Sunday).
 */
export interface RuleCondition {
  field: TextField | 'amount' | 'type' | 'wallet' | 'currency' | 'date' | 'weekday';
  operator?: TextOperator | AmountOperator | 'between';
  value?: string;
  values?: string[];
  amount?: number;
  amount_to?: number;
  wallet_ids?: number[];
  date_from?: string;
  date_to?: string;
  weekdays?: number[];
}

/**
 * One line of a `set_splits` action: a share of the transaction's amount by `percent`, or a
 * fixed `amount` (the last line of an amount split may leave it out: it takes the rest).
 */
export interface RuleSplit {
  percent?: number;
  amount?: number;
  category_id?: number | null;
  party_id?: number | null;
  description?: string | null;
}

/** One action. Fields used by each type: see checkAction. */
export interface RuleAction {
  type: 'set_categories' | 'set_party' | 'set_description' | 'set_group' | 'add_note' | 'transfer_to_wallet' | 'skip' | 'set_splits';
  category_ids?: number[];
  party_id?: number;
  party_name?: string;
  /** set_party by name: create the party when the user has none of that name. */
  create_party?: boolean;
  description?: string;
  group_id?: number;
  note?: string;
  wallet_id?: number;
  splits?: RuleSplit[];
}

/** A rule as evaluation needs it (the stored record has sync fields besides). */
export interface RuleDefinition {
  id: number;
  name: string;
  /** all: every condition must hold; any: one is enough. */
  match: 'all' | 'any';
  conditions: RuleCondition[];
  actions: RuleAction[];
  enabled: boolean;
  /** When this rule matches, later rules are not evaluated. */
  stop_after: boolean;
}

export const TEXT_FIELDS: readonly TextField[] = ['description', 'party', 'counterparty'];
export const MAX_CONDITIONS = 20;
export const MAX_ACTIONS = 10;
export const MAX_TEXT = 500;

/** Field errors keyed by dotted path (`conditions.0.value`), as the API's 422 carries them. */
export type RuleErrors = Record<string, string[]>;

/**
 * The checks of a rule's conditions and actions beyond the schema's. Empty when the rule is
 * well formed. A regex is compiled here by the linear-time engine: one that does not compile
 * (or uses what RE2 refuses, such as back-references) is an error on its `value`.
 */
export function checkRule(rule: { conditions: RuleCondition[]; actions: RuleAction[] }): RuleErrors {
  const errors: RuleErrors = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  if (rule.conditions.length === 0) add('conditions', 'A rule needs at least one condition.');
  if (rule.conditions.length > MAX_CONDITIONS) add('conditions', `A rule may have at most ${MAX_CONDITIONS} conditions.`);
  if (rule.actions.length === 0) add('actions', 'A rule needs at least one action.');
  if (rule.actions.length > MAX_ACTIONS) add('actions', `A rule may have at most ${MAX_ACTIONS} actions.`);
  rule.conditions.forEach((condition, index) => checkCondition(condition, (field, message) => add(`conditions.${index}.${field}`, message)));
  const seen = new Set<string>();
  rule.actions.forEach((action, index) => {
    const at = (field: string, message: string) => add(`actions.${index}.${field}`, message);
    if (seen.has(action.type) && action.type !== 'add_note') at('type', 'Each kind of action may appear once in a rule.');
    seen.add(action.type);
    checkAction(action, at);
  });
  // the lines name the categories: one rule does not set both
  const splitting = rule.actions.findIndex((action) => action.type === 'set_splits');
  if (splitting >= 0 && seen.has('set_categories')) add(`actions.${splitting}.type`, 'set_splits names the categories (its lines\'): a rule has set_splits or set_categories, not both.');
  return errors;
}

type At = (field: string, message: string) => void;

function checkCondition(c: RuleCondition, at: At): void {
  const needs = (field: keyof RuleCondition, present: boolean, what: string) => {
    if (!present) at(field, `The ${field.replace('_', ' ')} field is required ${what}.`);
  };
  if (TEXT_FIELDS.includes(c.field as TextField)) {
    const op = c.operator;
    if (!op || !['is', 'contains', 'starts_with', 'one_of', 'regex'].includes(op)) return at('operator', 'A text condition takes is, contains, starts_with, one_of or regex.');
    if (op === 'one_of') return needs('values', nonEmptyList(c.values), 'for one_of');
    if (!c.value) return needs('value', false, `for ${op}`);
    if (op === 'regex') {
      try {
        compileRegex(c.value);
      } catch (error) {
        if (!(error instanceof RegexSyntaxError)) throw error;
        at('value', `The regular expression does not compile: ${error.message}`);
      }
    }
    return;
  }
  switch (c.field) {
    case 'amount': {
      const op = c.operator;
      if (!op || !['eq', 'between', 'above', 'below'].includes(op)) return at('operator', 'An amount condition takes eq, between, above or below.');
      needs('amount', c.amount !== undefined, `for ${op}`);
      if (op === 'between') {
        needs('amount_to', c.amount_to !== undefined, 'for between');
        if (c.amount !== undefined && c.amount_to !== undefined && new Decimal(c.amount_to).lessThan(c.amount)) at('amount_to', 'The amount to must not be below the amount.');
      }
      return;
    }
    case 'type':
      if (c.value !== 'income' && c.value !== 'expense') at('value', 'The type is income or expense.');
      return;
    case 'wallet':
      return needs('wallet_ids', nonEmptyList(c.wallet_ids), 'for a wallet condition');
    case 'currency':
      return needs('values', nonEmptyList(c.values) || Boolean(c.value), 'for a currency condition');
    case 'date':
      if (!c.date_from && !c.date_to) return at('date_from', 'A date condition needs date_from, date_to or both.');
      if (c.date_from && c.date_to && c.date_to < c.date_from) at('date_to', 'The date to must not be before the date from.');
      return;
    case 'weekday':
      return needs('weekdays', nonEmptyList(c.weekdays), 'for a weekday condition');
  }
}

function checkAction(a: RuleAction, at: At): void {
  switch (a.type) {
    case 'set_categories':
      if (!nonEmptyList(a.category_ids)) at('category_ids', 'The category ids field is required for set_categories.');
      return;
    case 'set_party':
      if (a.party_id === undefined && !a.party_name) at('party_id', 'set_party needs party_id or party_name.');
      if (a.party_id !== undefined && a.party_name) at('party_name', 'Give party_id or party_name, not both.');
      return;
    case 'set_description':
      if (!a.description) at('description', 'The description field is required for set_description.');
      return;
    case 'set_group':
      if (a.group_id === undefined) at('group_id', 'The group id field is required for set_group.');
      return;
    case 'add_note':
      if (!a.note) at('note', 'The note field is required for add_note.');
      return;
    case 'transfer_to_wallet':
      if (a.wallet_id === undefined) at('wallet_id', 'The wallet id field is required for transfer_to_wallet.');
      return;
    case 'skip':
      return;
    case 'set_splits':
      return checkRuleSplits(a.splits, at);
  }
}

function nonEmptyList(list: unknown[] | undefined): boolean {
  return Array.isArray(list) && list.length > 0;
}

export const MAX_RULE_SPLITS = 20;

/**
 * A set_splits action's lines: 2 to 20, all by `percent` (each above 0 and below 100, adding
 * up to exactly 100) or all by `amount` (each above 0; the last may leave it out to take the
 * rest), at most 4 decimals.
 */
function checkRuleSplits(splits: RuleSplit[] | undefined, at: At): void {
  if (!Array.isArray(splits) || splits.length < 2) return at('splits', 'set_splits needs at least 2 lines.');
  if (splits.length > MAX_RULE_SPLITS) return at('splits', `set_splits takes at most ${MAX_RULE_SPLITS} lines.`);
  const byPercent = splits[0].percent !== undefined;
  let sum = new Decimal(0);
  splits.forEach((line, index) => {
    const last = index === splits.length - 1;
    const field = byPercent ? 'percent' : 'amount';
    const value = byPercent ? line.percent : line.amount;
    const other = byPercent ? line.amount : line.percent;
    if (other !== undefined) return at(`splits.${index}.${byPercent ? 'amount' : 'percent'}`, "A rule's lines are all by percent or all by amount.");
    if (value === undefined) {
      if (!byPercent && last) return;
      return at(`splits.${index}.${field}`, byPercent ? 'The percent field is required: every line of a percentage split has one.' : 'The amount field is required (only the last line may leave it out, to take the rest).');
    }
    const decimal = new Decimal(value);
    if (decimal.decimalPlaces() > 4) return at(`splits.${index}.${field}`, `The ${field} may have at most 4 decimal places.`);
    if (decimal.lte(0) || (byPercent && decimal.gte(100))) return at(`splits.${index}.${field}`, byPercent ? 'The percent must be above 0 and below 100.' : 'The amount must be above 0.');
    sum = sum.plus(decimal);
  });
  if (byPercent && !sum.equals(100)) at('splits', `The percentages add up to ${sum.toFixed()}, not 100.`);
}

/** The ids of the user's records a rule names, each with the field that names it (for 404s). */
export function referencedIds(rule: { conditions: RuleCondition[]; actions: RuleAction[] }): {
  categories: Array<[path: string, id: number]>;
  wallets: Array<[path: string, id: number]>;
  groups: Array<[path: string, id: number]>;
  parties: Array<[path: string, id: number]>;
} {
  const refs = { categories: [] as Array<[string, number]>, wallets: [] as Array<[string, number]>, groups: [] as Array<[string, number]>, parties: [] as Array<[string, number]> };
  rule.conditions.forEach((c, i) => c.field === 'wallet' && c.wallet_ids?.forEach((id) => refs.wallets.push([`conditions.${i}.wallet_ids`, id])));
  rule.actions.forEach((a, i) => {
    a.category_ids?.forEach((id) => refs.categories.push([`actions.${i}.category_ids`, id]));
    if (a.wallet_id !== undefined) refs.wallets.push([`actions.${i}.wallet_id`, a.wallet_id]);
    if (a.group_id !== undefined) refs.groups.push([`actions.${i}.group_id`, a.group_id]);
    if (a.party_id !== undefined) refs.parties.push([`actions.${i}.party_id`, a.party_id]);
    a.splits?.forEach((line, j) => {
      if (line.category_id != null) refs.categories.push([`actions.${i}.splits.${j}.category_id`, line.category_id]);
      if (line.party_id != null) refs.parties.push([`actions.${i}.splits.${j}.party_id`, line.party_id]);
    });
  });
  return refs;
}
