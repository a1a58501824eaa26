// The splits of a transaction (046): read in line order, replaced whole. Writers update the
// transaction row in the same database transaction (one sync stamp for the record); the
// figures' corrections follow by trigger (see the migration).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { SplitLine } from '../domain/splits.js';
import type { Database } from './schema.js';

/** The transaction's lines in order (none: not split). */
export async function splitLinesOf(db: Kysely<Database>, userId: number, transactionId: number): Promise<SplitLine[]> {
  const rows = await db
    .selectFrom('transaction_splits')
    .select(['amount', 'category_id', 'party_id', 'description'])
    .where('transaction_id', '=', transactionId)
    .where('user_id', '=', userId)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({ amount: String(row.amount), categoryId: row.category_id, partyId: row.party_id, description: row.description }));
}

/** Replaces the transaction's lines with `lines` (none removes the split). */
export async function replaceSplits(trx: Transaction<Database>, userId: number, transactionId: number, lines: readonly SplitLine[]): Promise<void> {
  await trx.deleteFrom('transaction_splits').where('transaction_id', '=', transactionId).where('user_id', '=', userId).execute();
  if (lines.length === 0) return;
  await trx
    .insertInto('transaction_splits')
    .values(
      lines.map((line, position) => ({
        transaction_id: transactionId,
        user_id: userId,
        position,
        amount: line.amount,
        category_id: line.categoryId,
        party_id: line.partyId,
        description: line.description,
      })),
    )
    .execute();
}

/**
 * The lines of many new transactions (an import batch's) in one statement: one array per
 * column through unnest, as the batch's transactions are inserted (import-batch.ts).
 */
export async function insertSplitLines(trx: Transaction<Database>, userId: number, split: ReadonlyArray<{ transactionId: number; lines: readonly SplitLine[] }>): Promise<void> {
  const rows = split.flatMap(({ transactionId, lines }) => lines.map((line, position) => ({ transactionId, position, ...line })));
  if (rows.length === 0) return;
  await sql`
    insert into transaction_splits (transaction_id, user_id, position, amount, category_id, party_id, description)
    select r.transaction_id, ${userId}, r.position, r.amount, r.category_id, r.party_id, r.description
      from unnest(${rows.map((row) => row.transactionId)}::bigint[], ${rows.map((row) => row.position)}::int[], ${rows.map((row) => row.amount)}::numeric[],
                  ${rows.map((row) => row.categoryId)}::bigint[], ${rows.map((row) => row.partyId)}::bigint[], ${rows.map((row) => row.description)}::text[])
           as r(transaction_id, position, amount, category_id, party_id, description)`.execute(trx);
}
