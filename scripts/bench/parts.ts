// The parts of `make bench`, each measuring its routes against the goals of issue 14.
// BENCH_ONLY=user,ratios,bytes,list,sync,stats,budgets,writes,import,import-session picks some of them.
import { csvImport } from './csv-import.js';
import { importSession } from './import-session.js';
import { load, percentile, report, settle, type Row, type Target } from './load.js';
import { bytes } from './bytes.js';
import { ratios } from './ratios.js';

type Part = (target: Target) => Promise<Row[]>;

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const main = (target: Target) => target.users.find((user) => user.label === 'main')!;

/** GET routes of one user at `connections`, each against a p99 goal. */
async function measureGets(target: Target, part: string, token: string, routes: Array<[string, string | string[]]>, connections: number[], goalMs: number) {
  const rows: Row[] = [];
  for (const [name, paths] of routes) {
    const list = Array.isArray(paths) ? paths : [paths];
    await load(target.full, { paths: list, token, connections: 1, seconds: 1 }); // warm-up
    for (const c of connections) {
      const r = await load(target.full, { paths: list, token, connections: c });
      rows.push(report({ part, name, connections: c, ...r, goal: `p99<${goalMs}ms`, met: r.total > 0 && r.p99 < goalMs }));
      await settle(target.full, list[0], token);
    }
  }
  return rows;
}

/**
 * GET /user against the bare route, in three alternating rounds: one run of each swings by
 * ±25% on this machine (the load generator shares its 2 cores), so the ratio is the median of
 * the rounds' ratios and the rows shown are that round's.
 */
const user: Part = async (target) => {
  const token = main(target).token;
  await load(target.full, { paths: ['/api/v1/user'], token, connections: 50, seconds: 2 });
  await load(target.bare, { paths: ['/bare/user'], token, connections: 50, seconds: 2 });
  const rounds = [];
  for (let round = 0; round < 3; round++) {
    const bare = await load(target.bare, { paths: ['/bare/user'], token, connections: 50 });
    const full = await load(target.full, { paths: ['/api/v1/user'], token, connections: 50 });
    rounds.push({ bare, full, ratio: full.rps / bare.rps });
  }
  const { bare, full, ratio } = [...rounds].sort((a, b) => a.ratio - b.ratio)[1];
  const all = rounds.map((r) => r.ratio.toFixed(2)).join(', ');
  return [
    report({ part: 'user', name: 'bare fastify route, same SQL as GET /user', connections: 50, ...bare, goal: '-', met: true }),
    report({ part: 'user', name: 'GET /api/v1/user (full stack)', connections: 50, ...full, goal: 'ratio>=0.8', met: ratio >= 0.8, note: `ratio ${ratio.toFixed(2)}, median of rounds ${all}` }),
  ];
};

const list: Part = async (target) => {
  const m = main(target);
  const q = '/api/v1/transactions?limit=50';
  const routes: Array<[string, string]> = [
    ['first page (limit=50)', q],
    ['first page as the mobile client asks (limit=100)', '/api/v1/transactions?limit=100'],
    ['type=expense', `${q}&type=expense`],
    ['date_from/date_to (last 30 days)', `${q}&date_from=${day(-30)}&date_to=${day(0)}`],
    ['wallet_ids (one wallet)', `${q}&wallet_ids=${m.wallets[1]}`],
    ['category_ids (one category)', `${q}&category_ids=${m.categories[3]}`],
    ['intent=regular', `${q}&intent=regular`],
    ['exclude_transfers=true', `${q}&exclude_transfers=true`],
    ['search=bench 4242', `${q}&search=${encodeURIComponent('bench 4242')}`],
    ['deep page (page=5000)', `${q}&page=5000`],
    ['last page', `${q}&page=${Math.floor(m.rows / 50)}`],
  ];
  const rows = await measureGets(target, 'list', m.token, routes, [50], 20);
  for (const other of target.users.filter((u) => u.label !== 'main')) {
    rows.push(...(await measureGets(target, 'list', other.token, [[`first page, user with ${other.rows} rows`, q]], [50], 20)));
  }
  return rows;
};

const sync: Part = async (target) => {
  const m = main(target);
  const since = (days: number) => encodeURIComponent(new Date(Date.now() - days * 86_400_000).toISOString());
  const rows = await measureGets(
    target,
    'sync',
    m.token,
    [
      ['synced_since 1 day ago, page 1, limit 100', `/api/v1/transactions?synced_since=${since(1)}&limit=100`],
      ['synced_since 2 years ago, page 1, limit 100', `/api/v1/transactions?synced_since=${since(730)}&limit=100`],
      ['synced_since 2 years ago, page 500, limit 100', `/api/v1/transactions?synced_since=${since(730)}&limit=100&page=500`],
    ],
    [50],
    20,
  );
  rows.push(await pull(target, Math.min(100_000, Math.floor(m.rows / 2))));
  return rows;
};

