// The embedded database under concurrency: several pg connections share one PGlite, and
// neither statements nor transactions of different connections may mix.
import { sql } from 'kysely';
import t from 'tap';
import { openDatabase } from '../db/connection.js';

const database = await openDatabase({ poolSize: 10 });
t.teardown(() => database.close());
const { db } = database;

t.test('concurrent parameterised statements of different shapes never mix', async (t) => {
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? sql<{ v: number }>`select ${i}::int as v`.execute(db).then((r) => r.rows[0].v)
        : sql<{ v: number }>`select ${i}::int + ${1}::int - ${1}::int as v`.execute(db).then((r) => r.rows[0].v),
    ),
  );
  t.same(results, Array.from({ length: 200 }, (_, i) => i));
});

t.test('transactions and statements of other connections interleave safely', { timeout: 60_000 }, async (t) => {
  // pglite-socket's own queue deadlocks or mixes statements on this workload.
  await sql`create table mixed (id serial primary key, a int, b text)`.execute(db);
  const work = Array.from({ length: 100 }, (_, i) =>
    i % 3 === 0
      ? db.transaction().execute(async (trx) => {
          await sql`insert into mixed (a, b) values (${i}, ${`x${i}`})`.execute(trx);
          await sql`select count(*) from mixed where a >= ${0} and b <> ${'q'} and id > ${0}`.execute(trx);
        })
      : i % 3 === 1
        ? sql`select * from mixed where a = ${i}`.execute(db)
        : sql`select ${i}::int + ${2}::int as v, ${'s'}::text as s`.execute(db),
  );
  const results = await Promise.allSettled(work);
  t.same(results.filter((r) => r.status === 'rejected'), []);
  const count = await sql<{ n: number }>`select count(*)::int as n from mixed`.execute(db);
  t.equal(count.rows[0].n, 34);
});

t.test('concurrent transactions with row locks never lose an update', async (t) => {
  await sql`create table counter (id int primary key, n int not null)`.execute(db);
  await sql`insert into counter values (1, 0)`.execute(db);
  await Promise.all(
    Array.from({ length: 50 }, () =>
      db.transaction().execute(async (trx) => {
        const row = await sql<{ n: number }>`select n from counter where id = ${1} for update`.execute(trx);
        await sql`update counter set n = ${row.rows[0].n + 1} where id = ${1}`.execute(trx);
      }),
    ),
  );
  const final = await sql<{ n: number }>`select n from counter where id = 1`.execute(db);
  t.equal(final.rows[0].n, 50);
});

t.test('a failed transaction rolls back and frees the database for others', async (t) => {
  await t.rejects(
    db.transaction().execute(async (trx) => {
      await sql`update counter set n = 1000 where id = 1`.execute(trx);
      await sql`select * from no_such_table`.execute(trx);
    }),
  );
  const after = await sql<{ n: number }>`select n from counter where id = 1`.execute(db);
  t.equal(after.rows[0].n, 50);
});
