// Queries of the rules table (migration 040): the live rules a write evaluates, in order, and
// what the rule handlers need besides the shared synced-record flow.
import { sql, type Kysely } from 'kysely';
import type { RuleDefinition } from '../domain/rules/language.js';
import type { Database } from './schema.js';

/** A user keeps at most this many live rules: every created transaction evaluates them all. */
export const MAX_RULES_PER_USER = 1000;

/**
 * The version of the user's rule set: the number of rows (deleted ones included) and the sum of
 * their versions. Every write of a rule changes it (an insert adds a row, an update, a delete
 * included, bumps a version), so two equal versions name the same rules.
 */
export async function rulesVersion(db: Kysely<Database>, userId: number): Promise<string> {
  const row = await sql<{ n: string; v: string }>`select count(*) as n, coalesce(sum(version), 0) as v from rules where user_id = ${userId}`.execute(db);
  return `${row.rows[0].n}:${row.rows[0].v}`;
}

/** The user's live rules in their order (position, then id), as evaluation takes them. */
export async function liveRules(db: Kysely<Database>, userId: number): Promise<RuleDefinition[]> {
  const rows = await db
    .selectFrom('rules')
    .select(['id', 'name', 'match', 'conditions', 'actions', 'enabled', 'stop_after'])
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where('enabled', '=', true)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows;
}

/**
 * Locks the user's rule list for a create (the user's row, FOR UPDATE: creates of one user run
 * one at a time, so the bound holds) and returns how many live rules there are and the next
 * free position.
 */
export async function lockRuleList(db: Kysely<Database>, userId: number): Promise<{ count: number; nextPosition: number }> {
  await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
  const row = await db
    .selectFrom('rules')
    .select([sql<string>`count(*)`.as('count'), sql<number>`coalesce(max(position), 0) + 1`.as('next')])
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), nextPosition: Number(row.next) };
}
