// The measuring side of the benchmark: autocannon runs against the service child, the RSS
// of that child sampled through the whole run, and one result row per measured route.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface Row {
  part: string;
  name: string;
  connections: number;
  p50: number;
  p99: number;
  rps: number;
  /** Goal for p99 in ms (or a text goal for the other checks). */
  goal: string;
  met: boolean;
  note?: string;
}

export interface Target {
  full: string;
  /** The service child's process id (its RSS is read from /proc). */
  pid: number;
  bare: string;
  /** The same service without kept answers (RESPONSE_CACHE_MB=0). */
  uncached: string;
  /** The floor (scripts/bench/floor.ts); PostgreSQL only. */
  floor?: string;
  database: string;
  users: Array<{ label: string; rows: number; userId: number; token: string; wallets: number[]; categories: number[]; budgets: Record<string, number[]> }>;
  writer: { userId: number; token: string; wallets: number[] };
}

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** A process's resident set size now, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/** The bench service's live heap after a full collection, in MB (its bare `/bench/heap` route). */
export async function heapMb(target: Target): Promise<number> {
  return ((await (await fetch(`${target.bare}/bench/heap`)).json()) as { heapMb: number }).heapMb;
}

/** The child's resident set size, sampled every 200 ms; `peak()` since the last `reset()`. */
export function rssSampler(pid: number) {
  let peak = 0;
  let overall = 0;
  const sample = () => {
    try {
      const mb = rssMb(pid);
      peak = Math.max(peak, mb);
      overall = Math.max(overall, mb);
    } catch {
      // the child has exited
    }
  };
  const timer = setInterval(sample, 200);
  timer.unref();
  return {
    peak: () => (sample(), peak),
    overall: () => (sample(), overall),
    reset: () => void (peak = 0),
    stop: () => clearInterval(timer),
  };
}

export interface LoadOptions {
  url?: string;
  paths?: string[];
  token: string;
  connections: number;
  seconds?: number;
  /** Exactly this many requests instead of a duration. */
  amount?: number;
  method?: 'GET' | 'POST';
  /** Bodies for POST requests, used in turn. */
  bodies?: unknown[];
  /** More request headers (e.g. If-None-Match). */
  headers?: Record<string, string>;
  /** 304 Not Modified counts as an answer (a revalidation), not as a failure. */
  notModifiedExpected?: boolean;
}

/** One autocannon run; any non-2xx answer or error fails the benchmark. */
export async function load(base: string, options: LoadOptions) {
  const headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json', ...options.headers };
  const paths = options.paths ?? [''];
  const requests = options.bodies
    ? options.bodies.map((body) => ({ method: options.method ?? 'POST', path: paths[0], body: JSON.stringify(body) }))
    : paths.map((path) => ({ method: options.method ?? 'GET', path }));
  const result = await autocannon({
    url: options.url ?? base,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? SECONDS }),
    headers,
    requests: requests as autocannon.Request[],
  });
  const failed = options.notModifiedExpected ? result.non2xx - result['3xx'] + result['2xx'] : result.non2xx;
  if (failed > 0 || result.errors > 0 || result.timeouts > 0) {
    const first = requests[0] as { method: string; body?: string };
    const sample = await fetch(`${options.url ?? base}${paths[0]}`, { method: first.method, headers, body: first.body });
    throw new Error(`${paths[0]}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts; one again: ${sample.status} ${(await sample.text()).slice(0, 300)}`);
  }
  if (result.requests.total === 0) {
    // nothing answered within the run: the latency is at least its length
    const atLeast = (options.seconds ?? SECONDS) * 1000;
    return { p50: atLeast, p99: atLeast, rps: 0, total: 0, note: 'no answer within the run' };
  }
  return { p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average, total: result.requests.total, note: undefined };
}

/** Waits until the service answers `path` again (the requests a run left queued have drained). */
export async function settle(base: string, path: string, token: string): Promise<void> {
  await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(120_000) });
}

/** Prints one row as it is measured. */
export function report(row: Row): Row {
  const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(10);
  console.log(
    `${row.part.padEnd(8)} ${row.name.padEnd(58)} ${String(row.connections).padStart(3)}c  p50 ${ms(row.p50)}  p99 ${ms(row.p99)}  ${row.rps.toFixed(1).padStart(8)} req/s  goal ${row.goal.padEnd(12)} ${row.met ? 'OK' : 'MISSED'}${row.note ? `  (${row.note})` : ''}`,
  );
  return row;
}

/** Sorted-sample percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
