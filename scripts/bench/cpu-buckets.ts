// Where a CPU profile's time went, by kind of code: reads a V8 .cpuprofile (node --cpu-prof, or
// the bench server's per-route profiles) and sums each sampled function's self time into a
// bucket by its file: fastify, authentication (server/auth, db/tokens, jose, node's crypto),
// validation (openapi-backend, ajv, server/contract), the handlers' own JS (handlers/, domain/),
// serializers (handlers/views/, server/serializers, fast-json-stringify), the rest of server/,
// db/, kysely, pg, decimal.js, pino, node's own http/net/streams, GC. Code without a file
// (built-ins, ajv's and fast-json-stringify's compiled functions) counts to its caller.
//   npx tsx scripts/bench/cpu-buckets.ts <file.cpuprofile> [requests]
// With `requests` (how many requests the profile covers) it prints ms per request too.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Buckets in the order they are printed; `idle` is time the process waited (not CPU). */
export const BUCKETS = [
  'fastify',
  'authentication',
  'validation',
  'handlers/ (own JS)',
  'serializers',
  'server/ (other)',
  'db/',
  'kysely',
  'pg',
  'decimal.js',
  'pino',
  'node http/net/streams',
  'GC',
  'other',
  'idle',
] as const;
export type Bucket = (typeof BUCKETS)[number];

const FASTIFY = ['fastify', 'find-my-way', 'light-my-request', 'avvio', 'fast-querystring', 'fast-content-type-parse', 'toad-cache', 'secure-json-parse', 'fast-decode-uri-component', 'process-warning', 'abstract-logging'];
const VALIDATION = ['openapi-backend', 'ajv', 'ajv-formats', 'fast-uri', 'fast-deep-equal', 'json-schema-traverse', 'openapi-schema-validator', 'lodash'];
const PG = ['pg', 'pg-protocol', 'pg-pool', 'pg-types', 'pg-connection-string', 'postgres-array', 'postgres-date', 'postgres-interval', 'postgres-bytea', 'pgpass'];
const PINO = ['pino', 'pino-std-serializers', 'sonic-boom', 'thread-stream', 'fast-redact', 'on-exit-leak-free', 'quick-format-unescaped', 'atomic-sleep', 'safe-stable-stringify'];

/**
 * The bucket of a function by its file, or undefined for code with no file (native built-ins
 * such as JSON.parse, and code compiled at run time: ajv's validators, fast-json-stringify's
 * serializers), which counts to its caller's bucket.
 */
export function bucketOfFile(url: string): Bucket | undefined {
  if (url === '') return undefined;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg) {
    if (pkg === 'fast-json-stringify') return 'serializers';
    if (FASTIFY.includes(pkg) || pkg.startsWith('@fastify/')) return 'fastify';
    if (VALIDATION.includes(pkg)) return 'validation';
    if (PG.includes(pkg)) return 'pg';
    if (pkg === 'kysely') return 'kysely';
    if (PINO.includes(pkg)) return 'pino';
    if (pkg === 'jose' || pkg === 'lru-cache') return 'authentication';
    if (pkg === 'decimal.js') return 'decimal.js';
    return 'other';
  }
  // the project's own files, built (dist/<dir>/) or run from source (<root>/<dir>/)
  const own = /\/(handlers|server|db|domain|jobs|scripts)\/(.+)\.[jt]s$/.exec(url);
  if (own) {
    const [, dir, file] = own;
    if ((dir === 'server' && file === 'auth') || (dir === 'db' && file === 'tokens')) return 'authentication';
    if (dir === 'server' && (file === 'contract' || file === 'request-validation')) return 'validation';
    if ((dir === 'server' && file === 'serializers') || (dir === 'handlers' && file.startsWith('views/'))) return 'serializers';
    if (dir === 'handlers' || dir === 'domain') return 'handlers/ (own JS)';
    if (dir === 'server') return 'server/ (other)';
    if (dir === 'db') return 'db/';
    return 'other';
  }
  if (/^node:(internal\/)?(crypto|webcrypto)/.test(url) || url.startsWith('node:internal/crypto')) return 'authentication';
  if (/^node:(internal\/)?(_?http|net|stream|streams|timers|async_hooks|events|buffer|dns|url|querystring|process\/task_queues|stream_base_commons|perf)/.test(url)) return 'node http/net/streams';
  return 'other';
}

/** Self time (ms) per bucket; `total` is the profile's length. */
export function bucketProfile(profile: CpuProfile): { ms: Record<Bucket, number>; total: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, Bucket>();
  const bucketOf = (id: number): Bucket => {
    const known = memo.get(id);
    if (known) return known;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let bucket: Bucket | undefined;
    if (name === '(garbage collector)') bucket = 'GC';
    else if (name === '(idle)') bucket = 'idle';
    // V8's own work outside any JS function (compiling, the runtime): CPU, not idle
    else if (name === '(program)' || name === '(root)') bucket = 'other';
    else bucket = bucketOfFile(node.callFrame.url);
    if (!bucket) bucket = parent.has(id) ? bucketOf(parent.get(id)!) : 'other';
    memo.set(id, bucket);
    return bucket;
  };
  const ms = Object.fromEntries(BUCKETS.map((bucket) => [bucket, 0])) as Record<Bucket, number>;
  // a sample's time is the delta that follows it (V8 stores the delta before each sample)
  for (let i = 0; i < profile.samples.length; i++) {
    if (!byId.has(profile.samples[i])) continue;
    ms[bucketOf(profile.samples[i])] += (profile.timeDeltas[i + 1] ?? 0) / 1000;
  }
  return { ms, total: (profile.endTime - profile.startTime) / 1000 };
}

/** One line per bucket: share of the CPU time (idle excluded), and ms per request when known. */
export function formatBuckets(ms: Record<Bucket, number>, requests?: number): string[] {
  const cpu = BUCKETS.filter((bucket) => bucket !== 'idle').reduce((sum, bucket) => sum + ms[bucket], 0);
  const lines = BUCKETS.filter((bucket) => bucket !== 'idle').map(
    (bucket) =>
      `${bucket.padEnd(22)} ${((100 * ms[bucket]) / Math.max(cpu, 1e-9)).toFixed(1).padStart(5)} %` +
      (requests ? `  ${(ms[bucket] / requests).toFixed(3).padStart(7)} ms/request` : ''),
  );
  lines.push(`${'CPU (all but idle)'.padEnd(22)} ${cpu.toFixed(0).padStart(5)} ms` + (requests ? `  ${(cpu / requests).toFixed(3).padStart(7)} ms/request` : ''));
  lines.push(`${'idle'.padEnd(22)} ${ms.idle.toFixed(0).padStart(5)} ms`);
  return lines;
}

if (import.meta.filename === process.argv[1]) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpu-buckets.ts <file.cpuprofile> [requests]');
  const requests = process.argv[3] ? Number(process.argv[3]) : undefined;
  const { ms } = bucketProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  for (const line of formatBuckets(ms, requests)) console.log(line);
}
