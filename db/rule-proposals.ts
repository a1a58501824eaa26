// Queries of learned rules (migration 043): which transactions came from an imported line (a
// statement confirm, a CSV import session or a bank sync: their suggestion names the
// transaction; a legacy CSV import: imported_lines), the corrections of those lines, and the
// proposals offered from them.
import { sql, type Kysely, type Transaction } from 'kysely';
import { CORRECTIONS_TO_PROPOSE, type LineField } from '../domain/rules/learning.js';
import type { Database } from './schema.js';

/** The imported line a transaction was made from, as the rules saw it; undefined for a transaction not imported. */
export interface ImportedLine {
  transactionId: number;
  counterparty: string | null;
  description: string | null;
  amount: string | null;
  type: 'income' | 'expense' | null;
  currency: string | null;
  date: string | null;
  walletId: number;
}

export async function importedLines(db: Kysely<Database>, userId: number, transactionIds: number[]): Promise<Map<number, ImportedLine>> {
  const lines = new Map<number, ImportedLine>();
  if (transactionIds.length === 0) return lines;
  const rows = await db
    .selectFrom('import_suggestions as s')
    .innerJoin('transactions as t', 't.id', 's.transaction_id')
    .select(['s.transaction_id', 's.party', 's.description', 's.amount', 's.type', 's.currency', 's.date', 't.wallet_id'])
    .where('s.user_id', '=', userId)
    .where('s.transaction_id', 'in', transactionIds)
    .orderBy('s.id')
    .execute();
  const legacy = await db
    .selectFrom('imported_lines as l')
    .innerJoin('transactions as t', 't.id', 'l.transaction_id')
    .innerJoin('wallets as w', 'w.id', 't.wallet_id')
    .select(['l.transaction_id', 'l.counterparty', 'l.description', 't.amount', 't.type', 'w.currency', 't.wallet_id', sql<string>`to_char(t.datetime at time zone 'UTC', 'YYYY-MM-DD')`.as('date')])
    .where('l.user_id', '=', userId)
    .where('l.transaction_id', 'in', transactionIds)
    .execute();
  for (const row of legacy) {
    lines.set(row.transaction_id, { transactionId: row.transaction_id, counterparty: row.counterparty, description: row.description, amount: String(row.amount), type: row.type, currency: row.currency, date: row.date, walletId: row.wallet_id });
  }
  for (const row of rows) {
    if (lines.has(row.transaction_id!)) continue;
    lines.set(row.transaction_id!, {
      transactionId: row.transaction_id!,
      counterparty: row.party,
      description: row.description,
      amount: row.amount === null ? null : String(row.amount),
      type: row.type,
      currency: row.currency,
      date: row.date,
      walletId: row.wallet_id,
    });
  }
  return lines;
}

/** Remembers the rows of a legacy CSV import (their suggestions name the lines of the other imports). */
export async function recordImportedLines(trx: Transaction<Database>, userId: number, lines: Array<{ transactionId: number; counterparty: string | null; description: string | null }>): Promise<void> {
  if (lines.length === 0) return;
  await sql`
    insert into imported_lines (transaction_id, user_id, counterparty, description)
    select t, ${userId}, c, d from unnest(${lines.map((l) => l.transactionId)}::bigint[], ${lines.map((l) => l.counterparty)}::text[], ${lines.map((l) => l.description)}::text[]) as v(t, c, d)
    on conflict (transaction_id) do nothing`.execute(trx);
}

/** The transaction's category ids, in id order. */
export async function categoryIdsOf(db: Kysely<Database>, userId: number, transactionId: number): Promise<number[]> {
  const rows = await db.selectFrom('transaction_categories').select('category_id').where('transaction_id', '=', transactionId).where('user_id', '=', userId).orderBy('category_id').execute();
  return rows.map((row) => row.category_id);
}

export interface CorrectionInput {
  transactionId: number;
  field: LineField;
  key: string;
  text: string;
  kind: 'category' | 'party';
  to: number;
  from: number[];
}

