// The `import` part of `make bench`: a bank's CSV export (German semicolon layout, Windows-1252,
// a preamble naming the account, a closing-balance trailer) of 10,000 and then 100,000 rows
// uploaded with POST /v1/import, timed from the upload to the import `completed` (every
// transaction created; the job's progress polled every 100 ms through GET /v1/imports), with the
// service's RSS sampled at each poll. Memory is flat when the 100,000-row file's peak above the
// idle service is no larger than the 10,000-row file's. Afterwards every wallet of the user must
// equal its ledger. Goal (issue 11): 100,000 rows in < 10 s on PostgreSQL.
import { heapMb, report, rssMb, type Row, type Target } from './load.js';

const GOAL_SECONDS = 10;

/** The export, as a bank writes it; `rows` transactions of 20`year`, one income in five. */
export function bankExport(rows: number, account: string, year = 26): Buffer {
  const lines = [`Kontonummer:;${account}`, `Zeitraum:;01.01.20${year} - 31.12.20${year}`, 'Kontostand alt:;1.000,00 EUR', '', 'Buchungstag;Valuta;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Betrag (EUR)'];
  for (let i = 0; i < rows; i++) {
    const cents = i % 5 === 4 ? 250_000 + (i % 1000) : -(1_234 + (i % 97) * 13);
    const day = `${String((i % 28) + 1).padStart(2, '0')}.${String((i % 12) + 1).padStart(2, '0')}.${year}`;
    const euros = Math.floor(Math.abs(cents) / 100).toLocaleString('de-DE');
    const amount = `${cents < 0 ? '-' : ''}${euros},${String(Math.abs(cents) % 100).padStart(2, '0')}`;
    lines.push(`${day};${day};Händler ${i % 250};${cents < 0 ? 'Kartenzahlung' : 'Gutschrift'};"Einkauf ${i}; Filiale ${i % 7}";${amount}`);
  }
  lines.push(`Kontostand am 31.12.20${year};;;;;0,00`);
  return Buffer.from(lines.join('\r\n') + '\r\n', 'latin1');
}

interface Run {
  rows: number;
  /** Live heap after a full collection, before the upload and once the import completed. */
  heapBeforeMb: number;
  heapAfterMb: number;
  seconds: number;
  uploadMs: number;
  baselineMb: number;
  peakMb: number;
  progress: number[];
}

async function importOnce(target: Target, token: string, rows: number): Promise<Run> {
  const data = bankExport(rows, `DE${String(10 + (rows % 89)).padStart(2, '0')}500105175407${String(Date.now() % 1e6).padStart(6, '0')}`);
  const pid = target.pid;
  const heapBeforeMb = await heapMb(target);
  const baselineMb = rssMb(pid);
  let peakMb = baselineMb;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(data)], { type: 'text/csv' }), `umsaetze-${rows}.csv`);
  const started = performance.now();
  const res = await fetch(`${target.full}/api/v1/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const uploadMs = performance.now() - started;
  if (res.status !== 201) throw new Error(`upload of ${rows} rows: ${res.status} ${(await res.text()).slice(0, 300)}`);
  const { id } = ((await res.json()) as { data: { id: number } }).data;
  const progress: number[] = [];
  for (;;) {
    peakMb = Math.max(peakMb, rssMb(pid));
    const page = (await (await fetch(`${target.full}/api/v1/imports?limit=5`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      data: { data: Array<{ id: number; status: string; progress: number; num_rows: number; failed_imports_count: number; error: string | null }> };
    };
    const mine = page.data.data.find((item) => item.id === id)!;
    if (progress.at(-1) !== mine.progress) progress.push(mine.progress);
    if (mine.status === 'failed') throw new Error(`import of ${rows} rows failed: ${mine.error}`);
    if (mine.status === 'completed') {
      if (mine.failed_imports_count !== 0 || mine.progress !== rows + 1) throw new Error(`import of ${rows} rows: ${JSON.stringify(mine)}`);
      break;
    }
    if (performance.now() - started > 600_000) throw new Error(`import of ${rows} rows still ${mine.status} after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows, seconds, uploadMs, baselineMb, peakMb, progress, heapBeforeMb, heapAfterMb: await heapMb(target) };
}

export async function csvImport(target: Target): Promise<Row[]> {
  const token = target.writer.token;
  const runs: Run[] = [];
  for (const rows of [10_000, 100_000]) runs.push(await importOnce(target, token, rows));
  const offLedger = (await (await fetch(`${target.bare}/bench/ledger?user=${target.writer.userId}`)).json()) as unknown[];
  const [small, large] = runs;
  const growth = (run: Run) => run.peakMb - run.baselineMb;
  const flat = growth(large) <= Math.max(growth(small) * 1.5, growth(small) + 30);
  return runs.map((run) =>
    report({
      part: 'import',
      name: `POST /import of ${run.rows.toLocaleString('en')} CSV rows to every transaction created`,
      connections: 1,
      p50: run.seconds * 1000,
      p99: run.seconds * 1000,
      rps: run.rows / run.seconds,
      goal: run === large ? `<${GOAL_SECONDS}s, flat RSS` : '-',
      met: run === large ? run.seconds < GOAL_SECONDS && flat && offLedger.length === 0 : offLedger.length === 0,
      note:
        `${run.seconds.toFixed(1)} s (upload answered in ${run.uploadMs.toFixed(0)} ms); RSS ${run.baselineMb.toFixed(0)} → peak ${run.peakMb.toFixed(0)} MB ` +
        `(+${growth(run).toFixed(0)}); live heap after GC ${run.heapBeforeMb.toFixed(0)} → ${run.heapAfterMb.toFixed(0)} MB; progress seen ${run.progress.length} times (${run.progress.slice(0, 4).join(', ')}${run.progress.length > 4 ? ', …' : ''}); ` +
        `wallets off their ledger: ${offLedger.length}`,
    }),
  );
}
