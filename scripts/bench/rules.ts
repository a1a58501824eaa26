// What rules cost (issue 42): a statement import and a transaction create for a user with 200
// rules against the same for a user with none, in one process, on a database of its own
// (PostgreSQL `finance_bench_rules` on DATABASE_URL's server, dropped first; else an embedded
// one in a temporary folder).
//
// - Import: the bank export of the import bench (csv-import.ts), BENCH_RULES_ROWS lines
//   (default 20,000), uploaded to POST /v1/import/analyze, analysed by its job, confirmed with
//   accept_all by the confirm job (where rules run, 2,000 lines per batch); timed from the
//   upload to the last batch. The 200 rules are what a user writes: 150 `counterparty is
//   "Händler N"` (set category and party by name), 30 `description contains`, 10 regexes,
//   10 amount ranges; most lines match one.
// - Review: after the analysis, GET /v1/import/sessions/{id} with its first 2,000 suggestions
//   (a page of the review, each showing what the rules will do), timed apart from the import.
// - Create: BENCH_RULES_CREATES POST /v1/transactions (default 300) per user, one user's then
//   the other's in turn; median and mean. No rule matches these lines: the cost measured is
//   reading and compiling the rules.
// The two users alternate (none, rules, none, rules) so drift on a shared machine hits both.
// BENCH_RULES_EXPLAIN_MS (PostgreSQL): log slow statements with their plans, see below.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/rules.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { analyzeImportJob } from '../../jobs/analyze-import.js';
import { confirmImportJob } from '../../jobs/confirm-import.js';
import { buildApp } from '../../server/app.js';
import { benchConfig } from './bench-database.js';
import { bankExport } from './csv-import.js';

const ROWS = Number(process.env.BENCH_RULES_ROWS ?? 20_000);
const CREATES = Number(process.env.BENCH_RULES_CREATES ?? 300);
const DB_NAME = 'finance_bench_rules';

const dataDir = mkdtempSync(path.join(tmpdir(), 'finance-bench-rules-'));
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB_NAME}`);
  // BENCH_RULES_EXPLAIN_MS=N: every statement of N ms or more, triggers' own included, goes to
  // the server's log with its plan and row counts (auto_explain), to see where a confirm spends
  if (process.env.BENCH_RULES_EXPLAIN_MS) {
    for (const setting of [`session_preload_libraries = 'auto_explain'`, `auto_explain.log_min_duration = '${Number(process.env.BENCH_RULES_EXPLAIN_MS)}ms'`, `auto_explain.log_nested_statements = on`, `auto_explain.log_analyze = on`, `auto_explain.log_triggers = on`]) {
      await admin.query(`ALTER DATABASE ${DB_NAME} SET ${setting}`);
    }
  }
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${DB_NAME}`;
  databaseUrl = url.toString();
}
const database = await openDatabase({ databaseUrl, dataDir: databaseUrl ? undefined : path.join(dataDir, 'embedded'), poolSize: 10 });
await migrateToLatest(database.db);
const app = await buildApp({ config: benchConfig(dataDir), database, logger: false });
await app.services.appKey();
const jobCtx = { db: database.db, services: app.services, log: app.log };

async function newUser(name: string): Promise<{ token: string; userId: number }> {
  const email = `${name}-${Date.now()}@bench.example`;
  const res = await app.inject({ method: 'POST', url: '/api/register', payload: { email, password: 'a long bench password', first_name: name } });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`register: ${res.statusCode} ${res.body}`);
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { email, password: 'a long bench password' } });
  const data = login.json().data;
  return { token: data.token, userId: data.user.id };
}

const call = async (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => {
  const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as never });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.json().data;
};

/** The 200 rules; `miss` changes every value so that no line matches (the cost of evaluation alone). */
async function addRules(token: string, miss = false): Promise<void> {
  const x = miss ? 'nowhere ' : '';
  const category = await call(token, 'POST', '/api/v1/categories', { name: 'Bench shops', type: 'expense' });
  for (let i = 0; i < 150; i++) {
    await call(token, 'POST', '/api/v1/rules', { name: `shop ${i}`, conditions: [{ field: 'counterparty', operator: 'is', value: `${x}Händler ${i}` }], actions: [{ type: 'set_categories', category_ids: [category.id] }, { type: 'set_party', party_name: `Shop ${i}`, create_party: true }] });
  }
  for (let i = 0; i < 30; i++) await call(token, 'POST', '/api/v1/rules', { name: `memo ${i}`, conditions: [{ field: 'description', operator: 'contains', value: `${x}Filiale ${i % 7} extra ${i}` }], actions: [{ type: 'add_note', note: `memo ${i}` }] });
  for (let i = 0; i < 10; i++) await call(token, 'POST', '/api/v1/rules', { name: `regex ${i}`, conditions: [{ field: 'description', operator: 'regex', value: `^${x}einkauf ${i}\\d*5; filiale` }], actions: [{ type: 'add_note', note: `regex ${i}` }] });
  for (let i = 0; i < 10; i++) await call(token, 'POST', '/api/v1/rules', { name: `amount ${i}`, match: 'all', conditions: [{ field: 'amount', operator: 'between', amount: (miss ? 900_000 : 5000) + i, amount_to: (miss ? 900_000 : 5000) + i + 0.5 }, { field: 'type', value: 'income' }], actions: [{ type: 'add_note', note: 'big' }] });
}

