// The `ratios` part of `make bench` (issue 32): each read of the table against GET /user
// in the same run, so the machine's speed cancels out. For every route: p50 alone (1
// connection), req/s under load (50 connections for lists and sync pages, 10 for statistics and
// wallets, as the issue measured), and that throughput as a share of GET /user's at the same
// connections, measured just before and just after the route (their mean), against the goal.
// Unchanged list and sync pages revalidated with If-None-Match (304) count against GET /user too.
//
// BENCH_PROFILE_DIR=<dir> then loads each route once more (10 connections, the run's length)
// with the probes of scripts/bench/probes.ts on: the service's CPU profile by bucket
// (scripts/bench/cpu-buckets.ts) and every SQL statement (count, ms, rows) per request.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bucketProfile, formatBuckets } from './cpu-buckets.js';
import { load, report, settle, SECONDS, type Row, type Target } from './load.js';
import type { StatementFigures } from './probes.js';

interface RatioRoute {
  name: string;
  path: string;
  connections: number;
  /** Least share of GET /user's req/s at the same connections. */
  ratio: number;
  /** Most p50 alone, in ms. */
  aloneMs: number;
  /** Revalidate: send If-None-Match with the tag a first GET answered (every answer must be 304). */
  revalidate?: boolean;
}

function routesOf(target: Target): RatioRoute[] {
  const main = target.users.find((user) => user.label === 'main')!;
  const since = (days: number) => encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString());
  const list = '/api/v1/transactions?page=1&limit=50';
  const syncDay = `/api/v1/transactions?synced_since=${since(1)}&limit=100`;
  return [
    { name: 'list page 1 (limit 50)', path: list, connections: 50, ratio: 0.25, aloneMs: 20 },
    { name: 'list page 1, wallet_ids', path: `${list}&wallet_ids=${main.wallets[1]}`, connections: 50, ratio: 0.25, aloneMs: 20 },
    { name: 'list page 5000', path: '/api/v1/transactions?page=5000&limit=50', connections: 50, ratio: 0.2, aloneMs: 20 },
    { name: 'sync 1 day ago, limit 100', path: syncDay, connections: 50, ratio: 0.25, aloneMs: 20 },
    { name: 'sync 2 years ago, limit 100, page 500', path: `/api/v1/transactions?synced_since=${since(730)}&limit=100&page=500`, connections: 50, ratio: 0.2, aloneMs: 20 },
    { name: 'GET /stats (defaults)', path: '/api/v1/stats', connections: 10, ratio: 0.2, aloneMs: 50 },
    { name: 'GET /wallets', path: '/api/v1/wallets', connections: 10, ratio: 0.5, aloneMs: 20 },
    { name: 'list page 1, If-None-Match (304)', path: list, connections: 50, ratio: 0.8, aloneMs: 20, revalidate: true },
    { name: 'sync 1 day ago, If-None-Match (304)', path: syncDay, connections: 50, ratio: 0.8, aloneMs: 20, revalidate: true },
  ];
}

const USER = '/api/v1/user';

export async function ratios(target: Target): Promise<Row[]> {
  const token = target.users.find((user) => user.label === 'main')!.token;
  const rows: Row[] = [];
  const userAlone = await load(target.full, { paths: [USER], token, connections: 1 });
  rows.push(report({ part: 'ratios', name: 'GET /user (baseline), alone', connections: 1, ...userAlone, goal: '-', met: true }));
  const baseline = async (connections: number) => (await load(target.full, { paths: [USER], token, connections })).rps;
  await load(target.full, { paths: [USER], token, connections: 50, seconds: 1 }); // warm-up
  for (const route of routesOf(target)) {
    // the language is in the tag, and fetch sends one of its own (`*`) unless told
    const headers = route.revalidate ? { 'accept-language': 'en', 'if-none-match': await currentTag(target, route.path, token) } : undefined;
    const options = { paths: [route.path], token, headers, notModifiedExpected: route.revalidate };
    await load(target.full, { ...options, connections: 1, seconds: 1 }); // warm-up
    const alone = await load(target.full, { ...options, connections: 1 });
    const before = await baseline(route.connections);
    const loaded = await load(target.full, { ...options, connections: route.connections });
    await settle(target.full, route.path, token);
    const after = await baseline(route.connections);
    const user = (before + after) / 2;
    const ratio = loaded.rps / user;
    const met = ratio >= route.ratio && alone.p50 <= route.aloneMs;
    rows.push(
      report({
        part: 'ratios',
        name: route.name,
        connections: route.connections,
        p50: alone.p50,
        p99: loaded.p99,
        rps: loaded.rps,
        goal: `>=${route.ratio}, ${route.aloneMs}ms`,
        met,
        note: `alone p50 ${alone.p50} ms; ratio ${ratio.toFixed(3)} to GET /user ${user.toFixed(0)} req/s (${before.toFixed(0)} before, ${after.toFixed(0)} after)`,
      }),
    );
  }
  const profileDir = process.env.BENCH_PROFILE_DIR;
  if (profileDir) for (const route of [{ name: 'GET /user', path: USER }, ...routesOf(target).filter((r) => !r.revalidate)]) await probe(target, token, route, profileDir);
  return rows;
}

