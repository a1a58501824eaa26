// A write held open on a connection of its own (PostgreSQL): a party inserted in a transaction
// that has not committed, for the tests of late commits (sync feeds, conditional requests).
// `commit()` ends it; the connection closes with the test.
import pg from 'pg';
import type { Test } from 'tap';

export async function openPartyWrite(t: Test, connectionString: string, userId: number, name: string): Promise<{ commit: () => Promise<void> }> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  t.teardown(() => client.end());
  await client.query('begin');
  await client.query('insert into parties (user_id, name) values ($1, $2)', [userId, name]);
  return { commit: async () => void (await client.query('commit')) };
}
