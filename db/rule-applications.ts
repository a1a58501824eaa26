// Reading the user's transactions for one rule's dry run and "apply to existing", a chunk at a
// time in id order, with what the rule language tests (party name, wallet currency, categories);
// and the runs of "apply to existing" (migration 040).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ExistingTransaction } from '../domain/rules/existing.js';
import type { Database, RuleApplicationsTable } from './schema.js';

export type RuleApplicationRow = Selectable<RuleApplicationsTable>;

/** Live incomes and expenses (transfer legs are not filed by rules) with ids after `afterId`. */
export async function existingChunk(db: Kysely<Database>, userId: number, afterId: number, limit: number): Promise<ExistingTransaction[]> {
  const rows = await sql<{
    id: string | number;
    description: string | null;
    amount: string;
    type: 'income' | 'expense';
    wallet_id: string | number;
    currency: string | null;
    date: string;
    party_id: string | number | null;
    party_name: string | null;
    group_id: string | number | null;
    category_ids: Array<string | number> | null;
    splits: Array<[amount: string, categoryId: number | null, partyId: number | null, description: string | null]> | null;
    metadata: Record<string, unknown> | null;
  }>`
    select t.id, t.description, t.amount, t.type, t.wallet_id, w.currency, to_char(t.datetime at time zone 'UTC', 'YYYY-MM-DD') as date,
           t.party_id, p.name as party_name, t.group_id, t.metadata,
           (select array_agg(tc.category_id order by tc.category_id) from transaction_categories tc where tc.transaction_id = t.id) as category_ids,
           (select jsonb_agg(jsonb_build_array(s.amount::text, s.category_id, s.party_id, s.description) order by s.position)
              from transaction_splits s where s.transaction_id = t.id) as splits
      from transactions t
      join wallets w on w.id = t.wallet_id
      left join parties p on p.id = t.party_id and p.deleted_at is null
     where t.user_id = ${userId} and t.deleted_at is null and t.transfer_id is null and t.id > ${afterId}
     order by t.id
     limit ${limit}`.execute(db);
  return rows.rows.map((row) => ({
    id: Number(row.id),
    description: row.description,
    amount: row.amount,
    type: row.type,
    walletId: Number(row.wallet_id),
    currency: row.currency,
    date: row.date,
    partyId: row.party_id === null ? null : Number(row.party_id),
    partyName: row.party_name,
    groupId: row.group_id === null ? null : Number(row.group_id),
    categoryIds: (row.category_ids ?? []).map(Number),
    splits: (row.splits ?? []).map(([amount, categoryId, partyId, description]) => ({ amount, categoryId, partyId, description })),
    metadata: row.metadata,
  }));
}

/** How many transactions a dry run or an application goes through. */
export async function existingCount(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await sql<{ n: string }>`select count(*) as n from transactions where user_id = ${userId} and deleted_at is null and transfer_id is null`.execute(db);
  return Number(row.rows[0].n);
}

/** The user's live parties with these exact names, by name (the oldest of a name). */
export async function livePartiesByName(db: Kysely<Database>, userId: number, names: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (names.length === 0) return found;
  const rows = await db.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('name', 'in', names).where('deleted_at', 'is', null).orderBy('id').execute();
  for (const row of rows) if (!found.has(row.name)) found.set(row.name, row.id);
  return found;
}

export function latestApplication(db: Kysely<Database>, userId: number, ruleId: number): Promise<RuleApplicationRow | undefined> {
  return db.selectFrom('rule_applications').selectAll().where('user_id', '=', userId).where('rule_id', '=', ruleId).orderBy('id', 'desc').executeTakeFirst();
}

/** The running application, locked for one batch; undefined when done or held by another worker. */
export function lockRunningApplication(db: Kysely<Database>, id: number): Promise<RuleApplicationRow | undefined> {
  return db.selectFrom('rule_applications').selectAll().where('id', '=', id).where('state', '=', 'running').forUpdate().skipLocked().executeTakeFirst();
}

export async function runningApplicationIds(db: Kysely<Database>): Promise<number[]> {
  const rows = await db.selectFrom('rule_applications').select('id').where('state', '=', 'running').orderBy('id').execute();
  return rows.map((row) => row.id);
}