/** The ETag the route answers now (the bench database is quiet, so it stays current). */
async function currentTag(target: Target, route: string, token: string): Promise<string> {
  const res = await fetch(`${target.full}${route}`, { headers: { authorization: `Bearer ${token}`, 'accept-language': 'en' } });
  const tag = res.headers.get('etag');
  if (res.status !== 200 || !tag) throw new Error(`${route}: ${res.status}, no ETag to revalidate`);
  return tag;
}

/** One more load of the route with the probes on: its CPU by bucket and its statements, per request. */
async function probe(target: Target, token: string, route: { name: string; path: string }, dir: string): Promise<void> {
  const file = path.resolve(dir, `${route.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.cpuprofile`);
  const cpu = async () => (await (await fetch(`${target.bare}/bench/cpu`)).json()) as { serviceMs: number; databaseMs: Record<string, number> };
  // CPU first, without the profiler (its sampling costs the service CPU of its own)
  const before = await cpu();
  const plain = await load(target.full, { paths: [route.path], token, connections: 10, seconds: SECONDS });
  const after = await cpu();
  await settle(target.full, route.path, token);
  await fetch(`${target.bare}/bench/statements/start`, { method: 'POST' });
  await fetch(`${target.bare}/bench/profile/start`, { method: 'POST' });
  const run = await load(target.full, { paths: [route.path], token, connections: 10, seconds: SECONDS });
  await fetch(`${target.bare}/bench/profile/stop?file=${encodeURIComponent(file)}`, { method: 'POST' });
  const statements = (await (await fetch(`${target.bare}/bench/statements`)).json()) as StatementFigures[];
  await settle(target.full, route.path, token);
  // requests answered within the window; a few more were in flight at its ends
  const requests = Math.max(1, run.total);
  const served = Math.max(1, plain.total);
  // a backend that opened in the window counts whole; one that closed in it is lost (pool connections live 10 s idle)
  const databaseMs = Object.entries(after.databaseMs).reduce((sum, [pid, ms]) => sum + ms - (before.databaseMs[pid] ?? 0), 0);
  console.log(
    `\n${route.name}: CPU per request at 10 connections (${plain.rps.toFixed(0)} req/s, /proc): service ${((after.serviceMs - before.serviceMs) / served).toFixed(2)} ms, ` +
      `PostgreSQL ${(databaseMs / served).toFixed(2)} ms`,
  );
  console.log(`  profiled run: ${run.total} requests, ${run.rps.toFixed(0)} req/s; profile ${file}`);
  const { ms } = bucketProfile(JSON.parse(readFileSync(file, 'utf8')));
  for (const line of formatBuckets(ms, requests)) console.log(`  ${line}`);
  const perRequest = statements.reduce((sum, s) => sum + s.count, 0) / requests;
  console.log(`  SQL: ${perRequest.toFixed(2)} statements per request (wall ms from send to result, as pg's client saw it)`);
  for (const s of statements.sort((a, b) => b.ms - a.ms))
    console.log(
      `    ${(s.count / requests).toFixed(2).padStart(5)} x  ${(s.ms / s.count).toFixed(2).padStart(6)} ms  ${(s.rows / s.count).toFixed(1).padStart(6)} rows  ${s.label.padEnd(34)} ${s.text.slice(0, 90)}`,
    );
}
