// The per-request cost of list and sync pages, in process (app.inject: no sockets, no load
// generator), on the bench database, with the compiled response serializers and without them
// (JSON.stringify), requests alternating between the two apps so both see the same load: the
// median of each page after warm-ups, then a pull of PAGES sync pages at limit 100 one after
// another per app (PROFILE=<file> writes a CPU profile of the compiled app's pull).
// Reads only: it logs the main user in and follows sync feeds by `cursor`, which writes no
// page marks. `npx tsx scripts/bench/pages.ts` with DATABASE_URL (and BENCH_DB_NAME).
import { loadavg } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../server/app.js';
import { ResponseSerializers } from '../../server/serializers.js';
import { openBenchApp } from './bench-database.js';
import { BENCH_PASSWORD, type SeededUser } from './seed.js';

const RUNS = Number(process.env.RUNS ?? 20);
const PAGES = Number(process.env.PAGES ?? 300);

// without kept answers: every request builds its page
const { app: compiled, database, config } = await openBenchApp({ responseCacheBytes: 0 });
const document = (await compiled.inject({ method: 'GET', url: '/api/openapi.json' })).json();
const plain = await buildApp({ config, database, logger: false, serializers: ResponseSerializers.build(document, []) });
const apps: Array<[string, FastifyInstance]> = [
  ['JSON.stringify', plain],
  ['compiled', compiled],
];
const { rows } = await sql<{ seeded: SeededUser }>`select seeded from bench_seed where label = 'main'`.execute(database.db);
if (!rows[0]) throw new Error('the bench database has no main user: run the bench once to seed it');
const login = await compiled.inject({ method: 'POST', url: '/api/v1/login', payload: { email: rows[0].seeded.email, password: BENCH_PASSWORD } });
const headers = { authorization: `Bearer ${login.json().data.token as string}` };

async function get(app: FastifyInstance, url: string): Promise<{ ms: number; bytes: number; body: string }> {
  const at = performance.now();
  const res = await app.inject({ method: 'GET', url, headers });
  const ms = performance.now() - at;
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return { ms, bytes: res.rawPayload.length, body: res.body };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const since = (days: number) => encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString());
const cursorOf = (body: string) => (JSON.parse(body) as { data: { next_cursor: string } }).data.next_cursor;
const syncCursor = cursorOf((await get(compiled, `/api/v1/transactions?synced_since=${since(730)}&limit=100`)).body);

const routes: Array<[string, string]> = [
  ['first page, limit 50', '/api/v1/transactions?limit=50'],
  ['first page, limit 100', '/api/v1/transactions?limit=100'],
  ['category_ids, limit 100', `/api/v1/transactions?limit=100&category_ids=${rows[0].seeded.categories[3]}`],
  ['sync page by cursor, limit 100', `/api/v1/transactions?cursor=${syncCursor}&limit=100`],
];
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
if (process.env.SKIP_ROUTES !== '1') {
  for (const [name, url] of routes) {
    const times = new Map(apps.map(([label]) => [label, [] as number[]]));
    let bytes = 0;
    for (let i = 0; i < RUNS + 3; i++) {
      for (const [label, app] of apps) {
        const res = await get(app, url);
        if (i >= 3) times.get(label)!.push(res.ms);
        bytes = res.bytes;
      }
    }
    console.log(`${name} (${(bytes / 1024).toFixed(0)} KB): ${apps.map(([label]) => `${label} ${median(times.get(label)!).toFixed(1)} ms`).join(', ')} (medians of ${RUNS})`);
  }
}

// a client catching up: PAGES pages of a two-year feed, each continuing from the last cursor
for (const [label, app] of apps) {
  const profiler = process.env.PROFILE && app === compiled ? await startProfile() : undefined;
  let cursor = syncCursor;
  const times: number[] = [];
  const started = performance.now();
  for (let page = 0; page < PAGES; page++) {
    const { ms, body } = await get(app, `/api/v1/transactions?cursor=${cursor}&limit=100`);
    times.push(ms);
    cursor = cursorOf(body);
  }
  const seconds = (performance.now() - started) / 1000;
  if (profiler) await profiler.stop(process.env.PROFILE!);
  console.log(`${label}: pull of ${PAGES} sync pages, limit 100: ${seconds.toFixed(2)} s, ${((seconds * 1000) / PAGES).toFixed(1)} ms a page, median ${median(times).toFixed(1)} ms`);
}
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
await plain.close();
await compiled.close();
await database.close();

async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
