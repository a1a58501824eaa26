// The test runner of `make test`, `make test-pg` and .ci/run. Each test file runs in a process
// of its own, as under `tap`, but the runner decides what tap cannot:
// - which files: test/unit/ never opens a database, so `--database-only` (the PostgreSQL
//   pass) leaves it out; every other file runs on the database DATABASE_URL names (embedded
//   when unset);
// - in what order: the longest files first (their last times, kept in .tap/test-times.json;
//   without them, the files known to be long), so that no long file starts last and ends
//   the run alone;
// - how many at once: --jobs, by default one per core;
// - what a database costs: the migrated template is built once, before any file starts
//   (test/helpers/migrated-database.ts).
// It prints each file as it ends (the whole output of a failing one), then the ten slowest
// files, the operations no test called, and tap's summary line.
//
//   tsx scripts/test.ts [--database-only] [--jobs N] [file or folder ...]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { embeddedTemplate, postgresTemplate } from '../test/helpers/migrated-database.js';
import { reportOperationCoverage } from './operation-coverage.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEST_DIR = path.join(ROOT, 'test');
const UNIT_DIR = path.join(TEST_DIR, 'unit');
const TIMES_FILE = path.join(ROOT, '.tap', 'test-times.json');
/**
 * This run's own transpiled tree and coverage records, so a run started beside another in the
 * same checkout (one file while the whole suite runs) neither rebuilds nor clears the other's.
 * The build sits two levels under the root, where test/helpers/project.ts looks for it.
 */
const BUILD_DIR = path.join(ROOT, '.tap', `build-${process.pid}`);
const COVERAGE_DIR = path.join(ROOT, '.tap', `operation-coverage-${process.pid}`);
/** The TypeScript of the service and its tests, and what they read beside it at run time. */
const SOURCE_DIRS = ['db', 'domain', 'generated', 'handlers', 'jobs', 'scripts', 'server', 'test'];
const BESIDE_SOURCES = ['generated/openapi.json', 'generated/mcp-tools.json', 'test/fixtures', 'test/clients/reference-calls.json'];
/** Longest first when no earlier run's times are known (a clean clone: CI). */
const KNOWN_LONG = ['test/fuzz.test.ts', 'test/process-fleet.test.ts', 'test/crash-recurring.test.ts', 'test/crash-import-mail.test.ts', 'test/sync-fleet.test.ts', 'test/import-session-scale.test.ts'];
/**
 * Node's arguments for each test process. `--liftoff-only`: V8 compiles the embedded database's
 * WebAssembly with its baseline compiler only. By default it also recompiles hot functions
 * with its optimising compiler on background threads, which a process living seconds never
 * pays back: 2-3 s of CPU per test file for the same wall time (docs/testing.md). More
 * arguments come from TEST_NODE_ARGS, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
 */
