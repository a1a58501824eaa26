// `make bench` (part 3): budget progress for one user with BENCH_STATS_ROWS transactions
// (default 1,000,000 over three years, the stats benchmark's ledger) and one refund in every
// 500 incomes. The budget is monthly, in USD, with a category target and a wallet target (so
// both the category link and the EUR conversion are exercised).
// Measured twice: progressOfBudget called directly (sequential calls, in the service process),
// and GET /api/v1/budgets/{id}/progress through the full app with autocannon. BENCH_EXPLAIN=1
// prints the aggregation's query plan. On PostgreSQL it runs in a throwaway database.
import { sql } from 'kysely';
import { budgetSpendingPlan, progressOfBudget, userToday } from '../../db/budget-spending.js';
import { currentWindow } from '../../domain/budget-periods.js';
import { loadFigures, loadTarget, spawnBenchServer, startBenchApp, type ServedTarget } from './bench-app.js';
import { seedLedger } from './seed-ledger.js';

const ROWS = Number(process.env.BENCH_STATS_ROWS ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const DIRECT_CALLS = Number(process.env.BENCH_BUDGET_CALLS ?? 300);

interface Target extends ServedTarget {
  seedSeconds: number;
  routeStatus: number;
  direct: { calls: number; p50: number; p99: number; perSecond: number };
}

if (process.argv[2] === 'serve') await serve();
else await measure();

async function measure() {
  const { target, child } = await spawnBenchServer<Target>(import.meta.filename);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  try {
    console.log(`\nBudget progress on the ${target.database} database, ${ROWS} transactions (seeded in ${target.seedSeconds.toFixed(1)} s)`);
    const { direct } = target;
    console.log(`progressOfBudget, ${direct.calls} sequential calls: ${direct.perSecond.toFixed(1)} calls/s   p50 ${ms(direct.p50)}   p99 ${ms(direct.p99)}`);
    if (target.routeStatus !== 200) {
      console.log(`GET /api/v1/budgets/{id}/progress answered ${target.routeStatus}: not measured over HTTP`);
      return;
    }
    await loadTarget(target, 2, CONNECTIONS); // warm-up
    for (const connections of [1, CONNECTIONS]) {
      const result = await loadTarget(target, DURATION, connections);
      console.log(`GET /api/v1/budgets/{id}/progress, ${String(connections).padStart(2)} connection(s), ${DURATION} s: ${loadFigures(result)}`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

async function serve() {
  const { app, database, token, userId, serve: listen } = await startBenchApp('budgets');
  const started = performance.now();
  const ledger = await seedLedger(database.db, userId, ROWS);
  // One income in 500 becomes the refund of the expense made just before it.
  await sql`
    update transactions r set is_refund = true, refund_of_transaction_id = e.id
    from transactions e
    where r.user_id = ${userId} and r.type = 'income' and r.id % 2500 = 0
      and e.id = r.id - 1 and e.type = 'expense'`.execute(database.db);
  await sql`vacuum analyze transactions`.execute(database.db);
  const seedSeconds = (performance.now() - started) / 1000;

  const now = new Date();
  const budget = await database.db
    .insertInto('budgets')
    .values({
      user_id: userId,
      name: 'Bench',
      slug: 'bench',
      amount: '50000',
      currency: 'USD',
      period_type: 'monthly',
      start_date: `${now.getUTCFullYear() - 3}-01-01`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await database.db
    .insertInto('budget_targets')
    .values([
      { user_id: userId, budget_id: budget.id, target_type: 'category', category_id: ledger.food },
      { user_id: userId, budget_id: budget.id, target_type: 'wallet', wallet_id: ledger.euros },
    ])
    .execute();

  if (process.env.BENCH_EXPLAIN) {
    const window = currentWindow(budget, await userToday(database.db, userId, now));
    for (const planLine of await budgetSpendingPlan(database.db, budget, window)) console.error(planLine);
  }
  const timings: number[] = [];
  await progressOfBudget(database.db, app.services, budget, new Date()); // warm-up
  const directStarted = performance.now();
  for (let i = 0; i < DIRECT_CALLS; i++) {
    const callStarted = performance.now();
    await progressOfBudget(database.db, app.services, budget, new Date());
    timings.push(performance.now() - callStarted);
  }
  const directSeconds = (performance.now() - directStarted) / 1000;
  timings.sort((a, b) => a - b);
  const percentile = (p: number) => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))];

  const route = `/api/v1/budgets/${budget.id}/progress`;
  const probe = await app.inject({ method: 'GET', url: route, headers: { authorization: `Bearer ${token}` } });
  await listen({
    route,
    seedSeconds,
    routeStatus: probe.statusCode,
    direct: { calls: DIRECT_CALLS, p50: percentile(50), p99: percentile(99), perSecond: DIRECT_CALLS / directSeconds },
  });
}
