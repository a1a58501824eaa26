// The ledger the benchmarks load (stats, budget progress): one user with two wallets (USD,
// EUR), categories, a party, a manual EUR-USD rate and `rows` transactions spread evenly over
// three years up to now, seeded by one INSERT … SELECT generate_series; and a scratch
// PostgreSQL database for a run.
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.js';

export interface SeededLedger {
  dollars: number;
  euros: number;
  salary: number;
  food: number;
  party: number;
}

/** Every 5th row is income; one in three is in euros; every second row has a category. */
export async function seedLedger(db: Kysely<Database>, userId: number, rows: number): Promise<SeededLedger> {
  const wallet = (name: string, currency: string) =>
    db.insertInto('wallets').values({ user_id: userId, name, slug: name.toLowerCase(), type: 'bank', currency }).returning('id').executeTakeFirstOrThrow();
  const [dollars, euros] = [(await wallet('Dollars', 'USD')).id, (await wallet('Euros', 'EUR')).id];
  const category = (name: string, type: 'income' | 'expense') =>
    db.insertInto('categories').values({ user_id: userId, name, slug: `bench-${name.toLowerCase()}`, type }).returning('id').executeTakeFirstOrThrow();
  const [salary, food] = [(await category('Salary', 'income')).id, (await category('Food', 'expense')).id];
  const party = await db.insertInto('parties').values({ user_id: userId, name: 'Shop' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('configurations')
    .values({ user_id: userId, key: 'manual-exchange-rates', type: 'string', value: JSON.stringify(JSON.stringify({ 'EUR-USD': 1.1 })) })
    .execute();
  await sql`
    insert into transactions (user_id, wallet_id, type, amount, datetime, description, party_id)
    select ${userId}::bigint, case when i % 3 = 0 then ${euros}::bigint else ${dollars}::bigint end,
           case when i % 5 = 0 then 'income' else 'expense' end,
           (i % 10000 + 1) / 100.0,
           now() - (i::bigint * 3 * 365 * 1440 / ${rows}::int) * interval '1 minute',
           'bench ' || i, case when i % 4 = 0 then ${party.id}::bigint end
    from generate_series(1, ${rows}::int) as i`.execute(db);
  await sql`
    insert into transaction_categories (transaction_id, category_id, user_id)
    select id, case when type = 'income' then ${salary}::bigint else ${food}::bigint end, user_id
    from transactions where user_id = ${userId} and id % 2 = 0`.execute(db);
  await sql`vacuum analyze transactions`.execute(db);
  await sql`vacuum analyze transaction_categories`.execute(db);
  return { dollars, euros, salary, food, party: party.id };
}

/** A database only for this run, on the server of `serverUrl`; `drop` removes it. */
export async function scratchDatabase(serverUrl: string, prefix = 'finance_bench') {
  const name = `${prefix}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
