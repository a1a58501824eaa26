// The edit loop, measured: from saving a spec file to the type errors of the handlers it
// affects. Each run adds a required property to `Wallet` (spec/components/ledger.yaml), runs
// `npm run generate` and then a type-checker, and checks that the errors name
// handlers/views/wallet.ts (the promise: the checker points at the handler to change); the
// spec and generated/ are put back after the last run. Prints each run and the medians.
//   npx tsx scripts/bench/edit-loop.ts [runs=5] [checkers=tsc,tsgo]
// tsc is TypeScript 5.x (the build's compiler); tsgo is @typescript/native-preview (the native
// compiler, type-checking only); tsc-incremental is tsc with a warm .tsbuildinfo.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const specFile = path.join(root, 'spec', 'components', 'ledger.yaml');
const generatedFiles = ['api.ts', 'openapi.json', 'operations.ts'].map((f) => path.join(root, 'generated', f));
const buildInfo = path.join(root, 'node_modules', '.cache', 'edit-loop.tsbuildinfo');

const CHECKERS: Record<string, string[]> = {
  tsc: [bin('tsc'), '--noEmit'],
  'tsc-incremental': [bin('tsc'), '--noEmit', '--incremental', '--tsBuildInfoFile', buildInfo],
  tsgo: [bin('tsgo'), '--noEmit'],
};

const runs = Number(process.argv[2] ?? 5);
const checkers = (process.argv[3] ?? 'tsc,tsgo').split(',');
const original = readFileSync(specFile, 'utf8');
const originalGenerated = generatedFiles.map((f) => readFileSync(f));
const WALLET_REQUIRED = 'required: [name, slug, type, description, currency, balance, icon, stats]';
if (!original.includes(WALLET_REQUIRED)) throw new Error('Wallet in spec/components/ledger.yaml changed: update the edit this bench makes');
const edited = original.replace(WALLET_REQUIRED, 'required: [name, slug, type, description, currency, balance, icon, stats, bench_probe]')
  .replace(/( {10}name:\n {12}type: string\n {12}example: Main Wallet\n)/, '$1          bench_probe:\n            type: string\n');

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs a program under /usr/bin/time: its output and the CPU seconds (user + system) it used,
 * which the other engineers' load on this shared machine changes far less than the wall time. */
function timed(command: string, args: string[]): { stdout: string; cpu: number } {
  const result = spawnSync('/usr/bin/time', ['-f', 'cpu %U %S', command, ...args], { cwd: root, encoding: 'utf8' });
  const [, user, system] = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr) ?? [];
  if (user === undefined) throw new Error(`${command} failed:\n${result.stderr.slice(-2000)}`);
  return { stdout: result.stdout, cpu: Number(user) + Number(system) };
}

function generate(): number {
  return timed(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'generate.ts')]).cpu;
}

/** Runs the checker; the output must name the wallet view (the handler the edit breaks). */
function check(checker: string): number {
  const [command, ...args] = CHECKERS[checker];
  const result = timed(command, args);
  if (!result.stdout.includes('handlers/views/wallet.ts')) throw new Error(`${checker} did not name handlers/views/wallet.ts:\n${result.stdout.slice(0, 2000)}`);
  return result.cpu;
}

const results: Record<string, { generate: number[]; check: number[]; total: number[]; cpu: number[] }> = {};
try {
  if (checkers.includes('tsc-incremental')) {
    rmSync(buildInfo, { force: true });
    spawnSync(CHECKERS['tsc-incremental'][0], CHECKERS['tsc-incremental'].slice(1), { cwd: root }); // warm the .tsbuildinfo
  }
  for (let run = 1; run <= runs; run++) {
    for (const checker of checkers) {
      writeFileSync(specFile, original);
      generatedFiles.forEach((f, i) => writeFileSync(f, originalGenerated[i]));
      const saved = process.hrtime.bigint();
      writeFileSync(specFile, edited);
      const generateCpu = generate();
      const generated = seconds(saved);
      const checking = process.hrtime.bigint();
      const checkCpu = check(checker);
      const row = (results[checker] ??= { generate: [], check: [], total: [], cpu: [] });
      row.generate.push(generated);
      row.check.push(seconds(checking));
      row.total.push(seconds(saved));
      row.cpu.push(generateCpu + checkCpu);
      console.log(`run ${run} ${checker.padEnd(16)} generate ${generated.toFixed(1)} s  check ${row.check.at(-1)!.toFixed(1)} s  save→errors ${row.total.at(-1)!.toFixed(1)} s  (CPU: generate ${generateCpu.toFixed(1)} s, check ${checkCpu.toFixed(1)} s)`);
    }
  }
} finally {
  writeFileSync(specFile, original);
  generatedFiles.forEach((f, i) => writeFileSync(f, originalGenerated[i]));
}
console.log(`\nmedians of ${runs} runs (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} at the end)`);
for (const [checker, row] of Object.entries(results)) {
  console.log(`${checker.padEnd(16)} generate ${median(row.generate).toFixed(1)} s  check ${median(row.check).toFixed(1)} s  save→errors ${median(row.total).toFixed(1)} s  (CPU ${median(row.cpu).toFixed(1)} s)`);
}
