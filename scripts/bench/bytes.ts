// The `bytes` part of `make bench` (issue 40): pages at the cost of their bytes.
// - the bytes of a 50-row list page on the wire, identity, gzip and br (goal <= 15 KB compressed);
// - each page route at 50 connections on the service without kept answers (scripts/bench/server.ts
//   `uncached`), identity and gzip: what compression costs a page that is built (goal >= 0.8);
// - the same routes on the service as deployed, gzip, where a repeated page is a kept answer,
//   against GET /user in turn, three rounds, the median ratio (goal >= 0.8 of GET /user);
// - the floor (scripts/bench/floor.ts): node:http and one pooled statement building the same
//   page's JSON in PostgreSQL, at the same connections, beside every route;
// - deep pages alone (1 connection, p50): first jumps into a list at its data version (no
//   anchor near: the page's day, migration 047), the same page again and a walk onwards (by
//   kept anchors), on the uncached service after a warm-up (goal <= 20 ms).
import http from 'node:http';
import { load, report, settle, type Row, type Target } from './load.js';

const GZIP = { 'accept-encoding': 'gzip' };

interface PageRoute {
  name: string;
  path: string;
}

function routesOf(target: Target, deepPage: number): PageRoute[] {
  const main = target.users.find((user) => user.label === 'main')!;
  const since = (days: number) => encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString());
  const list = '/api/v1/transactions?page=1&limit=50';
  return [
    { name: 'list page 1 (limit 50)', path: list },
    { name: 'list page 1, wallet_ids', path: `${list}&wallet_ids=${main.wallets[1]}` },
    { name: `list page ${deepPage}`, path: `/api/v1/transactions?page=${deepPage}&limit=50` },
    { name: 'sync 1 day ago, limit 100', path: `/api/v1/transactions?synced_since=${since(1)}&limit=100` },
    { name: 'sync 2 years ago, limit 100, page 500', path: `/api/v1/transactions?synced_since=${since(730)}&limit=100&page=500` },
  ];
}

/** The body's length as sent (compressed or not) and its coding. */
function wireBytes(base: string, path: string, token: string, encoding?: string): Promise<{ bytes: number; coding: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { headers: { authorization: `Bearer ${token}`, ...(encoding && { 'accept-encoding': encoding }) } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => (response.statusCode === 200 ? resolve({ bytes, coding: String(response.headers['content-encoding'] ?? 'identity') }) : reject(new Error(`${path}: ${response.statusCode}`))));
    });
    request.on('error', reject);
  });
}

