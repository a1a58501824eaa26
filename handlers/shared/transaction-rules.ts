// The one path by which the user's rules (domain/rules) fill in transactions being created:
// the API's create, CSV imports and statement confirms (one row or a batch), recurring
// occurrences and the assistant's actions all call `applyRules` (or `applyRulesToMany` for a
// batch, which `applyRules` is one row of). A later edit of a transaction never calls it: the
// user wins.
//
// What a write states itself wins over a rule: categories (or split lines, which name them),
// party and group are filled only where the incoming transaction has none. A rule's
// description replaces the incoming one, its notes and its name go to the transaction's
// metadata (`rules`, `rule_notes`). References a rule names that are no longer the user's live
// records (deleted since the rule was written) are dropped, never linked.
import type { Kysely, Transaction } from 'kysely';
import { findOrCreateParties } from '../../db/import-record-names.js';
import { LRUCache } from 'lru-cache';
import { liveRules, rulesVersion } from '../../db/rules.js';
import type { Database, JsonObject } from '../../db/schema.js';
import { liveIds } from '../../db/sync.js';
import { compileRules, evaluateRules, type CompiledRules, type RuleOutcome } from '../../domain/rules/evaluate.js';
import type { RuleDefinition } from '../../domain/rules/language.js';
import { ruleSplitLines } from '../../domain/rules/splits.js';
import { splitCategoryIds, type SplitLine } from '../../domain/splits.js';
import type { TransactionEntry } from './transaction-writes.js';

/** A user's rules, compiled once for the writes of one request, job run or import batch. */
export interface UserRules {
  compiled: CompiledRules;
  /** Whether a condition reads the party's name or the currency (looked up only then). */
  readsParty: boolean;
  readsCurrency: boolean;
}

// Compiled rules per user, with the version of the rule set they were compiled from: a
// per-process cache that is correct by construction, since every write of a rule changes the
// version (db/rules.ts), and a hit costs one small aggregate instead of reading and compiling
// every rule on each write.
const compiledRules = new LRUCache<number, { version: string; rules: UserRules }>({ max: 2_000 });

export async function loadUserRules(db: Kysely<Database>, userId: number): Promise<UserRules> {
  const version = await rulesVersion(db, userId);
  const cached = compiledRules.get(userId);
  if (cached?.version === version) return cached.rules;
  // read after the version: a rule written in between makes the version older than the rules,
  // which the next write's version check sees as a miss (never a stale hit)
  const rules = userRulesOf(await liveRules(db, userId));
  compiledRules.set(userId, { version, rules });
  return rules;
}

export function userRulesOf(rules: RuleDefinition[]): UserRules {
  const reads = (field: string) => rules.some((rule) => rule.conditions.some((c) => c.field === field));
  return { compiled: compileRules(rules), readsParty: reads('party'), readsCurrency: reads('currency') };
}

/** An incoming transaction as rules see it, with what its write states. */
export interface RuleInput {
  type: 'income' | 'expense';
  amount: string;
  walletId: number | null;
  /** The transaction's time (its UTC date is what date and weekday conditions test, unless `date` says it). */
  datetime: Date;
  /** The transaction's calendar date, YYYY-MM-DD, when known as such (an imported line's). */
  date?: string;
  description: string | null;
  partyId: number | null;
  /** The party's name when the write names one without an id yet (an import row). */
  partyName?: string | null;
  /** The statement's own counterparty text (imports). */
  counterparty?: string | null;
  currency?: string | null;
  categoryIds: number[];
  groupId: number | null;
  /** The write states split lines (a rule's set_splits then does not apply, as for categories). */
  statesSplits?: boolean;
}

/** The fields of an incoming transaction after the rules, and what they decided beyond them. */
export interface RuledFields {
  description: string | null;
  partyId: number | null;
  categoryIds: number[];
  /** The categories the rules set (live ones; a set_splits' lines' ones), whatever the write stated: for a caller whose categories are a guess. */
  ruleCategoryIds: number[];
  /** The lines a set_splits made for the amount where the write states no categories or lines, else null; their categories are `categoryIds`. */
  splits: SplitLine[] | null;
  /** The lines a set_splits made, whatever the write stated (references no longer live left out): for a caller whose categories are a guess. */
  ruleSplits: SplitLine[] | null;
  groupId: number | null;
  /** The rules applied and their notes, for the transaction's metadata; null when none applied. */
  metadata: JsonObject | null;
  /** A rule said to leave the line out of the import (the rule's name), else null. */
  skippedBy: string | null;
  /** A rule said the line is a transfer with this wallet (imports). */
  transferWalletId: number | null;
  applied: Array<{ id: number; name: string }>;
}

/** The rules applied to one incoming transaction. */
export async function applyRules(trx: Transaction<Database>, userId: number, rules: UserRules, input: RuleInput, now: Date): Promise<RuledFields> {
  return (await applyRulesToMany(trx, userId, rules, [input], now))[0];
}

