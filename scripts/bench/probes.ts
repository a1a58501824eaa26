// Probes the bench server offers on its bare app, for the ratios part to see where a route's
// time goes while it runs under load:
// - POST /bench/profile/start, POST /bench/profile/stop?file=: the service's CPU profile over
//   that window (V8's sampling profiler through node:inspector, as `node --cpu-prof` takes it,
//   but one file per route instead of one per process), written to `file`;
// - GET /bench/cpu: CPU time so far of the service's process and of every PostgreSQL backend
//   on the bench database (from /proc: the server must run on this machine), to take the
//   difference over a window: the measure that holds on a machine loaded by other work, where
//   a profile's samples also count the time the process waited for a core;
// - POST /bench/statements/start, GET /bench/statements: every SQL statement the service ran
//   in the window, grouped by text: how many, their time from the query's send to its
//   result as pg's client saw it (wall time: the round trip, the server's work and the wait
//   for this process's event loop), and the rows returned. pg_stat_statements would give the
//   server's side, but it needs `shared_preload_libraries`, which the shared server lacks.
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.js';

/** CPU time (ms, user + system) a process has used so far, from /proc (Linux; 0 once it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks of 10 ms
  } catch {
    return 0;
  }
}

export interface StatementFigures {
  label: string;
  text: string;
  count: number;
  ms: number;
  rows: number;
}

/** A short name of a statement: its verb and its first table (`select transactions`). */
function labelOf(text: string): string {
  const verb = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? '?';
  const table = /\b(?:from|into|update)\s+"?([a-z_][a-z0-9_]*)"?/i.exec(text)?.[1] ?? '';
  return `${verb} ${table}`.trim();
}

export function registerProbes(bare: FastifyInstance, db: Kysely<Database>): void {
  bare.get('/bench/cpu', async () => {
    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`.execute(db);
    // by backend: the pool opens and closes connections, so a window's difference is taken pid by pid
    return { serviceMs: processCpuMs(process.pid), databaseMs: Object.fromEntries(rows.map(({ pid }) => [pid, processCpuMs(pid)])) };
  });
  const session = new Session();
  session.connect();
  bare.post('/bench/profile/start', async () => {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    return { started: true };
  });
  bare.post<{ Querystring: { file: string } }>('/bench/profile/stop', async (request) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(request.query.file, JSON.stringify(profile));
    return { file: request.query.file };
  });

  let statements: Map<string, StatementFigures> | undefined;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  // every client of the process, the service's pool among them; bound to nothing so a wrapper
  // set up before this (db/kept-plans.ts looks it up on each call) runs through it too
  pg.Client.prototype.query = function timed(this: pg.Client, ...args: unknown[]) {
    const result = Reflect.apply(query, this, args);
    const window = statements;
    if (!window || !(result instanceof Promise)) return result;
    const first = args[0] as string | { text: string };
    const text = (typeof first === 'string' ? first : first.text).replace(/\s+/g, ' ').trim();
    const started = performance.now();
    return result.then((answer: { rowCount?: number | null; rows?: unknown[] }) => {
      const ms = performance.now() - started;
      const figures = window.get(text) ?? { label: labelOf(text.replace(/^\/\*.*?\*\/\s*/, '')), text, count: 0, ms: 0, rows: 0 };
      figures.count += 1;
      figures.ms += ms;
      figures.rows += answer?.rows?.length ?? answer?.rowCount ?? 0;
      window.set(text, figures);
      return answer;
    });
  } as typeof pg.Client.prototype.query;
  bare.post('/bench/statements/start', async () => {
    statements = new Map();
    return { started: true };
  });
  bare.get('/bench/statements', async () => {
    const found = [...(statements?.values() ?? [])];
    statements = undefined;
    return found;
  });
}
