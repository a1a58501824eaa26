// The embedded database's stand-in for autovacuum (db/table-maintenance.ts,
// jobs/maintain-embedded-tables.ts): a table that grew or churned past autovacuum's thresholds
// is vacuumed and analyzed, then no longer due; on a PostgreSQL server the job leaves it to
// autovacuum.
import t from 'tap';
import { sql } from 'kysely';
import { jobs } from '../jobs/index.js';
import { maintainEmbeddedTablesJob } from '../jobs/maintain-embedded-tables.js';
import { maintainTables, tablesDueForMaintenance } from '../db/table-maintenance.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const wallet = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Checking', type: 'bank', currency: 'USD', opening_balance: '0' } })).body.data.id;

const analyzedAt = async (table: string) =>
  (await sql<{ at: Date | null }>`select greatest(last_analyze, last_autoanalyze) as at from pg_stat_user_tables where relname = ${table}`.execute(api.db)).rows[0].at;

t.test('a table that grew past the threshold is analyzed, then no longer due', async (t) => {
  await sql`
    insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
    select ${owner.user.id}::bigint, ${wallet}::bigint, 'expense', 1, now(), 'row ' || i, now(), now(), now()
    from generate_series(1, 3000) as i`.execute(api.db);
  // the counters reach pg_stat_user_tables when the writing statement's backend reports them
  await sql`select pg_stat_force_next_flush()`.execute(api.db).catch(() => undefined);
  const before = await analyzedAt('transactions');
  const due = await tablesDueForMaintenance(api.db);
  // a PostgreSQL server's autovacuum may have got there first; otherwise it is due
  if (!before) t.ok(due.some((entry) => entry.table === 'transactions'), 'transactions is due');
  await maintainTables(api.db);
  t.ok(await analyzedAt('transactions'), 'transactions has planner statistics');
  t.notOk((await tablesDueForMaintenance(api.db)).some((entry) => entry.table === 'transactions'), 'and is no longer due');
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stats where tablename = 'transactions' and attname = 'user_id'`.execute(api.db);
  t.equal(rows[0].n, 1, 'column statistics exist');
});

t.test('the job is registered, and does nothing on a PostgreSQL server', async (t) => {
  t.ok(jobs.includes(maintainEmbeddedTablesJob));
  const services = api.app.services;
  const ctx = { db: api.db, services: { ...services, databaseKind: 'postgresql' as const }, log: api.app.log };
  await sql`update wallets set name = name where user_id = ${owner.user.id}`.execute(api.db);
  let statements = 0;
  const counting = api.db.withPlugin({ transformQuery: (args) => (statements++, args.node), transformResult: async (args) => args.result });
  await maintainEmbeddedTablesJob.run({ ...ctx, db: counting }, {});
  t.equal(statements, 0, 'no statement on a server with autovacuum');
  await maintainEmbeddedTablesJob.run({ ...ctx, db: counting, services: { ...services, databaseKind: 'embedded' } }, {});
  t.ok(statements > 0, 'the embedded database is maintained');
});
