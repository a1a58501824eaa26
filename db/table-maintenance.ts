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
