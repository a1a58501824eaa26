// What the user's rules will do to an import's suggestions, shown in the review before any
// confirm: the same evaluation the confirm runs (transaction-rules.ts), with no write. It is
// worked out when the suggestions are read, not stored by the analysis, so the review always
// shows the rules as they are now, which are the rules a confirm will apply.
import type { Kysely } from 'kysely';
import type { ImportSuggestionRow } from '../../db/import-sessions.js';
import type { Database } from '../../db/schema.js';
import { Decimal } from '../../domain/money.js';
import type { SplitLine } from '../../domain/splits.js';
import { loadUserRules, previewRules, skippedByRule, type RuleInput } from './transaction-rules.js';

/** What the rules do to one suggestion, as the review shows it. */
export interface SuggestionRules {
  rules: Array<{ id: number; name: string }>;
  categoryIds: number[];
  /** The first of `categoryIds` with its name: what the suggestion's category becomes. */
  category: { id: number; name: string } | null;
  /** The party the rules set where the line matched none (a name: the party a rule would create, or the one found by it). */
  partyId: number | null;
  partyName: string | null;
  description: string | null;
  groupId: number | null;
  /** Why the line is left out (naming the rule), or null. */
  skippedReason: string | null;
  /** The wallet a rule books the line as a transfer with (transfer_to_wallet), or null. */
  transferWalletId: number | null;
  /** The lines a set_splits makes of the amount, or null; why it does not, or null. */
  splits: SplitLine[] | null;
  splitsNotSet: string | null;
}

/**
 * The rules' outcome for each pending (or failed) suggestion a rule matches, by suggestion id.
 * Lines already imported, and lines no confirm could import as they are (no amount above 0, no
 * date), are not evaluated.
 */
export async function suggestionRulesOf(db: Kysely<Database>, userId: number, rows: ImportSuggestionRow[]): Promise<Map<number, SuggestionRules>> {
  const candidates = rows.filter((row) => row.status !== 'confirmed' && row.amount !== null && new Decimal(row.amount).greaterThan(0) && row.date !== null && /^\d{4}-\d{2}-\d{2}$/.test(row.date));
  const found = new Map<number, SuggestionRules>();
  if (candidates.length === 0) return found;
  const rules = await loadUserRules(db, userId);
  if (rules.compiled.rules.length === 0) return found;
  const ruled = await previewRules(db, userId, rules, candidates.map(ruleInputOf));
  const names = await categoryNames(db, userId, ruled.flatMap((fields) => fields.ruleCategoryIds.slice(0, 1)));
  candidates.forEach((row, i) => {
    const fields = ruled[i];
    if (fields.applied.length === 0) return;
    const first = fields.ruleCategoryIds[0];
    found.set(row.id, {
      rules: fields.applied,
      categoryIds: fields.ruleCategoryIds,
      category: first !== undefined && names.has(first) ? { id: first, name: names.get(first)! } : null,
      // a matched party wins over the rules'
      partyId: row.party_id === null ? fields.ruledPartyId : null,
      partyName: row.party_id === null ? fields.ruledPartyName : null,
      description: fields.description !== row.description ? fields.description : null,
      groupId: fields.groupId,
      skippedReason: fields.skippedBy !== null ? skippedByRule(fields) : null,
      transferWalletId: fields.transferWalletId,
      splits: fields.ruleSplits,
      splitsNotSet: typeof fields.metadata?.splits_not_set === 'string' ? fields.metadata.splits_not_set : null,
    });
  });
  return found;
}

/** A suggestion as a confirm without review overrides hands it to the rules (import-confirm-batch.ts entryOf, import-batch.ts). */
function ruleInputOf(row: ImportSuggestionRow): RuleInput {
  return {
    type: row.type ?? 'expense',
    amount: new Decimal(row.amount!).toFixed(),
    walletId: row.wallet_id,
    datetime: new Date(`${row.date}T00:00:00Z`),
    date: row.date!,
    description: row.description,
    // as a confirm with its defaults: a matched party (its name read), else none (the
    // statement's own name is the counterparty; auto_create_parties makes it the line's party)
    partyId: row.party_id,
    counterparty: row.party,
    currency: row.currency,
    // the analysis' category is a guess: the rules' categories win over it
    categoryIds: [],
    groupId: null,
  };
}

async function categoryNames(db: Kysely<Database>, userId: number, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('categories').select(['id', 'name']).where('user_id', '=', userId).where('id', 'in', unique).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
