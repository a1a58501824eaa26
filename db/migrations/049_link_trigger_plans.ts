// 049 link trigger plans: the statement triggers of transaction_categories look up the
// transactions of the links a statement wrote (a few thousand at most, by primary key). At the
// default random_page_cost (4, a spinning disk's) the planner priced those look-ups above
// hashing every live transaction of the table, so a batch of 1,200 links of an import cost a
// scan of the whole ledger in each of its five triggers: 380-410 ms at 80,000 rows, and more
// with every batch (measured: docs/rules.md). The ledger's pages are in memory when a write
// touches them; at 1.1 (the usual value for memory and SSDs) the same insert took 100-140 ms.
// The setting belongs to these functions only: every other plan keeps the server's defaults.
//
// A later `create or replace function` of one of them drops the setting: such a migration sets
// it again (test/migrations-plans.test.ts checks that every one carries it).
import type { Kysely } from 'kysely';
import { planFunctionsForKeyLookups } from './helpers.js';

/** The statement trigger functions of transaction_categories (021, 022, 023, 026, 046). */
export const LINK_TRIGGER_FUNCTIONS = [
  'stats_sums_after_transaction_categories',
  'transaction_list_totals_from_links',
  'budget_sums_after_transaction_categories',
  'transaction_categories_lock_wallets_insert',
  'transaction_categories_lock_wallets_update',
  'transaction_categories_lock_wallets_delete',
  'split_parts_after_links',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await planFunctionsForKeyLookups(db, LINK_TRIGGER_FUNCTIONS, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await planFunctionsForKeyLookups(db, LINK_TRIGGER_FUNCTIONS, false);
}
