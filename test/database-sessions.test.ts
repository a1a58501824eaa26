// The settings of the service's PostgreSQL sessions (db/connection.ts): no JIT and no parallel
// workers. Checked on the server: the settings as the sessions report them, and a statement that
// a default session runs with parallel workers gets none in the service's.
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import t from 'tap';
import type { Database } from '../db/schema.js';
import { startApp } from './helpers/harness.js';

const FORCE_PARALLEL = ['set local parallel_setup_cost = 0', 'set local parallel_tuple_cost = 0', 'set local min_parallel_table_scan_size = 0'];
const STATEMENT = 'explain select count(*) from transactions';

type RunStatement = (text: string) => Promise<Array<Record<string, string>>>;

/** The plan of STATEMENT with parallel workers made free; `run` must be inside a transaction. */
async function planWithFreeWorkers(run: RunStatement): Promise<string> {
  for (const setting of FORCE_PARALLEL) await run(setting);
  const plan = await run(STATEMENT);
  return plan.map((row) => row['QUERY PLAN']).join('\n');
}

function serviceSessionPlan(db: Kysely<Database>): Promise<string> {
  return db.transaction().execute((trx) => planWithFreeWorkers(async (text) => (await sql.raw<Record<string, string>>(text).execute(trx)).rows));
}

async function defaultSessionPlan(connectionString: string): Promise<string> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query('begin');
    return await planWithFreeWorkers(async (text) => (await client.query<Record<string, string>>(text)).rows);
  } finally {
    await client.end(); // the transaction ends with the session
  }
}

t.test('the service runs its statements without JIT and without parallel workers', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL): the embedded engine has neither' }, async (t) => {
  const { db, connectionString } = await startApp(t);
  const settings = await sql<{ jit: string; workers: string }>`select current_setting('jit') as jit, current_setting('max_parallel_workers_per_gather') as workers`.execute(db);
  t.same(settings.rows[0], { jit: 'off', workers: '0' });

  t.match(await defaultSessionPlan(connectionString), /Gather/, 'a default session plans the statement with workers');
  t.notMatch(await serviceSessionPlan(db), /Gather/, "the service's session plans it without");
});
