// `make bench` (part 2): GET /api/v1/stats with its defaults (last 30 days, every section) for
// one user with BENCH_STATS_ROWS transactions (default 1,000,000, spread over three years),
// through the full app. Seeding is one INSERT … SELECT generate_series. On PostgreSQL it runs
// in a throwaway database that is dropped at the end. The service runs in a child process
// (this file with `serve`, see bench-app.ts) so the load generator does not share its event loop.
import { loadFigures, loadTarget, spawnBenchServer, startBenchApp, type ServedTarget } from './bench-app.js';
import { seedLedger } from './seed-ledger.js';

const ROWS = Number(process.env.BENCH_STATS_ROWS ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

interface Target extends ServedTarget {
  seedSeconds: number;
}

if (process.argv[2] === 'serve') await serve();
else await measure();

async function measure() {
  const { target, child } = await spawnBenchServer<Target>(import.meta.filename);
  try {
    await loadTarget(target, 2, CONNECTIONS); // warm-up
    console.log(`\nGET /api/v1/stats (defaults) on the ${target.database} database, ${ROWS} transactions (seeded in ${target.seedSeconds.toFixed(1)} s)`);
    for (const connections of [1, CONNECTIONS]) {
      const result = await loadTarget(target, DURATION, connections);
      console.log(`${String(connections).padStart(3)} connection(s), ${DURATION} s: ${loadFigures(result)}`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

async function serve() {
  const bench = await startBenchApp('stats');
  const started = performance.now();
  await seedLedger(bench.database.db, bench.userId, ROWS);
  await bench.serve({ route: '/api/v1/stats', seedSeconds: (performance.now() - started) / 1000 });
}
