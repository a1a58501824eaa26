// Plans kept per connection for the few statements whose planning costs as much as their run.
// GET /stats reads in one statement of many union arms (db/statistics.ts, readTogether): on the
// bench's 1M-row ledger PostgreSQL spent ~6.5 ms planning it and ~8.6 ms running it, per request.
// A statement marked with KEEP_PLAN runs as a named prepared statement under
// `plan_cache_mode = force_generic_plan`, so a connection plans it once and reuses the plan (the
// `auto` mode kept choosing a fresh custom plan for half of the routes). Every other statement
// runs as before, unnamed and planned for its values: the mode is set around the marked
// statement only, since under it unnamed statements would get generic plans too.
//
// Only for PostgreSQL reached directly (db/connection.ts): the embedded database serves all of
// the pool's connections from one session, where two connections preparing the same name
// collide; and a transaction-mode pooler (PgBouncer) does not keep a session's statements
// (`DATABASE_KEEP_PLANS=0` turns this off).
import { createHash } from 'node:crypto';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** Marks a statement whose plan a connection keeps; it must open the statement's text. */
export const KEEP_PLAN = '/* keep plan */ ';

/**
 * Marks a statement that runs on many requests and reads a few rows by key (the token, a page's
 * nested records): a connection prepares it once, named, and PostgreSQL's own `auto` plan
 * cache mode settles on a generic plan after five runs when that plan costs no more, so the
 * statement stops being parsed and planned per request. No SET around it: nothing is forced.
 */
export const PREPARE_ONCE = '/* prepared */ ';

/** Named PREPARE_ONCE statements per connection (their plans are small: key look-ups). */
export const PREPARED_PER_CONNECTION = 16;

/**
 * Named statements per connection: each plan of a GET /stats read holds ~1.3 MB of the
 * backend's memory. Statements met after the cap run unnamed; the pool closes idle connections
 * (and their plans) after 10 s.
 */
export const KEPT_PLANS_PER_CONNECTION = 12;

/**
 * The statement's name: its text's digest, so one text has one name on every connection. Not
 * cached: a ~9 KB text hashes in microseconds, and a map keyed by a text built anew on every
 * request must hash it anyway.
 */
function statementName(text: string, prefix = 'kept'): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
}

/** The pool for Kysely, its clients running KEEP_PLAN statements with a kept plan. */
export function poolKeepingPlans(pool: pg.Pool, perConnection = KEPT_PLANS_PER_CONNECTION): PostgresPool {
  // one wrapper per connection, as Kysely keys its connection objects by the client it gets
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) wrappers.set(client, (wrapper = clientKeepingPlans(client, perConnection)));
      return wrapper;
    },
    end: () => pool.end(),
  };
}

function clientKeepingPlans(client: pg.PoolClient, perConnection: number): PostgresPoolClient {
  const names = new Set<string>();
  const prepared = new Set<string>();
  // looked up on each call, not bound once: instrumentation that wraps pg's query later sees these too
  const plain = ((...args: unknown[]) => Reflect.apply(client.query, client, args)) as PostgresPoolClient['query'];
  const query = ((textOrCursor: unknown, parameters?: readonly unknown[]) => {
    if (typeof textOrCursor === 'string' && textOrCursor.startsWith(PREPARE_ONCE)) {
      const name = statementName(textOrCursor, 'prep');
      if (!prepared.has(name)) {
        if (prepared.size >= PREPARED_PER_CONNECTION) return plain(textOrCursor, parameters ?? []);
        prepared.add(name);
      }
      return client.query({ name, text: textOrCursor, values: [...(parameters ?? [])] });
    }
    if (typeof textOrCursor !== 'string' || !textOrCursor.startsWith(KEEP_PLAN)) return plain(textOrCursor as never, parameters as never);
    const name = statementName(textOrCursor);
    if (!names.has(name)) {
      if (names.size >= perConnection) return plain(textOrCursor, parameters ?? []);
      names.add(name);
    }
    return runKept(client, name, textOrCursor, parameters ?? []);
  }) as PostgresPoolClient['query'];
  return { query, release: () => client.release() };
}

async function runKept(client: pg.PoolClient, name: string, text: string, values: readonly unknown[]) {
  await client.query('set plan_cache_mode = force_generic_plan');
  try {
    return await client.query({ name, text, values: [...values] });
  } finally {
    // Inside a transaction the statement's failure aborts it, and the rollback undoes the SET;
    // the RESET then fails and must not hide the statement's own error.
    await client.query('reset plan_cache_mode').catch(() => undefined);
  }
}