async function timed(url: string, token: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function bytes(target: Target): Promise<Row[]> {
  const main = target.users.find((user) => user.label === 'main')!;
  const token = main.token;
  const rows: Row[] = [];
  // page 5000 at 1M rows; a smaller seed's page as deep in its list (the middle, where a page is found by offset)
  const deepPage = Math.max(2, Math.min(5000, Math.floor(main.rows / 50 / 2)));
  const routes = routesOf(target, deepPage);

  const sizes = await Promise.all(['', 'gzip', 'br'].map((encoding) => wireBytes(target.full, routes[0].path, token, encoding || undefined)));
  const [plain, gzip, br] = sizes;
  const compressed = Math.max(gzip.bytes, br.bytes);
  rows.push(
    report({
      part: 'bytes',
      name: 'list page 1 (limit 50) on the wire',
      connections: 1,
      p50: 0,
      p99: 0,
      rps: 0,
      goal: '<=15 KB',
      met: compressed <= 15 * 1024 && gzip.coding === 'gzip' && br.coding === 'br',
      note: `identity ${plain.bytes} B, gzip ${gzip.bytes} B, br ${br.bytes} B`,
    }),
  );

  // deep pages alone, on the service without kept answers (a kept answer would be measured instead)
  const deep = `${target.uncached}${routes[2].path}`;
  // pages no request of this run read yet, far from any anchor but page 1's: found from their day
  // (the service warmed up first, so the jump is not also its first request)
  for (let i = 0; i < 5; i++) await timed(`${target.uncached}${routes[0].path}`, token);
  const coldPages = [0.9, 0.7, 0.5].map((share) => Math.max(2, Math.floor(deepPage * share)));
  const colds: number[] = [];
  for (const coldPage of coldPages) colds.push(await timed(`${target.uncached}/api/v1/transactions?page=${coldPage}&limit=50`, token));
  const cold = median(colds);
  await timed(deep, token); // leaves the page's anchors
  // in turn, so the machine's load (shared) weighs on the three alike
  const [again, walk, first]: number[][] = [[], [], []];
  for (let i = 1; i <= 30; i++) {
    again.push(await timed(deep, token));
    walk.push(await timed(`${target.uncached}/api/v1/transactions?page=${deepPage + i}&limit=50`, token));
    first.push(await timed(`${target.uncached}${routes[0].path}`, token));
  }
  const deepMs = Math.max(median(again), median(walk));
  rows.push(
    report({
      part: 'bytes',
      name: `list page ${deepPage} alone (uncached service)`,
      connections: 1,
      p50: deepMs,
      p99: 0,
      rps: 0,
      goal: '<=20 ms',
      met: deepMs <= 20,
      note: `first jumps (pages ${coldPages.join(', ')}) median ${cold.toFixed(1)} ms (from their day); the same page again ${median(again).toFixed(1)} ms, pages ${deepPage + 1}-${deepPage + 30} in turn ${median(walk).toFixed(1)} ms (by anchors); page 1 ${median(first).toFixed(1)} ms`,
    }),
  );

  const userRps = async () => (await load(target.full, { paths: ['/api/v1/user'], token, connections: 50 })).rps;
  await load(target.full, { paths: ['/api/v1/user'], token, connections: 50, seconds: 1 }); // warm-up
  for (const route of routes) {
    const options = { paths: [route.path], token, connections: 50 };
    await load(target.uncached, { ...options, seconds: 1 }); // warm-up
    const identity = await load(target.uncached, options);
    await settle(target.uncached, route.path, token);
    const zipped = await load(target.uncached, { ...options, headers: GZIP });
    await settle(target.uncached, route.path, token);
    // kept answers and GET /user in turn, three rounds (the shared machine's speed swings by 2x within a minute): the median of the rounds' ratios
    const rounds: Array<{ kept: Awaited<ReturnType<typeof load>>; user: number; ratio: number }> = [];
    for (let round = 0; round < 3; round++) {
      const user = await userRps();
      const kept = await load(target.full, { ...options, headers: GZIP });
      await settle(target.full, route.path, token);
      rounds.push({ kept, user, ratio: kept.rps / user });
    }
    rounds.sort((a, b) => a.ratio - b.ratio);
    const { kept, user } = rounds[1];
    const floor = target.floor ? await load(target.floor, { paths: [route.path.replace('/api/v1/', '/floor/')], token, connections: 50 }) : undefined;
    const compression = zipped.rps / identity.rps;
    const hit = kept.rps / user;
    const floorNote = floor ? `; floor ${floor.rps.toFixed(0)} req/s (service uncached identity at ${(identity.rps / floor.rps).toFixed(2)} of it)` : '';
    rows.push(
      report({
        part: 'bytes',
        name: `${route.name}, gzip vs identity (uncached)`,
        connections: 50,
        p50: zipped.p50,
        p99: zipped.p99,
        rps: zipped.rps,
        goal: '>=0.8',
        met: compression >= 0.8,
        note: `identity ${identity.rps.toFixed(0)} req/s, gzip ${zipped.rps.toFixed(0)}: ${compression.toFixed(2)}${floorNote}`,
      }),
      report({
        part: 'bytes',
        name: `${route.name}, gzip, kept answer vs GET /user`,
        connections: 50,
        p50: kept.p50,
        p99: kept.p99,
        rps: kept.rps,
        goal: '>=0.8',
        met: hit >= 0.8,
        note: `median of rounds ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}: ${kept.rps.toFixed(0)} against GET /user ${user.toFixed(0)} req/s`,
      }),
    );
  }
  return rows;
}
