// `make bench` (part 4): how long the local assistant engine takes to answer a reply once the
// answering job picks it up (claim, parse, tools, proposals stored), with no language model
// configured, for the bench database's user with 100,000 transactions (seeded by
// scripts/bench/seed.ts when missing). Each sentence of a mixed set (expenses, a transfer,
// balances, spending, top categories, budgets, recent transactions, help) is asked
// BENCH_ASSISTANT_ROUNDS times; the goal is < 200 ms.
import { answerPendingReplies } from '../../jobs/answer-chat-message.js';
import { openBenchApp } from './bench-database.js';
import { BENCH_PASSWORD, ensureSeeded } from './seed.js';

const ROWS = 100_000;
const ROUNDS = Number(process.env.BENCH_ASSISTANT_ROUNDS ?? 20);
const SENTENCES = [
  'I spent 40 USD on expense 3 at Party 4 yesterday',
  'got paid 2500 income 1 into Checking',
  'move 200 from Checking to Savings',
  'how much is in my wallets?',
  'how much did I spend on expense 3 last month?',
  'top categories this year',
  'am I over budget?',
  'show my last 5 transactions',
  "j'ai dépensé 12,50 € en restaurant hier",
  'hello',
];

const silentLog = { info() {}, error() {}, warn() {}, debug() {} } as never;

delete process.env.LLM_BASE_URL; // the local engine is what is measured
const { app, database } = await openBenchApp();
try {
  const [user] = await ensureSeeded(database.db, app, [{ label: '100k', rows: ROWS }], (line) => console.error(line));
  const login = await app.inject({ method: 'POST', url: '/api/login', payload: { email: user!.email, password: BENCH_PASSWORD } });
  const token = login.json().data.token as string;
  const seedSeconds = user!.seedSeconds;
  const timings: number[] = [];
  const bySentence = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const message of SENTENCES) {
      const created = await app.inject({ method: 'POST', url: '/api/v1/ai/chats', headers: { authorization: `Bearer ${token}` }, payload: { message } });
      if (created.statusCode !== 201) throw new Error(`POST /ai/chats answered ${created.statusCode}: ${created.body}`);
      const started = performance.now();
      const answered = await answerPendingReplies(database.db, app.services, silentLog);
      const elapsed = performance.now() - started;
      timings.push(elapsed);
      bySentence.set(message, [...(bySentence.get(message) ?? []), elapsed]);
      if (answered !== 1) throw new Error(`expected one reply answered, got ${answered}`);
    }
  }
  const failed = await database.db.selectFrom('chat_messages').select('id').where('role', '=', 'assistant').where('status', '!=', 'completed').execute();
  if (failed.length > 0) throw new Error(`${failed.length} replies did not complete`);
  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))].toFixed(1);
  console.log(`\nLocal assistant replies on the ${database.kind} database, ${ROWS} transactions (seeded in ${seedSeconds.toFixed(1)} s)`);
  console.log(`${timings.length} replies (${SENTENCES.length} sentences x ${ROUNDS}): p50 ${at(0.5)} ms   p95 ${at(0.95)} ms   p99 ${at(0.99)} ms   max ${timings.at(-1)!.toFixed(1)} ms   (goal < 200 ms)`);
  for (const [message, times] of bySentence) {
    times.sort((a, b) => a - b);
    console.log(`  ${message.padEnd(45)} p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms   max ${times.at(-1)!.toFixed(1)} ms`);
  }
} finally {
  await app.close();
  await database.close();
}
