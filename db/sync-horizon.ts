// The sync horizon: a time before which the set of changed rows is final. Every synced row's
// `last_synced_at` is stamped by a trigger (012) with the clock at the moment of the write. A
// write that is still open when a reader looks has either been assigned a transaction id
// (then its stamps are at or after its `xact_start`) or is running a statement (its stamps are
// at or after that statement's `query_start`), or it has written nothing yet (its stamps will
// come after this moment). So every row that commits after the horizon was read carries a
// stamp at or after the horizon, and a feed that hands out only rows stamped before it can
// never let a client's watermark pass a row that is still to come.
//
// The horizon must be read before the data it bounds (a separate, earlier statement): a row
// that commits between the two is then either visible or stamped after the horizon. That
// earlier statement may do other work besides (syncHorizonExpression), as long as the data's
// statement starts after it has returned.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

/**
 * The horizon as an expression, for a statement that has its own work to do and runs before the
 * page's data (the transaction list reads it with its totals: one round trip less).
 */
export function syncHorizonExpression(): RawBuilder<Date> {
  // least() ignores the null of "no other open write"; the embedded database has one backend,
  // so there it is always the statement's own time.
  // pg_stat_get_activity() rather than the pg_stat_activity view: the view joins every backend
  // to pg_database and pg_authid, which cost a third of the statement's time
  return sql<Date>`date_trunc('milliseconds', least(statement_timestamp(), (
      select min(case when backend_xid is not null then xact_start when state = 'active' then query_start end)
        from pg_stat_get_activity(null)
       where datid = (select oid from pg_database where datname = current_database())
         and pid <> pg_backend_pid()
         and backend_type = 'client backend'
    )))`;
}

export async function syncHorizon(db: Kysely<Database>): Promise<Date> {
  const { rows } = await sql<{ horizon: Date }>`select ${syncHorizonExpression()} as horizon`.execute(db);
  return rows[0]!.horizon;
}
