// One rule on the transactions that exist already: the dry run reads what would change, the
// apply job (jobs/apply-rule.ts) writes it. A change goes through the one update path of
// transactions (updateTransactionEntry): it is announced as transaction.updated and stamped for
// the synced_since feeds like any edit.
import type { Kysely, Transaction } from 'kysely';
import { findOrCreateParty } from '../../db/import-record-names.js';
import { livePartiesByName } from '../../db/rule-applications.js';
import type { Database, RulesTable } from '../../db/schema.js';
import { liveIds } from '../../db/sync.js';
import { lockLiveTransaction } from '../../db/transactions.js';
import { splitCategoryIds, type SplitLine } from '../../domain/splits.js';
import { ruleOnExisting, type ExistingChanges, type ExistingTransaction, type RuleOnExisting } from '../../domain/rules/existing.js';
import type { Selectable } from 'kysely';
import { updateTransactionEntry, type TransactionChanges } from './transaction-writes.js';

type StoredRule = Pick<Selectable<RulesTable>, 'id' | 'name' | 'match' | 'conditions' | 'actions' | 'enabled' | 'stop_after'>;

/** The stored rule compiled for existing transactions (the parties it names looked up once). */
export async function ruleForExisting(db: Kysely<Database>, userId: number, rule: StoredRule): Promise<RuleOnExisting> {
  const names = rule.actions.flatMap((action) => (action.type === 'set_party' && action.party_name ? [action.party_name.trim()] : []));
  return ruleOnExisting(rule, await livePartiesByName(db, userId, names));
}

/** The rule's lines with a category or party deleted since the rule was written left out of them (never linked). */
async function liveLines(trx: Transaction<Database>, userId: number, lines: SplitLine[]): Promise<SplitLine[]> {
  const categories = await liveIds(trx, 'categories', userId, lines.flatMap((line) => (line.categoryId === null ? [] : [line.categoryId])));
  const parties = await liveIds(trx, 'parties', userId, lines.flatMap((line) => (line.partyId === null ? [] : [line.partyId])));
  return lines.map((line) => ({
    ...line,
    categoryId: line.categoryId !== null && categories.has(line.categoryId) ? line.categoryId : null,
    partyId: line.partyId !== null && parties.has(line.partyId) ? line.partyId : null,
  }));
}

/** Writes one transaction's changes; false when it is gone meanwhile. */
export async function applyExistingChanges(trx: Transaction<Database>, userId: number, tx: ExistingTransaction, changes: ExistingChanges, now: Date): Promise<boolean> {
  const current = await lockLiveTransaction(trx, userId, tx.id);
  if (!current) return false;
  const partyId = changes.party_name?.to ? await findOrCreateParty(trx, userId, changes.party_name.to, now) : changes.party_id?.to;
  const splits = changes.splits && (await liveLines(trx, userId, changes.splits.to));
  const update: TransactionChanges = {
    description: changes.description?.to,
    partyId,
    groupId: changes.group_id?.to,
    // a split transaction's categories are its lines'
    categoryIds: splits ? splitCategoryIds(splits) : changes.category_ids?.to,
    splits,
  };
  await updateTransactionEntry(trx, userId, current, update, now);
  if (changes.metadata) await trx.updateTable('transactions').set({ metadata: JSON.stringify(changes.metadata) }).where('id', '=', tx.id).where('user_id', '=', userId).execute();
  return true;
}
