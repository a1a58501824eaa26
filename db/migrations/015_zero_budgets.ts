// 015 zero budgets: the reference accepts a budget amount of 0 ("no spending on this"), so
// 003's `amount > 0` becomes `amount >= 0`. Thresholds stay 1..100: the API caps larger ones.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('budgets').dropConstraint('budgets_amount_check').execute();
  await db.schema.alterTable('budgets').addCheckConstraint('budgets_amount_check', sql`amount >= 0`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('budgets').dropConstraint('budgets_amount_check').execute();
  await db.schema.alterTable('budgets').addCheckConstraint('budgets_amount_check', sql`amount > 0`).execute();
}
