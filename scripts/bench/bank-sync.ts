// A sync of N new bank lines (default 10,000; BENCH_BANK_LINES) against a statement import of
// the same lines, in one process on one database (DATABASE_URL, else embedded): the sync
// (fake SimpleFIN bridge on 127.0.0.1, one account linked to a wallet, syncConnection timed from
// the request to the commit) and a CSV of the same lines through POST /v1/import/analyze with
// `accept_all` (timed from the upload until the confirm is done), each for a user of its own so
// neither sees the other's lines as duplicates. Prints both times and the ratio; one run.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx scripts/bench/bank-sync.ts
import { syncConnection } from '../../handlers/shared/bank-sync.js';
import { loadConfig } from '../../server/config.js';
import { silentLog } from '../../test/helpers/assistant.js';
import { startApp } from '../../test/helpers/harness.js';
import { fakeAccount, startSimpleFinBridge, type FakeLine } from '../../test/helpers/simplefin-bridge.js';
import { TEST_ENV } from '../../test/helpers/test-environment.js';

const N = Number(process.env.BENCH_BANK_LINES ?? 10_000);
const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void teardowns.push(fn) } as any;

const bridge = await startSimpleFinBridge();
const base = loadConfig(TEST_ENV);
const api = await startApp(t, { webhooks: { ...base.webhooks, allowedNetworks: ['127.0.0.1'] } });
try {
  const now = Math.floor(Date.now() / 1000);
  const lines: FakeLine[] = Array.from({ length: N }, (_, i) => ({
    id: `L${i}`,
    posted: now - (1 + (i % 80)) * 86_400,
    amount: i % 7 === 0 ? `${(1000 + i).toFixed(0)}.00` : `-${(1 + (i % 500)).toFixed(0)}.${String(i % 100).padStart(2, '0')}`,
    description: `PAYMENT ${i} SHOP ${i % 37}`,
  }));
  bridge.accounts = [fakeAccount('ACC-1', lines, '0')];

  const syncer = await api.newUser();
  const connected = await api.request('POST', '/api/v1/bank-connections', { token: syncer.token, body: { setup_token: bridge.setupToken() } });
  const account = connected.body.data.accounts[0];
  await api.request('PUT', `/api/v1/bank-accounts/${account.id}/wallet`, { token: syncer.token, body: {} });
  const syncStarted = performance.now();
  const outcome = await syncConnection({ db: api.db, services: api.app.services, log: silentLog }, connected.body.data.id);
  const syncSeconds = (performance.now() - syncStarted) / 1000;
  if (outcome.status !== 'synced' || outcome.created !== N) throw new Error(`sync: ${JSON.stringify(outcome).slice(0, 300)}`);

  const importer = await api.newUser();
  const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
  const csv = ['Date,Amount,Description,Currency', ...lines.map((l) => `${day(l.posted)},${l.amount},${l.description},USD`)].join('\n');
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'checking.csv');
  form.append('accept_all', 'true');
  form.append('auto_create_wallets', 'true');
  const importStarted = performance.now();
  const res = await api.app.inject({ method: 'POST', url: '/api/v1/import/analyze', headers: { authorization: `Bearer ${importer.token}` }, payload: form as any });
  const session = JSON.parse(res.body).data;
  if (!session?.id) throw new Error(`import: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const { analyzeImportJob } = await import('../../jobs/analyze-import.js');
  const { confirmImportJob } = await import('../../jobs/confirm-import.js');
  const ctx = { db: api.db, services: api.app.services, log: silentLog };
  let state = '';
  for (let polls = 0; state !== 'done' && polls < 10_000; polls++) {
    await analyzeImportJob.run(ctx, { sessionId: session.id } as any);
    await confirmImportJob.run(ctx, { sessionId: session.id });
    const row = await api.db.selectFrom('import_sessions').select(['status', 'metadata']).where('id', '=', session.id).executeTakeFirstOrThrow();
    if (row.status === 'failed') throw new Error(`import failed: ${JSON.stringify(row.metadata)}`);
    state = (row.metadata as any)?.confirm?.state ?? '';
  }
  const importSeconds = (performance.now() - importStarted) / 1000;
  const imported = await api.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', importer.user.id).executeTakeFirstOrThrow();
  console.log(JSON.stringify({ lines: N, database: process.env.DATABASE_URL ? 'postgresql' : 'embedded', syncSeconds: +syncSeconds.toFixed(2), importSeconds: +importSeconds.toFixed(2), importedByFile: Number(imported.n), ratio: +(syncSeconds / importSeconds).toFixed(2) }));
} finally {
  for (const fn of teardowns.reverse()) await fn();
  await bridge.close();
}