const NODE_ARGS = ['--enable-source-maps', '--liftoff-only', ...(process.env.TEST_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const TIMEOUT_SECONDS: number = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).tap.timeout;

interface Counts {
  total: number;
  pass: number;
  fail: number;
  skip: number;
  todo: number;
}

interface FileResult {
  file: string;
  seconds: number;
  ok: boolean;
  counts: Counts;
  output: string;
}

const { values: options, positionals } = parseArgs({
  options: { 'database-only': { type: 'boolean', default: false }, jobs: { type: 'string' } },
  allowPositionals: true,
});
const jobs = Number(options.jobs ?? process.env.TEST_JOBS ?? availableParallelism());
const database = process.env.DATABASE_URL ? 'postgresql' : 'embedded';

function testFiles(under: string): string[] {
  if (statSync(under).isFile()) return [under];
  return readdirSync(under, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Transpiles the TypeScript once for the run, with esbuild as tsx does in every process: a test
 * process then loads plain JavaScript, ~1 s less than through tsx's loader (docs/testing.md).
 * Linked source maps keep stack traces and tap's failure reports on the .ts lines.
 */
async function transpileOnce(): Promise<void> {
  const { build } = await import('esbuild');
  removeLeftoversOfEndedRuns();
  await build({
    entryPoints: SOURCE_DIRS.flatMap((dir) => typeScriptFiles(path.join(ROOT, dir))),
    outdir: BUILD_DIR,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const file of BESIDE_SOURCES) symlinkSync(path.join(ROOT, file), path.join(BUILD_DIR, file));
}

/** The build and coverage folders of runs that were interrupted (their process is gone). */
function removeLeftoversOfEndedRuns(): void {
  mkdirSync(path.join(ROOT, '.tap'), { recursive: true });
  for (const name of readdirSync(path.join(ROOT, '.tap'), { withFileTypes: true })) {
    const pid = /^(?:build|operation-coverage)-(\d+)$/.exec(name.name)?.[1];
    if (pid && !isRunning(Number(pid))) rmSync(path.join(ROOT, '.tap', name.name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function pastTimes(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'))[database] ?? {};
  } catch {
    return {};
  }
}

function runOrder(files: string[], times: Record<string, number>): string[] {
  const expected = (file: string) => times[file] ?? (KNOWN_LONG.includes(file) ? 1000 - KNOWN_LONG.indexOf(file) : 0);
  return [...files].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
}

/** The counts tap prints at the end of a file's output: `# { total: 81, pass: 80, skip: 1 }`. */
function countsOf(output: string): Counts | undefined {
  const line = output.match(/^# (\{ total: .*\})$/m)?.[1];
  if (!line) return undefined;
  const count = (name: string) => Number(line.match(new RegExp(`${name}: (\\d+)`))?.[1] ?? 0);
  return { total: count('total'), pass: count('pass'), fail: count('fail'), skip: count('skip'), todo: count('todo') };
}

function runFile(file: string): Promise<FileResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const transpiled = path.join(BUILD_DIR, file.replace(/\.ts$/, '.js'));
    const child = spawn(process.execPath, [...NODE_ARGS, transpiled], {
      cwd: ROOT,
      env: { ...process.env, TAP_TIMEOUT: String(TIMEOUT_SECONDS), TAP_COLOR: '0', TEST_COVERAGE_DIR: COVERAGE_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk));
    // tap's own limit ends a file's tests; this one ends a process that does not exit after them
    const limit = setTimeout(() => child.kill('SIGKILL'), (TIMEOUT_SECONDS + 30) * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const seconds = (performance.now() - started) / 1000;
      const counts = countsOf(output);
      const ok = code === 0 && counts !== undefined && counts.fail === 0;
      if (signal) output += `\n# killed by ${signal} after ${seconds.toFixed(0)} s`;
      // a file that ends without its counts (a crash, a kill) is one failure
      resolve({ file, seconds, ok, counts: counts ?? { total: 1, pass: 0, fail: 1, skip: 0, todo: 0 }, output });
    });
  });
}

async function runAll(files: string[]): Promise<FileResult[]> {
  const queue = [...files];
  const results: FileResult[] = [];
  const worker = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runFile(file);
      results.push(result);
      const tally = `${result.counts.pass}/${result.counts.total}`;
      console.log(`${result.ok ? 'ok    ' : 'not ok'} ${result.seconds.toFixed(1).padStart(6)} s  ${result.file}  (${tally})`);
      if (!result.ok) console.log(result.output.replace(/^/gm, '    '));
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  return results;
}

function saveTimes(results: FileResult[]): void {
  let all: Record<string, Record<string, number>> = {};
  try {
    all = JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    // first run
  }
  all[database] = { ...all[database], ...Object.fromEntries(results.map((r) => [r.file, Number(r.seconds.toFixed(1))])) };
  mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
  writeFileSync(TIMES_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

async function main(): Promise<number> {
  const began = performance.now();
  const targets = positionals.length > 0 ? positionals.map((p) => path.resolve(p)) : [TEST_DIR];
  const missing = targets.filter((target) => !existsSync(target));
  if (missing.length > 0) throw new Error(`no such test file or folder: ${missing.join(', ')}`);
  const files = targets
    .flatMap(testFiles)
    .filter((file) => !(options['database-only'] && file.startsWith(UNIT_DIR + path.sep)))
    .map((file) => path.relative(ROOT, file));

  const transpileStarted = performance.now();
  await transpileOnce();
  console.log(`# transpiled in ${((performance.now() - transpileStarted) / 1000).toFixed(1)} s`);

  if (files.some((file) => !file.startsWith(path.relative(ROOT, UNIT_DIR)))) {
    const templateStarted = performance.now();
    if (process.env.DATABASE_URL) await postgresTemplate(process.env.DATABASE_URL);
    else await embeddedTemplate();
    console.log(`# migrated template (${database}) ready in ${((performance.now() - templateStarted) / 1000).toFixed(1)} s`);
  }
  console.log(`# ${files.length} files on the ${database} database, ${jobs} at a time`);

  const results = await runAll(runOrder(files, pastTimes()));
  saveTimes(results);

  console.log('\n# slowest files');
  for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`# ${r.seconds.toFixed(1).padStart(7)} s  ${r.file}`);
  // which operations no test called: meaningful only when every file that calls operations ran
  if (positionals.length === 0) reportOperationCoverage(COVERAGE_DIR);
  for (const dir of [BUILD_DIR, COVERAGE_DIR]) rmSync(dir, { recursive: true, force: true });

  const sum = (key: keyof Counts) => results.reduce((n, r) => n + r.counts[key], 0);
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) console.log(`\n# failed files:\n${failed.map((r) => `#   ${r.file}`).join('\n')}`);
  const parts = (['pass', 'fail', 'skip', 'todo'] as const).filter((key) => key === 'pass' || sum(key) > 0).map((key) => `${key}: ${sum(key)}`);
  console.log(`# { total: ${sum('total')}, ${parts.join(', ')} }`);
  console.log(`# ${results.length} files in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  return failed.length > 0 ? 1 : 0;
}

process.exitCode = await main();
