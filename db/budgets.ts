// Budget rows and their targets. A budget's targets are rows of budget_targets, one per
// category, group or wallet (none: the budget covers all of the user's expenses); they are
// loaded for a whole page of budgets in one query, and replaced as a set on update.
import { sql, type Kysely, type SelectQueryBuilder, type Transaction } from 'kysely';
import { formatClientId } from '../domain/client-id.js';
import type { LiveTargets } from './budget-spending.js';
import type { BudgetTargetType, Database } from './schema.js';
import { missingLiveIds, selectSynced, type SyncedRow } from './sync.js';

export type BudgetRow = SyncedRow<'budgets'>;

export interface TargetInput {
  type: BudgetTargetType;
  id: number;
}

export interface TargetView {
  type: BudgetTargetType;
  id: number;
  name: string;
  client_generated_id: string | null;
}

const TARGET_TABLES = { category: 'categories', group: 'groups', wallet: 'wallets' } as const;
const TARGET_COLUMNS = { category: 'category_id', group: 'group_id', wallet: 'wallet_id' } as const;
const TARGET_ORDER: BudgetTargetType[] = ['category', 'group', 'wallet'];

/** The user's budgets with their device columns, deleted ones included; callers add filters. */
export function selectBudgets(db: Kysely<Database>, userId: number): SelectQueryBuilder<any, any, BudgetRow> {
  return selectSynced(db, 'budgets', userId);
}

/** The user's live budget, locked for this write (the close job and close-period queue here). */
export async function lockLiveBudget(trx: Transaction<Database>, userId: number, id: number, skipLocked = false): Promise<BudgetRow | undefined> {
  let locked = trx.selectFrom('budgets').select('id').where('id', '=', id).where('user_id', '=', userId).where('deleted_at', 'is', null).forUpdate();
  if (skipLocked) locked = locked.skipLocked();
  if (!(await locked.executeTakeFirst())) return undefined;
  return selectBudgets(trx, userId).where('budgets.id', '=', id).executeTakeFirst();
}

/**
 * The live targets of each budget, categories first, then groups, then wallets (each in the
 * order they were added); a target whose record was deleted is left out.
 */
export async function targetsOf(db: Kysely<Database>, userId: number, budgetIds: number[]): Promise<Map<number, TargetView[]>> {
  const byBudget = new Map<number, TargetView[]>(budgetIds.map((id) => [id, []]));
  if (budgetIds.length === 0) return byBudget;
  const rows = await db
    .selectFrom('budget_targets as bt')
    .leftJoin('categories as c', (j) => j.onRef('c.id', '=', 'bt.category_id').on('c.deleted_at', 'is', null))
    .leftJoin('groups as g', (j) => j.onRef('g.id', '=', 'bt.group_id').on('g.deleted_at', 'is', null))
    .leftJoin('wallets as w', (j) => j.onRef('w.id', '=', 'bt.wallet_id').on('w.deleted_at', 'is', null))
    .leftJoin('devices as d', (j) => j.on(sql`d.id`, '=', sql`coalesce(c.device_id, g.device_id, w.device_id)`))
    .select([
      'bt.budget_id',
      'bt.target_type',
      sql<number>`coalesce(c.id, g.id, w.id)`.as('target_id'),
      sql<string>`coalesce(c.name, g.name, w.name)`.as('name'),
      sql<string | null>`coalesce(c.client_generated_id, g.client_generated_id, w.client_generated_id)`.as('client_generated_id'),
      'd.token as device_token',
    ])
    .where('bt.user_id', '=', userId)
    .where('bt.budget_id', 'in', budgetIds)
    .where(sql<boolean>`coalesce(c.id, g.id, w.id) is not null`)
    .orderBy('bt.id')
    .execute();
  for (const type of TARGET_ORDER) {
    for (const row of rows) {
      if (row.target_type !== type) continue;
      byBudget.get(row.budget_id)!.push({
        type,
        id: Number(row.target_id),
        name: row.name,
        client_generated_id: formatClientId(row.device_token, row.client_generated_id),
      });
    }
  }
  return byBudget;
}

/** The ids of each budget's live targets by kind, from targetsOf's answer (what budget spending reads). */
export function targetIdsOf(targets: Map<number, TargetView[]>): Map<number, LiveTargets> {
  const ids = new Map<number, LiveTargets>();
  for (const [budgetId, views] of targets) {
    const of: LiveTargets = { categoryIds: [], groupIds: [], walletIds: [] };
    for (const view of views) (view.type === 'category' ? of.categoryIds : view.type === 'group' ? of.groupIds : of.walletIds).push(view.id);
    ids.set(budgetId, of);
  }
  return ids;
}

/** Target input with duplicates collapsed. */
export function uniqueTargets(targets: TargetInput[]): TargetInput[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = `${target.type}:${target.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Error messages keyed `targets.<index>.id` for targets that are not the user's live records. */
export async function invalidTargets(db: Kysely<Database>, userId: number, targets: TargetInput[]): Promise<Record<string, string[]>> {
  const errors: Record<string, string[]> = {};
  for (const type of TARGET_ORDER) {
    const ids = targets.filter((target) => target.type === type).map((target) => target.id);
    const missing = new Set(await missingLiveIds(db, TARGET_TABLES[type], userId, [...new Set(ids)]));
    targets.forEach((target, index) => {
      if (target.type === type && missing.has(target.id)) errors[`targets.${index}.id`] = [`The selected ${type} is invalid.`];
    });
  }
  return errors;
}

/** Makes `targets` the budget's whole target set. */
export async function replaceTargets(trx: Transaction<Database>, userId: number, budgetId: number, targets: TargetInput[]): Promise<void> {
  await trx.deleteFrom('budget_targets').where('budget_id', '=', budgetId).where('user_id', '=', userId).execute();
  const unique = uniqueTargets(targets);
  if (unique.length === 0) return;
  await trx
    .insertInto('budget_targets')
    .values(
      unique.map((target) => ({
        user_id: userId,
        budget_id: budgetId,
        target_type: target.type,
        category_id: null,
        group_id: null,
        wallet_id: null,
        [TARGET_COLUMNS[target.type]]: target.id,
      })),
    )
    .execute();
}
