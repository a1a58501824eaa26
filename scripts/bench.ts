// `make bench`: loads the full stack (GET /api/v1/user: routing, auth, validation, handler,
// envelope) and a bare fastify route running the same SQL, with the same autocannon settings,
// and prints requests per second, p50/p99 latency and the ratio full/bare (target ≥ 0.6).
// The servers run in a child process so the load generator does not share their event loop.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import autocannon from 'autocannon';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);

const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'bench', 'servers.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: process.env,
});
const firstLine = await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout! }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});
const target = JSON.parse(firstLine) as { full: string; bare: string; token: string; database: string };

async function load(url: string, seconds: number) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${target.token}` },
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

try {
  await load(target.full, 2); // warm-up: JIT, connection pools
  await load(target.bare, 2);
  const bare = await load(target.bare, DURATION);
  const full = await load(target.full, DURATION);
  const row = (name: string, r: { rps: number; p50: number; p99: number }) =>
    `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(1).padStart(5)} ms   p99 ${r.p99.toFixed(1).padStart(5)} ms`;
  console.log(`\nGET /api/v1/user on the ${target.database} database, ${CONNECTIONS} connections, ${DURATION} s each`);
  console.log(row('bare fastify route, same SQL', bare));
  console.log(row('full stack', full));
  const ratio = full.rps / bare.rps;
  console.log(`ratio full/bare: ${ratio.toFixed(2)} (target ≥ 0.60) ${ratio >= 0.6 ? 'OK' : 'BELOW TARGET'}`);
} finally {
  child.kill('SIGTERM');
}
