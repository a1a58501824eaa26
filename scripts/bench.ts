// `make bench`: measures every hot path of issues 14 and 32 against its goal, through the full HTTP
// stack, with autocannon. The service runs in a child process (scripts/bench/server.ts) on a
// persistent bench database, seeded once (1,000,000 transactions for the main user on
// PostgreSQL, 100,000 embedded; BENCH_ROWS changes it) plus users with 10k and 100k rows.
// DATABASE_URL picks PostgreSQL, else the embedded database. BENCH_ONLY=user,ratios,list,sync,
// stats,budgets,writes,import runs some parts; BENCH_SECONDS sets each load's duration (default 5).
// The child's RSS is sampled through the run (goal < 300 MB). BENCH_SERVICE=built compiles
// the service (tsconfig.bench.json: what `npm run build` compiles, plus the bench server) and
// runs it with plain node, as deployed; the default runs it under tsx, whose compiler stays
// in memory. Results go to stdout and to $BENCH_DATA_DIR/results-<database>.json.
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { rssSampler, SECONDS, type Row, type Target } from './bench/load.js';
import { PARTS } from './bench/parts.js';

const only = process.env.BENCH_ONLY?.split(',').map((part) => part.trim()).filter(Boolean) ?? Object.keys(PARTS);
const unknown = only.filter((part) => !(part in PARTS));
if (unknown.length) throw new Error(`BENCH_ONLY: unknown part(s) ${unknown.join(', ')}; known: ${Object.keys(PARTS).join(', ')}`);

const started = performance.now();
const built = process.env.BENCH_SERVICE === 'built';
const root = path.join(import.meta.dirname, '..');
if (built) execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.bench.json')], { stdio: 'inherit' });
const serverArgs = built ? [path.join(root, 'dist', 'scripts', 'bench', 'server.js')] : ['--import', 'tsx', path.join(import.meta.dirname, 'bench', 'server.ts')];
// BENCH_NODE_ARGS: node flags for the service only (e.g. --max-old-space-size=256); a built
// service runs by default with the flags of `npm start`, as deployed
const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? (built ? startScriptNodeFlags() : []);
const child = spawn(process.execPath, ['--expose-gc', ...nodeArgs, ...serverArgs], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: process.env,
});
const line = await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout! }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
});
const target = JSON.parse(line) as Target;
const rss = rssSampler(child.pid!);
console.log(`\nbench on ${target.database}, ${availableParallelism()} cores, service ${built ? 'built (node dist/)' : 'under tsx'}${nodeArgs.length ? ` ${nodeArgs.join(' ')}` : ''}, ${SECONDS} s per load; ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`users: ${target.users.map((u) => `${u.label} (${u.rows} transactions)`).join(', ')}\n`);

const rows: Row[] = [];
try {
  for (const part of only) {
    rss.reset();
    rows.push(...(await PARTS[part](target)));
    console.log(`${part.padEnd(8)} service RSS peak during the part: ${rss.peak().toFixed(0)} MB\n`);
  }
} finally {
  const peak = rss.overall();
  rss.stop();
  child.kill('SIGTERM');
  const missed = rows.filter((row) => !row.met);
  console.log(`service RSS peak over the run: ${peak.toFixed(0)} MB (goal < 300 MB) ${peak < 300 ? 'OK' : 'MISSED'}`);
  console.log(`${rows.length - missed.length} of ${rows.length} rows met their goal`);
  const file = path.join(process.env.BENCH_DATA_DIR ?? path.join(tmpdir(), 'finance-bench'), `results-${target.database}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), cores: availableParallelism(), users: target.users.map((u) => ({ label: u.label, rows: u.rows })), rssPeakMb: peak, rows }, null, 2));
  console.log(`results: ${file}`);
}

/** The node flags of package.json's `start` script (`node --flag … dist/server/main.js`). */
function startScriptNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}
