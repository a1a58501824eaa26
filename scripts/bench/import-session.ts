// The `import-session` part of `make bench`: the same bank export as the `import` part
// (csv-import.ts) of 10,000 and then 100,000 rows through the session route: POST
// /v1/import/analyze, polled (GET /v1/import/sessions/{id}?suggestions_limit=0, every 100 ms or BENCH_POLL_MS)
// until `ready`, then POST /v1/import/confirm with `accept_all` (auto-creating the account's
// wallet and the parties), polled until the confirm's job is `done`. Each stage is timed, the
// service's RSS sampled at each poll and its live heap taken after a full collection before
// and after; every suggestion must end imported (each run's rows are of a year of their own, so
// none repeats a transaction), and every wallet
// of the user must equal its ledger. Goal (issue 11): 100,000 rows in < 10 s on PostgreSQL.
// BENCH_SESSION_CONFIRM=upload sends `accept_all` (and the auto-create flags) with the upload
// instead: no confirm request, the confirm starts as analysis ends.
import { bankExport } from './csv-import.js';
import { heapMb, report, rssMb, type Row, type Target } from './load.js';

const GOAL_SECONDS = 10;
/** How often the session is polled (BENCH_POLL_MS; each poll counts the session's suggestions in SQL). */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 100);
const CONFIRM_AT_UPLOAD = process.env.BENCH_SESSION_CONFIRM === 'upload';
const CONFIRM_FLAGS = { accept_all: true, auto_create_wallets: true, auto_create_parties: true };

interface SessionView {
  status: string;
  progress: number;
  total_suggestions: number;
  duplicates_found: number;
  error: string | null;
  metadata: { confirm?: { state: string; processed: number; created_count: number; skipped_count: number; failed_count: number; already_imported_count: number } } | null;
}

interface Run {
  rows: number;
  uploadMs: number;
  analyseSeconds: number;
  confirmAnsweredMs: number;
  confirmSeconds: number;
  seconds: number;
  baselineMb: number;
  peakMb: number;
  heapBeforeMb: number;
  heapAfterMb: number;
  analysisPolls: number[];
  confirmPolls: number[];
  created: number;
  skipped: number;
  /** RSS peaks seen while analysing and while confirming. */
  stagePeaks: { analysis: number; confirm: number };
}

