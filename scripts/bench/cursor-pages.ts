// What a deep page of the transaction list costs by `page` (an offset, no anchor: a client
// opening it cold) and by `cursor` (after the previous page's last row, by key), against the
// first page, on the seeded bench database, read only:
//   DATABASE_URL=postgres://… npx tsx scripts/bench/cursor-pages.ts [label] [rounds]
// `label` is a bench_seed user (default `main`). Each case runs the list's own code path
// (db/feed.ts `feedPage`, with the handler's order, bare query and count from the summary) on
// a session that cannot write (`default_transaction_read_only`), in turn with the others,
// `rounds` times (default 15); printed: the median wall time of the page's statements and, from
// EXPLAIN ANALYZE of each statement it ran, their median execution time in PostgreSQL.
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { POSTGRES_SESSION_OPTIONS } from '../../db/connection.js';
import { feedPage, type FeedOptions, type ListOrder } from '../../db/feed.js';
import type { Database } from '../../db/schema.js';
import { selectTransactions, transactionTotals } from '../../db/transactions.js';

const label = process.argv[2] ?? 'main';
const rounds = Number(process.argv[3] ?? 15);
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL: the PostgreSQL server holding the bench database');
const url = new URL(serverUrl);
url.pathname = `/${process.env.BENCH_DB_NAME ?? 'finance_bench'}`;
const pool = new pg.Pool({ connectionString: url.toString(), max: 4, options: `${POSTGRES_SESSION_OPTIONS} -c default_transaction_read_only=on` });
const captured: CompiledQuery[] = [];
let capturing = false;
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: (event) => void (capturing && event.level === 'query' && captured.push(event.query)) });

const { rows: seeded } = await pool.query(`select rows, (seeded->>'userId')::bigint as user_id from bench_seed where label = $1`, [label]);
if (seeded.length === 0) throw new Error(`no bench_seed row labelled ${label}`);
const userId = Number(seeded[0].user_id);
// the transaction list's order and bare query, as handlers/transactions.ts gives them to the list
const order: ListOrder = [['transactions.datetime', 'desc'], ['transactions.created_at', 'desc'], ['transactions.id', 'desc']];
const bare = db.selectFrom('transactions').where('transactions.user_id', '=', userId);
const LIMIT = 50;
const total = (await transactionTotals(db, userId, {})).count;
console.log(`user ${label} (${userId}): ${total} live transactions, ${LIMIT} a page, ${rounds} rounds\n`);

/** One page as the list reads it; `anchorList` is left out, so a deep page by `page` has no anchor (a cold jump). */
const page = (options: Partial<FeedOptions>) =>
  feedPage(db, selectTransactions(db, userId), 'transactions', {
    page: 1,
    limit: LIMIT,
    order,
    bare,
    now: new Date(),
    countLive: async () => (await transactionTotals(db, userId, {})).count,
    sealCursor: (key) => JSON.stringify(key), // the key itself: the cursor's seal is not what is measured
    ...options,
  });

const deepPages = [2_000, 5_000, Math.floor(total / LIMIT / 2)].filter((n) => n * LIMIT < total);
const cases: Array<[string, () => Promise<unknown>]> = [['page 1', () => page({})]];
for (const n of deepPages) {
  // the key of the row before page n, as page n-1's next_cursor carries it
  const before = await page({ page: n - 1 });
  const key = JSON.parse(before.meta.next_cursor!) as string[];
  cases.push([`page ${n} by page (offset ${(n - 1) * LIMIT})`, () => page({ page: n })]);
  cases.push([`page ${n} by cursor`, () => page({ after: key })]);
}

const wall = new Map<string, number[]>();
const execution = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of cases) {
    captured.length = 0;
    capturing = true;
    const started = performance.now();
    await run();
    const elapsed = performance.now() - started;
    capturing = false;
    if (round === 0) continue; // warm-up
    wall.set(name, [...(wall.get(name) ?? []), elapsed]);
    let planned = 0;
    for (const query of captured) {
      if (!/^\s*select/i.test(query.sql) || /pg_stat_activity/.test(query.sql)) continue;
      const { rows } = await pool.query(`explain (analyze, format json) ${query.sql}`, query.parameters as unknown[]);
      planned += rows[0]['QUERY PLAN'][0]['Execution Time'] as number;
      if (round === 1 && process.env.PLANS === '1') console.log(name, query.sql, (await pool.query(`explain (analyze) ${query.sql}`, query.parameters as unknown[])).rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    execution.set(name, [...(execution.get(name) ?? []), planned]);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log('| page | wall ms (median) | execution ms in PostgreSQL (median, statements but the horizon) |');
console.log('|---|---|---|');
for (const [name] of cases) console.log(`| ${name} | ${median(wall.get(name)!).toFixed(1)} | ${median(execution.get(name)!).toFixed(2)} |`);
await db.destroy();