/** Pulls `changed` changed rows at limit 100 page after page, as a client catching up does. */
async function pull(target: Target, changed: number): Promise<Row> {
  const m = main(target);
  const { since } = (await (await fetch(`${target.bare}/bench/changed-since?user=${m.userId}&after=${changed}`)).json()) as { since: string };
  const times: number[] = [];
  let received = 0;
  const started = performance.now();
  for (let page = 1; ; page++) {
    const at = performance.now();
    const res = await fetch(`${target.full}/api/v1/transactions?synced_since=${encodeURIComponent(since)}&limit=100&page=${page}`, {
      headers: { authorization: `Bearer ${m.token}` },
    });
    if (res.status !== 200) throw new Error(`sync pull page ${page}: ${res.status}`);
    const body = (await res.json()) as { data: { data: unknown[]; last_page: number } };
    times.push(performance.now() - at);
    received += body.data.data.length;
    if (page >= body.data.last_page || body.data.data.length === 0) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const avg = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const first = avg(times.slice(0, 10));
  const last = avg(times.slice(-10));
  const flat = last < first * 2 + 5;
  return report({
    part: 'sync',
    name: `pull ${received} changed rows, limit 100 (${times.length} pages)`,
    connections: 1,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    rps: times.length / seconds,
    goal: '<15s, flat',
    met: seconds < 15 && flat,
    note: `${seconds.toFixed(1)} s end to end; first 10 pages ${first.toFixed(1)} ms, last 10 ${last.toFixed(1)} ms`,
  });
}

const stats: Part = async (target) => {
  const m = main(target);
  const sections = ['overview', 'activity', 'comparisons', 'categories', 'parties', 'cashflow', 'position'];
  const presets = ['current_week', 'current_month', 'last_3_months', 'last_30_days', 'all_time'];
  const routes: Array<[string, string]> = [
    ['GET /stats (defaults: last 30 days, every section)', '/api/v1/stats'],
    ...sections.map((section): [string, string] => [`section=${section}`, `/api/v1/stats?section=${section}`]),
    ...presets.map((preset): [string, string] => [`preset=${preset}`, `/api/v1/stats?preset=${preset}`]),
    ['period=day', '/api/v1/stats?period=day'],
    ['wallet_ids (two wallets)', `/api/v1/stats?wallet_ids=${m.wallets[0]},${m.wallets[3]}`],
  ];
  return measureGets(target, 'stats', m.token, routes, [1, 10], 100);
};

const budgets: Part = async (target) => {
  const m = main(target);
  const routes: Array<[string, string | string[]]> = [
    ['GET /budgets?limit=50 (50 budgets with progress)', '/api/v1/budgets?limit=50'],
    ...Object.entries(m.budgets).map(([period, ids]): [string, string[]] => [
      `GET /budgets/{id}/progress, 50 ${period} budgets in turn`,
      ids.map((id) => `/api/v1/budgets/${id}/progress`),
    ]),
  ];
  return measureGets(target, 'budgets', m.token, routes, [1, 10], 100);
};

const writes: Part = async (target) => {
  const { token, wallets, userId } = target.writer;
  const now = Date.now();
  const expenses = Array.from({ length: 1000 }, (_, i) => ({
    type: i % 5 === 0 ? 'income' : 'expense',
    amount: (i % 997) + 0.25,
    wallet_id: wallets[i % 2],
    datetime: new Date(now - i * 60_000).toISOString(),
  }));
  const transfers = Array.from({ length: 500 }, (_, i) => ({ from_wallet_id: wallets[i % 2], to_wallet_id: wallets[(i + 1) % 2], amount: (i % 301) + 0.5 }));
  const created = await load(target.full, { paths: ['/api/v1/transactions'], token, connections: 20, amount: 1000, bodies: expenses });
  const moved = await load(target.full, { paths: ['/api/v1/transfer'], token, connections: 20, amount: 500, bodies: transfers });
  const off = (await (await fetch(`${target.bare}/bench/ledger?user=${userId}`)).json()) as unknown[];
  const balanced = off.length === 0;
  const note = balanced ? 'balances equal the ledger' : `wallets off their ledger: ${JSON.stringify(off)}`;
  return [
    report({ part: 'writes', name: `POST /transactions x${created.total}`, connections: 20, ...created, goal: 'correct', met: balanced, note }),
    report({ part: 'writes', name: `POST /transfer x${moved.total}`, connections: 20, ...moved, goal: 'correct', met: balanced, note }),
  ];
};

export const PARTS: Record<string, Part> = { user, ratios, bytes, list, sync, stats, budgets, writes, import: csvImport, 'import-session': importSession };
