// Learning from the user's edits (docs/rules.md "Learned rules"): an edit that changes the
// category or the party of an imported line is kept as a correction of that line's text, from
// which rules are proposed (handlers/rule-proposals.ts). Only imported lines teach: a
// transaction the user typed says nothing about how a bank writes a counterparty.
import type { Transaction } from 'kysely';
import { categoryIdsOf, importedLines, recordCorrection } from '../../db/rule-proposals.js';
import type { Database } from '../../db/schema.js';
import type { TransactionRow } from '../../db/transactions.js';
import { correctionsOf, learnedLine } from '../../domain/rules/learning.js';
import type { TransactionChanges } from './transaction-writes.js';

/**
 * Records the corrections an edit makes to an imported line; call it before the edit is written
 * (it reads the categories the line has). Costs nothing more than the edit for an edit that
 * leaves category and party alone, and one indexed look-up for one of a transaction not imported.
 */
export async function recordCorrections(trx: Transaction<Database>, userId: number, current: TransactionRow, changes: TransactionChanges, now: Date): Promise<void> {
  if (changes.categoryIds === undefined && (changes.partyId === undefined || changes.partyId === current.party_id)) return;
  if (current.transfer_id !== null) return;
  const imported = (await importedLines(trx, userId, [current.id])).get(current.id);
  const line = imported && learnedLine(imported);
  if (!line) return;
  const before = { categoryIds: changes.categoryIds === undefined ? [] : await categoryIdsOf(trx, userId, current.id), partyId: current.party_id };
  for (const correction of correctionsOf(before, changes)) await recordCorrection(trx, userId, { transactionId: current.id, ...line, ...correction }, now);
}