/** The rules applied to many incoming transactions at once: a few queries for the whole batch. */
export function applyRulesToMany(trx: Transaction<Database>, userId: number, rules: UserRules, inputs: RuleInput[], now: Date): Promise<RuledFields[]> {
  return ruledFieldsOf(trx, userId, rules, inputs, (names) => findOrCreateParties(trx, userId, names, now));
}

/**
 * What the rules would do to these incoming transactions, with no write: the same evaluation
 * as applyRulesToMany, but a party a rule would create is only named, never
 * made. For a review of lines before they are written (an import's suggestions).
 */
export async function previewRules(db: Kysely<Database>, userId: number, rules: UserRules, inputs: RuleInput[]): Promise<Array<RuledFields & { ruledPartyId: number | null; ruledPartyName: string | null }>> {
  const ruled = await ruledFieldsOf(db, userId, rules, inputs, (names) => existingParties(db, userId, names));
  return ruled.map((fields) => ({ ...fields, ruledPartyId: fields.ruledParty?.id ?? null, ruledPartyName: fields.ruledParty?.name ?? null }));
}

interface Resolved extends RuledFields {
  /** The party the rules set (id when it exists, else the name a rule would create), whatever the write states. */
  ruledParty?: { id: number | null; name: string | null };
}

async function ruledFieldsOf(
  trx: Kysely<Database>,
  userId: number,
  rules: UserRules,
  inputs: RuleInput[],
  partiesNamed: (names: string[]) => Promise<Map<string, number>>,
): Promise<Resolved[]> {
  const unchanged = (input: RuleInput): RuledFields => ({
    description: input.description,
    partyId: input.partyId,
    categoryIds: input.categoryIds,
    ruleCategoryIds: [],
    splits: null,
    ruleSplits: null,
    groupId: input.groupId,
    metadata: null,
    skippedBy: null,
    transferWalletId: null,
    applied: [],
  });
  if (rules.compiled.rules.length === 0 || inputs.length === 0) return inputs.map(unchanged);

  const partyNames = rules.readsParty ? await namesOf(trx, userId, inputs) : new Map<number, string>();
  const currencies = rules.readsCurrency ? await currenciesOf(trx, userId, inputs) : new Map<number, string>();
  const outcomes = inputs.map((input) =>
    evaluateRules(rules.compiled, {
      description: input.description,
      partyName: input.partyName ?? (input.partyId !== null ? (partyNames.get(input.partyId) ?? null) : null),
      counterparty: input.counterparty ?? null,
      amount: input.amount,
      type: input.type,
      walletId: input.walletId,
      currency: input.currency ?? (input.walletId !== null ? (currencies.get(input.walletId) ?? null) : null),
      date: input.date ?? input.datetime.toISOString().slice(0, 10),
    }),
  );
  if (outcomes.every((outcome) => outcome.applied.length === 0)) return inputs.map(unchanged);

  const live = await liveReferences(trx, userId, outcomes);
  // parties named by a rule: found by exact name, created where the rule asks for it
  const wanted = outcomes.flatMap((o, i) => (o.party && 'name' in o.party && inputs[i].partyId === null && !inputs[i].partyName ? [o.party] : []));
  const created = await partiesNamed(wanted.filter((p) => p.create).map((p) => p.name));
  const found = await existingParties(trx, userId, wanted.filter((p) => !p.create).map((p) => p.name));

  return inputs.map((input, i): Resolved => {
    const outcome = outcomes[i];
    if (outcome.applied.length === 0) return unchanged(input);
    const ruledParty = !outcome.party ? null : 'id' in outcome.party ? (live.parties.has(outcome.party.id) ? outcome.party.id : null) : (created.get(outcome.party.name) ?? found.get(outcome.party.name) ?? null);
    const ruledPartyName = outcome.party && 'name' in outcome.party && (outcome.party.create || ruledParty !== null) ? outcome.party.name : null;
    const made = outcome.splits ? ruleSplitLines(input.amount, outcome.splits) : undefined;
    const ruleSplits = made && 'lines' in made ? made.lines.map((line) => liveLine(line, live)) : null;
    const categoryIds = ruleSplits ? splitCategoryIds(ruleSplits) : (outcome.categoryIds ?? []).filter((id) => live.categories.has(id));
    const statesCategories = input.categoryIds.length > 0 || input.statesSplits === true;
    const metadata: JsonObject = { rules: outcome.applied };
    if (outcome.notes.length > 0) metadata.rule_notes = outcome.notes;
    if (made && 'reason' in made && !statesCategories) metadata.splits_not_set = made.reason;
    return {
      description: outcome.description ?? input.description,
      // a party the write names (by id, or by a name an import resolves) wins
      partyId: input.partyId ?? (input.partyName ? null : ruledParty),
      categoryIds: statesCategories ? input.categoryIds : categoryIds,
      ruleCategoryIds: categoryIds,
      splits: statesCategories ? null : ruleSplits,
      ruleSplits,
      groupId: input.groupId ?? (outcome.groupId !== undefined && live.groups.has(outcome.groupId) ? outcome.groupId : null),
      metadata,
      skippedBy: outcome.skippedBy ?? null,
      transferWalletId: outcome.transferWalletId !== undefined && live.wallets.has(outcome.transferWalletId) ? outcome.transferWalletId : null,
      applied: outcome.applied,
      ruledParty: ruledParty !== null || ruledPartyName !== null ? { id: ruledParty, name: ruledPartyName } : undefined,
    };
  });
}