/** Records a correction under its proposal (made when new); a line corrected again moves to its new proposal. */
export async function recordCorrection(trx: Transaction<Database>, userId: number, c: CorrectionInput, now: Date): Promise<void> {
  const proposal = await sql<{ id: number }>`
    insert into rule_proposals (user_id, field, key, text, kind, category_id, party_id, created_at, updated_at)
    values (${userId}, ${c.field}, ${c.key}, ${c.text}, ${c.kind}, ${c.kind === 'category' ? c.to : null}, ${c.kind === 'party' ? c.to : null}, ${now}, ${now})
    on conflict (user_id, field, key, kind, (coalesce(category_id, party_id))) do update set text = excluded.text, updated_at = excluded.updated_at
    returning id`.execute(trx);
  await sql`
    insert into rule_corrections (user_id, transaction_id, kind, proposal_id, from_ids, created_at)
    values (${userId}, ${c.transactionId}, ${c.kind}, ${proposal.rows[0].id}, ${c.from}::bigint[], ${now})
    on conflict (transaction_id, kind) do update set proposal_id = excluded.proposal_id, created_at = excluded.created_at`.execute(trx);
}

/** An open proposal with enough corrections of live transactions, and what it names. */
export interface OfferedProposal {
  id: number;
  field: LineField;
  text: string;
  kind: 'category' | 'party';
  targetId: number;
  targetName: string;
  corrections: number;
  /** The corrected transactions, newest correction first (at most EXAMPLES). */
  transactionIds: number[];
  createdAt: Date;
  updatedAt: Date;
}

const EXAMPLES = 5;
/** Proposals read per list: the ones with the most corrections. */
export const MAX_OFFERED = 100;

/**
 * The user's open proposals backed by at least CORRECTIONS_TO_PROPOSE corrections of live
 * transactions whose category or party is live, most corrections first (only `id` when given,
 * locked for an accept or dismiss with `lock`).
 */
export async function offeredProposals(db: Kysely<Database>, userId: number, only?: { id: number; lock?: boolean }): Promise<OfferedProposal[]> {
  if (only?.lock) await db.selectFrom('rule_proposals').select('id').where('id', '=', only.id).where('user_id', '=', userId).forUpdate().execute();
  const rows = await sql<{
    id: number;
    field: LineField;
    text: string;
    kind: 'category' | 'party';
    target_id: number;
    target_name: string;
    corrections: string | number;
    transaction_ids: Array<string | number>;
    created_at: Date;
    updated_at: Date;
  }>`
    select p.id, p.field, p.text, p.kind, coalesce(p.category_id, p.party_id) as target_id, coalesce(cat.name, par.name) as target_name,
           count(*) as corrections, (array_agg(c.transaction_id order by c.id desc))[1:${sql.lit(EXAMPLES)}] as transaction_ids, p.created_at, p.updated_at
      from rule_proposals p
      join rule_corrections c on c.proposal_id = p.id
      join transactions t on t.id = c.transaction_id and t.deleted_at is null
      left join categories cat on cat.id = p.category_id and cat.deleted_at is null
      left join parties par on par.id = p.party_id and par.deleted_at is null
     where p.user_id = ${userId} and p.state = 'open' and coalesce(cat.id, par.id) is not null
       ${only ? sql`and p.id = ${only.id}` : sql``}
     group by p.id, cat.name, par.name
    having count(*) >= ${CORRECTIONS_TO_PROPOSE}
     order by count(*) desc, p.id
     limit ${MAX_OFFERED}`.execute(db);
  return rows.rows.map((row) => ({
    id: Number(row.id),
    field: row.field,
    text: row.text,
    kind: row.kind,
    targetId: Number(row.target_id),
    targetName: row.target_name,
    corrections: Number(row.corrections),
    transactionIds: row.transaction_ids.map(Number),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}

/** Ends an open proposal: dismissed (never offered again for its text and value) or accepted with its rule. */
export async function closeProposal(db: Kysely<Database>, userId: number, id: number, outcome: { state: 'dismissed' } | { state: 'accepted'; ruleId: number }, now: Date): Promise<void> {
  await db
    .updateTable('rule_proposals')
    .set({ state: outcome.state, rule_id: outcome.state === 'accepted' ? outcome.ruleId : null, updated_at: now })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .execute();
}
