// Statements marked KEEP_PLAN (GET /stats's reads) run as named statements under a generic plan,
// and nothing else changes: other statements stay unnamed, the connection's plan_cache_mode is
// back to what it was afterwards, a statement's own error comes through, and past the cap per
// connection marked statements run unnamed. The fake client checks what is sent; on PostgreSQL
// (DATABASE_URL) the server's own view (pg_prepared_statements) checks what it kept.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import t from 'tap';
import { KEEP_PLAN, PREPARE_ONCE, PREPARED_PER_CONNECTION, poolKeepingPlans } from '../db/kept-plans.js';

type Sent = string | { name: string; text: string; values: unknown[] };

/** A pg pool whose one client records what it is sent and answers an empty result. */
function recordingPool(fail?: RegExp) {
  const sent: Sent[] = [];
  const client = {
    async query(config: string | { name: string; text: string; values: unknown[] }) {
      sent.push(typeof config === 'string' ? config : { name: config.name, text: config.text, values: config.values });
      const text = typeof config === 'string' ? config : config.text;
      if (fail?.test(text)) throw new Error('division by zero');
      return { command: 'SELECT', rowCount: 0, rows: [] };
    },
    release() {},
  };
  const pool = { connect: async () => client, end: async () => {} } as unknown as pg.Pool;
  return { pool, sent };
}

t.test('a marked statement is named and runs under a generic plan, then the mode is reset', async (t) => {
  const { pool, sent } = recordingPool();
  const wrapped = poolKeepingPlans(pool, 2);
  const client = await wrapped.connect();
  await client.query(`${KEEP_PLAN}select $1::int`, [1]);
  await client.query('select $1::int', [2]);
  t.equal(sent.length, 4);
  t.equal(sent[0], 'set plan_cache_mode = force_generic_plan');
  const named = sent[1] as Exclude<Sent, string>;
  t.match(named.name, /^kept_[0-9a-f]{24}$/);
  t.same(named.values, [1]);
  t.equal(sent[2], 'reset plan_cache_mode');
  t.equal(sent[3], 'select $1::int', 'an unmarked statement goes as it came, unnamed, with no mode set');
});

t.test('one text keeps one name; past the cap a new text runs unnamed', async (t) => {
  const { pool, sent } = recordingPool();
  const client = await poolKeepingPlans(pool, 2).connect();
  for (const text of ['select 1', 'select 2', 'select 1', 'select 3']) await client.query(`${KEEP_PLAN}${text}`, []);
  const names = sent.filter((s): s is Exclude<Sent, string> => typeof s !== 'string').map((s) => `${s.name} ${s.text}`);
  t.equal(names.length, 3, 'select 3 is past the cap of 2');
  t.equal(names[0], names[2], 'the same text, the same name');
  t.not(names[0].split(' ')[0], names[1].split(' ')[0]);
  t.equal(sent.at(-1), `${KEEP_PLAN}select 3`, 'sent unnamed, without changing the mode');
});

t.test('a PREPARE_ONCE statement is named with no mode set; past its cap it runs unnamed', async (t) => {
  const { pool, sent } = recordingPool();
  const client = await poolKeepingPlans(pool).connect();
  await client.query(`${PREPARE_ONCE}select $1::int`, [1]);
  await client.query(`${PREPARE_ONCE}select $1::int`, [2]);
  t.equal(sent.length, 2, 'no SET or RESET around it: the server chooses its plan as for any named statement');
  const [first, second] = sent as Array<Exclude<Sent, string>>;
  t.match(first.name, /^prep_[0-9a-f]{24}$/);
  t.equal(first.name, second.name, 'the same text, the same name');
  t.same(second.values, [2]);
  for (let i = 0; i < PREPARED_PER_CONNECTION; i++) await client.query(`${PREPARE_ONCE}select ${i + 10}`, []);
  t.equal(sent.at(-1), `${PREPARE_ONCE}select ${PREPARED_PER_CONNECTION + 9}`, 'past the cap: sent unnamed');
});

t.test("a failing marked statement throws its own error and still resets the mode", async (t) => {
  const { pool, sent } = recordingPool(/1 \/ 0/);
  const client = await poolKeepingPlans(pool).connect();
  await t.rejects(client.query(`${KEEP_PLAN}select 1 / 0`, []), /division by zero/);
  t.equal(sent.at(-1), 'reset plan_cache_mode');
});

const serverUrl = process.env.DATABASE_URL;
t.test('PostgreSQL keeps one generic plan per marked statement', { skip: serverUrl ? false : 'needs DATABASE_URL' }, async (t) => {
  const pool = new pg.Pool({ connectionString: serverUrl, max: 1 });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: poolKeepingPlans(pool, 2) }) });
  t.teardown(() => db.destroy());
  const marked = (n: number) => sql<{ n: number }>`${sql.raw(KEEP_PLAN)}select ${n}::int + 1 as n`;
  for (const n of [1, 2, 3]) t.equal((await marked(n).execute(db)).rows[0].n, n + 1, 'the answer is right for each value');
  await sql`select ${4}::int as unmarked`.execute(db);

  const { rows: kept } = await sql<{ name: string; generic_plans: number; custom_plans: number }>`
    select name, generic_plans::int, custom_plans::int from pg_prepared_statements`.execute(db);
  t.equal(kept.length, 1, 'one named statement: the unmarked one stayed unnamed');
  t.match(kept[0].name, /^kept_/);
  t.equal(kept[0].generic_plans, 3, 'every run used the generic plan');
  t.equal(kept[0].custom_plans, 0);
  const { rows: mode } = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db);
  t.equal(mode[0].plan_cache_mode, 'auto', 'the connection is back in the default mode');

  // in a transaction, the statement's error is the one thrown, and the rollback leaves the mode alone
  await t.rejects(
    db.transaction().execute(async (trx) => sql`${sql.raw(KEEP_PLAN)}select 1 / ${0}::int`.execute(trx)),
    /division by zero/,
  );
  const { rows: after } = await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db);
  t.equal(after[0].plan_cache_mode, 'auto');
});
