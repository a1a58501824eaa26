// 003 budgets: budgets, budget_targets, budget_period_states.
//
// Non-obvious choices:
// - Budgets belong to a user (user_id); the API's owner_type/owner_id are derived, not stored.
// - budget_targets replaces the reference's polymorphic pivot: one row per target with exactly
//   one of category_id / group_id / wallet_id set (checked against target_type), each a
//   composite foreign key to the caller's own record, unique per budget. A budget with no
//   target rows covers all of the user's expenses.
// - Slugs are unique per user among live budgets, so reusing a deleted budget's name works.
// - budget_period_states are synced snapshots of closed windows: unique (budget_id,
//   period_start), so closing the same window again updates the one row (upsert on that key).
//   They carry the sync columns (deleted_at is never set in practice; it keeps the shape uniform).
// - period_type 'custom' requires end_date; end_date is never before start_date.
import { sql, type Kysely } from 'kysely';
import {
  addSyncIndexes,
  oneOf,
  ownedFk,
  withId,
  withOwnerKey,
  withSync,
  withUser,
} from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('budgets')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('currency', 'char(3)', (c) => c.notNull())
    .addColumn('period_type', 'text', (c) => c.notNull())
    .addColumn('start_date', 'date', (c) => c.notNull())
    .addColumn('end_date', 'date')
    .addColumn('rollover_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('threshold_percent', 'smallint', (c) => c.notNull().defaultTo(80))
    .addColumn('forecast_alerts_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .$call(withSync)
    .$call((tb) => withOwnerKey(tb, 'budgets'))
    .addCheckConstraint('budgets_amount_check', sql`amount > 0`)
    .addCheckConstraint('budgets_currency_check', sql`currency ~ '^[A-Z]{3}$'`)
    .addCheckConstraint(
      'budgets_period_type_check',
      oneOf('period_type', ['weekly', 'monthly', 'yearly', 'custom']),
    )
    .addCheckConstraint('budgets_end_date_check', sql`end_date is null or end_date >= start_date`)
    .addCheckConstraint('budgets_custom_end_check', sql`period_type <> 'custom' or end_date is not null`)
    .addCheckConstraint('budgets_threshold_check', sql`threshold_percent between 1 and 100`)
    .addCheckConstraint('budgets_name_check', sql`name <> ''`)
    .execute();
  await addSyncIndexes(db, 'budgets');
  await db.schema
    .createIndex('budgets_user_slug_key')
    .on('budgets')
    .columns(['user_id', 'slug'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  // the rollover close job and alert recompute scan live, active budgets
  await db.schema
    .createIndex('budgets_active_idx')
    .on('budgets')
    .columns(['user_id'])
    .where(sql<boolean>`deleted_at is null and is_active`)
    .execute();

  await db.schema
    .createTable('budget_targets')
    .$call(withId)
    .$call(withUser)
    .addColumn('budget_id', 'bigint', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('category_id', 'bigint')
    .addColumn('group_id', 'bigint')
    .addColumn('wallet_id', 'bigint')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('budget_targets_type_check', oneOf('target_type', ['category', 'group', 'wallet']))
    .addCheckConstraint(
      'budget_targets_one_target_check',
      sql`num_nonnulls(category_id, group_id, wallet_id) = 1
        and (target_type = 'category') = (category_id is not null)
        and (target_type = 'group') = (group_id is not null)
        and (target_type = 'wallet') = (wallet_id is not null)`,
    )
    .addUniqueConstraint('budget_targets_category_key', ['budget_id', 'category_id'])
    .addUniqueConstraint('budget_targets_group_key', ['budget_id', 'group_id'])
    .addUniqueConstraint('budget_targets_wallet_key', ['budget_id', 'wallet_id'])
    .execute();
  await ownedFk(db, 'budget_targets', 'budget_id', 'budgets', 'cascade');
  await ownedFk(db, 'budget_targets', 'category_id', 'categories', 'cascade');
  await ownedFk(db, 'budget_targets', 'group_id', 'groups', 'cascade');
  await ownedFk(db, 'budget_targets', 'wallet_id', 'wallets', 'cascade');
  for (const column of ['category_id', 'group_id', 'wallet_id']) {
    await db.schema
      .createIndex(`budget_targets_${column}_idx`)
      .on('budget_targets')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute();
  }

  await db.schema
    .createTable('budget_period_states')
    .$call(withId)
    .$call(withUser)
    .addColumn('budget_id', 'bigint', (c) => c.notNull())
    .addColumn('period_start', 'date', (c) => c.notNull())
    .addColumn('period_end', 'date', (c) => c.notNull())
    .addColumn('net_spent', 'numeric(19, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('rollover_in', 'numeric(19, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('rollover_out', 'numeric(19, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('closed_at', 'timestamptz')
    .$call(withSync)
    .addUniqueConstraint('budget_period_states_budget_period_key', ['budget_id', 'period_start'])
    .addCheckConstraint('budget_period_states_window_check', sql`period_end >= period_start`)
    .addCheckConstraint('budget_period_states_net_spent_check', sql`net_spent >= 0`)
    .execute();
  await ownedFk(db, 'budget_period_states', 'budget_id', 'budgets', 'cascade');
  await addSyncIndexes(db, 'budget_period_states');
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['budget_period_states', 'budget_targets', 'budgets']) {
    await db.schema.dropTable(table).execute();
  }
}