/** A rule's line with a category or party deleted since the rule was written left out of it (never linked). */
function liveLine(line: SplitLine, live: { categories: Set<number>; parties: Set<number> }): SplitLine {
  return {
    ...line,
    categoryId: line.categoryId !== null && live.categories.has(line.categoryId) ? line.categoryId : null,
    partyId: line.partyId !== null && live.parties.has(line.partyId) ? line.partyId : null,
  };
}

async function liveReferences(trx: Kysely<Database>, userId: number, outcomes: RuleOutcome[]) {
  const ids = { categories: [] as number[], groups: [] as number[], parties: [] as number[], wallets: [] as number[] };
  for (const outcome of outcomes) {
    ids.categories.push(...(outcome.categoryIds ?? []));
    for (const line of outcome.splits ?? []) {
      if (line.category_id != null) ids.categories.push(line.category_id);
      if (line.party_id != null) ids.parties.push(line.party_id);
    }
    if (outcome.groupId !== undefined) ids.groups.push(outcome.groupId);
    if (outcome.party && 'id' in outcome.party) ids.parties.push(outcome.party.id);
    if (outcome.transferWalletId !== undefined) ids.wallets.push(outcome.transferWalletId);
  }
  return {
    categories: await liveIds(trx, 'categories', userId, ids.categories),
    groups: await liveIds(trx, 'groups', userId, ids.groups),
    parties: await liveIds(trx, 'parties', userId, ids.parties),
    wallets: await liveIds(trx, 'wallets', userId, ids.wallets),
  };
}

async function namesOf(trx: Kysely<Database>, userId: number, inputs: RuleInput[]): Promise<Map<number, string>> {
  const ids = [...new Set(inputs.flatMap((input) => (input.partyId !== null && !input.partyName ? [input.partyId] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await trx.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

async function currenciesOf(trx: Kysely<Database>, userId: number, inputs: RuleInput[]): Promise<Map<number, string>> {
  const ids = [...new Set(inputs.flatMap((input) => (input.walletId !== null && !input.currency ? [input.walletId] : [])))];
  if (ids.length === 0) return new Map();
  const rows = await trx.selectFrom('wallets').select(['id', 'currency']).where('user_id', '=', userId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.currency]));
}

async function existingParties(trx: Kysely<Database>, userId: number, names: string[]): Promise<Map<string, number>> {
  const unique = [...new Set(names)];
  if (unique.length === 0) return new Map();
  const rows = await trx.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('name', 'in', unique).where('deleted_at', 'is', null).orderBy('id').execute();
  const found = new Map<string, number>();
  for (const row of rows) if (!found.has(row.name)) found.set(row.name, row.id);
  return found;
}

/** The entry's metadata with the rules' merged in (the rules' keys win). */
export function withRuleMetadata(metadata: JsonObject | null | undefined, ruled: RuledFields): JsonObject | null {
  if (!ruled.metadata) return metadata ?? null;
  return { ...(metadata ?? {}), ...ruled.metadata };
}

/** A single write's entry after the user's rules (loaded here); what it states wins. */
export async function applyRulesToEntry(
  trx: Transaction<Database>,
  userId: number,
  entry: TransactionEntry,
  now: Date,
  facts: { counterparty?: string | null; partyName?: string | null; currency?: string | null } = {},
  rules?: UserRules,
): Promise<TransactionEntry & { ruled: RuledFields }> {
  const ruled = await applyRules(
    trx,
    userId,
    rules ?? (await loadUserRules(trx, userId)),
    {
      type: entry.type,
      amount: entry.amount,
      walletId: entry.walletId,
      datetime: entry.datetime,
      description: entry.description ?? null,
      partyId: entry.partyId ?? null,
      categoryIds: entry.categoryIds ?? [],
      groupId: entry.groupId ?? null,
      statesSplits: (entry.splits?.length ?? 0) > 0,
      ...facts,
    },
    now,
  );
  if (ruled.applied.length === 0) return { ...entry, ruled };
  return {
    ...entry,
    description: ruled.description,
    partyId: ruled.partyId,
    categoryIds: ruled.categoryIds,
    splits: ruled.splits ?? entry.splits,
    groupId: ruled.groupId,
    metadata: withRuleMetadata(entry.metadata, ruled),
    ruled,
  };
}

/** Why a line a rule skips is not imported (the row's reason, naming the rule). */
export function skippedByRule(ruled: RuledFields): string {
  return `Left out by the rule "${ruled.skippedBy}".`;
}
