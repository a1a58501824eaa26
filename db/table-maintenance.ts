// What autovacuum does on a PostgreSQL server, for the embedded database, which has none
// (PGlite runs one backend and no background workers): without it the planner never gets
// statistics for tables that grew after the migrations (a 10,000-row ledger was planned as if
// it held one row), dead row versions of updated rows (every wallet balance move) are never
// reclaimed, and index-only scans find no page marked all-visible. The thresholds are
// autovacuum's defaults.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface TableDue {
  table: string;
  vacuum: boolean;
}

/** The tables whose changes since their last vacuum or analyze pass autovacuum's thresholds. */
export async function tablesDueForMaintenance(db: Kysely<Database>): Promise<TableDue[]> {
  const { rows } = await sql<{ table: string; vacuum: boolean }>`
    select relname as table,
           (n_dead_tup > 50 + 0.2 * n_live_tup or n_ins_since_vacuum > 1000 + 0.2 * n_live_tup) as vacuum
    from pg_stat_user_tables
    where schemaname = current_schema()
      and (n_dead_tup > 50 + 0.2 * n_live_tup
           or n_ins_since_vacuum > 1000 + 0.2 * n_live_tup
           or n_mod_since_analyze > 50 + 0.1 * n_live_tup)
    order by relname`.execute(db);
  return rows;
}

/** Vacuums (with analyze) or analyzes each due table, one statement each; returns them. */
export async function maintainTables(db: Kysely<Database>): Promise<TableDue[]> {
  const due = await tablesDueForMaintenance(db);
  for (const { table, vacuum } of due) {
    await (vacuum ? sql`vacuum (analyze) ${sql.table(table)}` : sql`analyze ${sql.table(table)}`).execute(db);
  }
  return due;
}

/** The tables a ledger write's triggers and look-ups join by key (analyzeGrownLedger). */
const LEDGER_TABLES = ['transactions', 'transaction_categories'];

/**
 * What a long import does between two of its commits: analyzes the ledger's tables once half of
 * their rows or more are new (or changed) since their last analyze. Autovacuum looks once a
 * minute, and meanwhile the planner plans the next batch's triggers by statistics taken when
 * the table held a fraction of its rows: hashing every expense rather than finding the batch's
 * rows by id, a cost that grows with each batch (a 100,000-line import with rules took 2.9
 * times as long as without, from 1.09 with this). Half, not autovacuum's tenth: an analyze of
 * transactions reads a 30,000-row sample (~0.5 s at 80,000 rows), and plans need the
 * proportions right, not the counts (the planner scales those by the table's pages itself).
 * SKIP_LOCKED: a table another session is analyzing or vacuuming is left to it. Call it outside
 * any transaction (ANALYZE holds its lock until the commit).
 */
export async function analyzeGrownLedger(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    select relname as table from pg_stat_user_tables
     where schemaname = current_schema() and relname = any(${LEDGER_TABLES}::text[])
       and n_mod_since_analyze > 1000 + 0.5 * n_live_tup
     order by relname`.execute(db);
  if (rows.length === 0) return [];
  await sql`analyze (skip_locked) ${sql.join(rows.map((row) => sql.table(row.table)))}`.execute(db);
  return rows.map((row) => row.table);
}
