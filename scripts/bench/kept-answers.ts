// In-process cost of a kept answer (issue 40 item 2) against GET /user and a 304, on the
// seeded bench database (PostgreSQL, `make bench` seeds it): app.inject one request at a time,
// the cases in turn so the machine's load weighs on them alike, median and mean in ms.
//   DATABASE_URL=postgres://… npx tsx scripts/bench/kept-answers.ts
import { sql } from 'kysely';
import { openBenchApp } from './bench-database.js';
import { BENCH_PASSWORD } from './seed.js';

const ROUNDS = Number(process.env.ROUNDS ?? 600);
const { app, database } = await openBenchApp();
const { rows } = await sql<{ email: string }>`select seeded->>'email' as email from bench_seed where label = 'main'`.execute(database.db);
const login = await app.inject({ method: 'POST', url: '/api/v1/login', payload: { email: rows[0].email, password: BENCH_PASSWORD } });
const auth = { authorization: `Bearer ${login.json().data.token as string}` };
const list = '/api/v1/transactions?page=1&limit=50';
const tag = String((await app.inject({ method: 'GET', url: list, headers: auth })).headers.etag);
const cases: Record<string, Record<string, string>> = {
  'GET /user': {},
  'list page 1, kept, gzip': { 'accept-encoding': 'gzip' },
  'list page 1, kept, identity': {},
  'list page 1, If-None-Match (304)': { 'if-none-match': tag },
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, headers] of Object.entries(cases)) {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url: name === 'GET /user' ? '/api/v1/user' : list, headers: { ...auth, ...headers } });
    if (res.statusCode >= 400) throw new Error(`${name}: ${res.statusCode}`);
    if (round >= ROUNDS / 6) times[name].push(performance.now() - started); // the first sixth warms up
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const user = median(times['GET /user']);
for (const [name, values] of Object.entries(times)) {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`${name.padEnd(34)} median ${median(values).toFixed(3)} ms, mean ${mean.toFixed(3)} ms; GET /user's median over it ${(user / median(values)).toFixed(2)}`);
}
await app.close();
await database.close();