async function sessionOnce(target: Target, token: string, rows: number, year: number): Promise<Run> {
  const auth = { authorization: `Bearer ${token}` };
  // a year of its own: the rows repeat no transaction of another run (none is skipped as a duplicate)
  const data = bankExport(rows, `DE${String(10 + (rows % 89)).padStart(2, '0')}500105175408${String(Date.now() % 1e6).padStart(6, '0')}`, year);
  const heapBeforeMb = await heapMb(target);
  const baselineMb = rssMb(target.pid);
  let peakMb = baselineMb;
  const stagePeaks = { analysis: baselineMb, confirm: baselineMb };
  let stage: keyof typeof stagePeaks = 'analysis';
  const poll = async (id: number): Promise<SessionView> => {
    const rss = rssMb(target.pid);
    peakMb = Math.max(peakMb, rss);
    stagePeaks[stage] = Math.max(stagePeaks[stage], rss);
    return ((await (await fetch(`${target.full}/api/v1/import/sessions/${id}?suggestions_limit=0`, { headers: auth })).json()) as { data: SessionView }).data;
  };
  const until = async (id: number, done: (s: SessionView) => boolean, seen: number[], value: (s: SessionView) => number, what: string) => {
    for (;;) {
      const session = await poll(id);
      if (seen.at(-1) !== value(session)) seen.push(value(session));
      if (session.status === 'failed') throw new Error(`session of ${rows} rows failed: ${session.error}`);
      if (done(session)) return session;
      if (performance.now() - started > 600_000) throw new Error(`session of ${rows} rows: ${what} not done after 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };

  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'text/csv' }), `umsaetze-${rows}.csv`);
  if (CONFIRM_AT_UPLOAD) for (const [flag, on] of Object.entries(CONFIRM_FLAGS)) form.append(flag, String(on));
  const started = performance.now();
  const res = await fetch(`${target.full}/api/v1/import/analyze`, { method: 'POST', headers: auth, body: form });
  const uploadMs = performance.now() - started;
  if (res.status !== 201) throw new Error(`analyze of ${rows} rows: ${res.status} ${(await res.text()).slice(0, 300)}`);
  const { id } = ((await res.json()) as { data: { id: number } }).data;
  const analysisPolls: number[] = [];
  // with accept_all at upload the confirm may have moved the session on before a poll sees `ready`
  const ready = await until(id, (s) => s.status === 'ready' || s.status === 'confirmed', analysisPolls, (s) => s.total_suggestions, 'analysis');
  const analysed = performance.now();
  stage = 'confirm';
  if (ready.total_suggestions !== rows) throw new Error(`analysis of ${rows} rows gave ${ready.total_suggestions} suggestions`);

  if (!CONFIRM_AT_UPLOAD) {
    const confirmed = await fetch(`${target.full}/api/v1/import/confirm`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: id, ...CONFIRM_FLAGS }),
    });
    if (confirmed.status !== 202) throw new Error(`confirm of ${rows} rows: ${confirmed.status} ${(await confirmed.text()).slice(0, 300)}`);
  }
  const confirmAnsweredMs = performance.now() - analysed;
  const confirmPolls: number[] = [];
  const done = await until(id, (s) => s.metadata?.confirm?.state === 'done', confirmPolls, (s) => s.progress, 'confirm');
  const finished = performance.now();
  const run = done.metadata!.confirm!;
  if (run.failed_count !== 0 || run.skipped_count !== 0 || run.created_count !== rows || done.progress !== rows) {
    throw new Error(`confirm of ${rows} rows: ${JSON.stringify(run)}, progress ${done.progress}`);
  }
  return {
    rows,
    uploadMs,
    analyseSeconds: (analysed - started) / 1000,
    confirmAnsweredMs,
    confirmSeconds: (finished - analysed) / 1000,
    seconds: (finished - started) / 1000,
    baselineMb,
    peakMb,
    heapBeforeMb,
    heapAfterMb: await heapMb(target),
    analysisPolls,
    confirmPolls,
    created: run.created_count,
    skipped: run.skipped_count,
    stagePeaks,
  };
}

const polls = (seen: number[]) => `${seen.length} (${seen.slice(0, 4).join(', ')}${seen.length > 4 ? ', …' : ''})`;

export async function importSession(target: Target): Promise<Row[]> {
  const runs: Run[] = [];
  const sizes = (process.env.BENCH_SESSION_ROWS ?? '10000,100000').split(',').map(Number);
  for (const [n, rows] of sizes.entries()) runs.push(await sessionOnce(target, target.writer.token, rows, 20 + n));
  const offLedger = (await (await fetch(`${target.bare}/bench/ledger?user=${target.writer.userId}`)).json()) as unknown[];
  const large = runs.at(-1)!;
  return runs.map((run) => {
    const note =
      `${run.seconds.toFixed(1)} s: upload answered ${run.uploadMs.toFixed(0)} ms, analysed at ${run.analyseSeconds.toFixed(1)} s, ${CONFIRM_AT_UPLOAD ? 'confirm asked at upload' : `confirm answered ${run.confirmAnsweredMs.toFixed(0)} ms`}, ` +
      `confirmed ${run.confirmSeconds.toFixed(1)} s later; ${run.created} created, ${run.skipped} skipped as duplicates; ` +
      `RSS ${run.baselineMb.toFixed(0)} → peak ${run.peakMb.toFixed(0)} MB (+${(run.peakMb - run.baselineMb).toFixed(0)}; analysing ${run.stagePeaks.analysis.toFixed(0)}, confirming ${run.stagePeaks.confirm.toFixed(0)}); live heap after GC ${run.heapBeforeMb.toFixed(0)} → ${run.heapAfterMb.toFixed(0)} MB; ` +
      `analysis polls ${polls(run.analysisPolls)}; confirm polls ${polls(run.confirmPolls)}; wallets off their ledger: ${offLedger.length}`;
    console.log(`import-session ${run.rows}: ${note}`);
    return report({
      part: 'import-session',
      name: `analyze → confirm (accept_all${CONFIRM_AT_UPLOAD ? ' at upload' : ''}) of ${run.rows.toLocaleString('en')} CSV rows to every transaction created`,
      connections: 1,
      p50: run.seconds * 1000,
      p99: run.seconds * 1000,
      rps: run.rows / run.seconds,
      goal: run === large ? `<${GOAL_SECONDS}s` : '-',
      met: offLedger.length === 0 && (run !== large || run.seconds < GOAL_SECONDS),
      note,
    });
  });
}
