// The embedded database's stand-in for autovacuum (db/table-maintenance.ts,
// jobs/maintain-embedded-tables.ts): a table that grew or churned past autovacuum's thresholds
// is vacuumed and analyzed, then no longer due; on a PostgreSQL server the job leaves it to
// autovacuum. A long import analyzes the ledger between its batches once it has grown by half,
// on both databases;
// the link triggers keep the page cost migration 049 gave them.
import t from 'tap';
import { sql } from 'kysely';
import { jobs } from '../jobs/index.js';
import { maintainEmbeddedTablesJob } from '../jobs/maintain-embedded-tables.js';
import { LINK_TRIGGER_FUNCTIONS } from '../db/migrations/049_link_trigger_plans.js';
import { KEY_LOOKUP_PAGE_COST } from '../db/migrations/helpers.js';
import { analyzeGrownLedger, maintainTables, tablesDueForMaintenance } from '../db/table-maintenance.js';
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

t.test('between two batches of an import, a ledger table half new since its last analyze is analyzed', async (t) => {
  await sql`
    insert into transactions (user_id, wallet_id, type, amount, datetime, description, created_at, updated_at, last_synced_at)
    select ${owner.user.id}::bigint, ${wallet}::bigint, 'income', 2, now(), 'batch ' || i, now(), now(), now()
    from generate_series(1, 9000) as i`.execute(api.db);
  await sql`select pg_stat_force_next_flush()`.execute(api.db).catch(() => undefined);
  const before = await analyzedAt('transactions');
  const analyzed = await analyzeGrownLedger(api.db);
  const after = await analyzedAt('transactions');
  t.ok(after && (!before || after > before), 'the statistics of transactions were taken again');
  // a PostgreSQL server's autovacuum may have got there first (it then analyzed, not this)
  if (!analyzed.includes('transactions')) t.ok((await sql<{ auto: Date | null }>`select last_autoanalyze as auto from pg_stat_user_tables where relname = 'transactions'`.execute(api.db)).rows[0].auto! >= after!, 'by autovacuum');
  else t.pass('transactions more than doubled: analyzed');
  t.notOk(analyzed.includes('transaction_categories'), 'the links, which the batch left alone, are not');
  await sql`select pg_stat_force_next_flush()`.execute(api.db).catch(() => undefined);
  t.notOk((await analyzeGrownLedger(api.db)).includes('transactions'), 'and right after, nothing of it is due');
});

t.test("the link triggers plan their look-ups by key (049), a later replacement of one included", async (t) => {
  const { rows } = await sql<{ name: string; config: string[] | null }>`
    select proname as name, proconfig as config from pg_proc
     where pronamespace = current_schema()::regnamespace and proname = any(${[...LINK_TRIGGER_FUNCTIONS]}::text[])`.execute(api.db);
  t.same(rows.map((row) => row.name).sort(), [...LINK_TRIGGER_FUNCTIONS].sort(), 'every function exists');
  for (const row of rows) t.ok(row.config?.includes(`random_page_cost=${KEY_LOOKUP_PAGE_COST}`), `${row.name} carries random_page_cost=${KEY_LOOKUP_PAGE_COST}`);
});