/** Upload, analysis and whole-session confirm of `rows` lines; seconds from the upload to the end. */
async function importOnce(token: string, rows: number, year: number): Promise<{ seconds: number; analyse: number; confirm: number; review: number }> {
  const data = bankExport(rows, `DE4450010517540${String(Date.now() % 1e7).padStart(7, '0')}`, year);
  const boundary = '----bench';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="umsaetze.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const started = performance.now();
  const res = await app.inject({ method: 'POST', url: '/api/v1/import/analyze', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
  if (res.statusCode !== 201) throw new Error(`analyze: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const sessionId = res.json().data.id;
  await analyzeImportJob.run(jobCtx, { sessionId });
  const reviewStarted = performance.now();
  await call(token, 'GET', `/api/v1/import/sessions/${sessionId}?suggestions_limit=2000`);
  const review = performance.now() - reviewStarted;
  const analysed = performance.now();
  await call(token, 'POST', '/api/v1/import/confirm', { session_id: sessionId, accept_all: true, auto_create_wallets: true, auto_create_parties: true });
  await confirmImportJob.run(jobCtx, { sessionId });
  const finished = performance.now();
  const session = await call(token, 'GET', `/api/v1/import/sessions/${sessionId}?suggestions_limit=0`);
  if (session.metadata?.confirm?.state !== 'done' || session.metadata.confirm.created_count !== rows) throw new Error(`confirm: ${JSON.stringify(session.metadata?.confirm)}`);
  return { seconds: (finished - started - review) / 1000, analyse: (reviewStarted - started) / 1000, confirm: (finished - analysed) / 1000, review };
}

async function createsOnce(token: string, walletId: number, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call(token, 'POST', '/api/v1/transactions', { type: 'expense', amount: 1.25, wallet_id: walletId, description: `Kartenzahlung Händler ${i % 250} Filiale ${i % 7}` });
    times.push(performance.now() - started);
  }
  return times;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

const none = await newUser('none');
const ruled = await newUser('rules');
await addRules(ruled.token);
// BENCH_RULES_MISS=1: a third user whose 200 rules match no line
const missing = process.env.BENCH_RULES_MISS === '1' ? await newUser('miss') : undefined;
if (missing) await addRules(missing.token, true);
const rulesCount = (await call(ruled.token, 'GET', '/api/v1/rules?limit=1')).total;
console.log(`database: ${databaseUrl ? 'PostgreSQL' : 'embedded'}; ${rulesCount} rules; ${ROWS} lines per import; ${CREATES} creates per user`);

// warm-up: a small import and a few creates each
for (const user of [none, ruled, ...(missing ? [missing] : [])]) {
  await importOnce(user.token, 200, 10);
  const wallet = (await call(user.token, 'GET', '/api/v1/wallets?limit=1')).data[0].id;
  await database.db.updateTable('wallets').set({ balance: '100000000', opening_balance: '100000000' }).where('id', '=', wallet).execute();
  await createsOnce(user.token, wallet, 20);
}

const imports: Record<'none' | 'rules' | 'miss', Array<{ seconds: number; analyse: number; confirm: number; review: number }>> = { none: [], rules: [], miss: [] };
const creates: Record<'none' | 'rules', number[]> = { none: [], rules: [] };
for (const [round, year] of [11, 12].entries()) {
  for (const [name, user] of [['none', none], ['rules', ruled], ...(missing ? [['miss', missing] as const] : [])] as const) {
    imports[name].push(await importOnce(user.token, ROWS, year));
    console.log(`round ${round + 1} ${name}: import ${imports[name].at(-1)!.seconds.toFixed(1)} s (analyse ${imports[name].at(-1)!.analyse.toFixed(1)}, confirm ${imports[name].at(-1)!.confirm.toFixed(1)}); review page ${imports[name].at(-1)!.review.toFixed(0)} ms`);
  }
}

// creates alternate between the users call by call, so the machine's drift hits both alike
const wallets = { none: (await call(none.token, 'GET', '/api/v1/wallets?limit=1')).data[0].id, rules: (await call(ruled.token, 'GET', '/api/v1/wallets?limit=1')).data[0].id };
for (let i = 0; i < CREATES; i++) {
  for (const [name, user] of [['none', none], ['rules', ruled]] as const) creates[name].push(...(await createsOnce(user.token, wallets[name], 1)));
}

const total = (name: 'none' | 'rules' | 'miss') => imports[name].reduce((sum, run) => sum + run.seconds, 0);
const confirmTotal = (name: 'none' | 'rules' | 'miss') => imports[name].reduce((sum, run) => sum + run.confirm, 0);
console.log(`import of ${ROWS} lines (2 runs each): none ${(total('none') / 2).toFixed(1)} s, 200 rules ${(total('rules') / 2).toFixed(1)} s: ratio ${(total('rules') / total('none')).toFixed(2)} (goal <= 1.3); confirm stage alone ratio ${(confirmTotal('rules') / confirmTotal('none')).toFixed(2)}`);
if (missing) console.log(`200 rules matching no line: import ${(total('miss') / 2).toFixed(1)} s, ratio ${(total('miss') / total('none')).toFixed(2)}; confirm stage alone ratio ${(confirmTotal('miss') / confirmTotal('none')).toFixed(2)}`);
console.log(`create: none median ${median(creates.none).toFixed(2)} ms (mean ${mean(creates.none).toFixed(2)}), 200 rules median ${median(creates.rules).toFixed(2)} ms (mean ${mean(creates.rules).toFixed(2)}): ratio ${(median(creates.rules) / median(creates.none)).toFixed(2)}`);
const filed = await database.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', ruled.userId).where('metadata', 'is not', null).executeTakeFirstOrThrow();
console.log(`transactions of the rules user filed by a rule: ${filed.n}`);

await app.close();
await database.close();
rmSync(dataDir, { recursive: true, force: true });
