// Writes the summary invariant tests (stats-summary, budget-summary) make through the API, as
// one user: POST and PUT that fail loudly, and a CSV import run to the end.
import type { Test } from 'tap';
import { processCsvImportJob } from '../../jobs/process-csv-import.js';
import type { TestApp } from './harness.js';
import { ledgerFixtures, multipart } from './transaction-fixtures.js';

export function summaryWrites(api: TestApp, token: string) {
  const post = async (url: string, body: unknown, status = 200) => {
    const res = await api.request('POST', url, { token, body });
    if (res.status !== status && !(status === 200 && res.status === 201)) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  let edits = 0;
  const put = async (id: number, body: Record<string, unknown>) => {
    // each edit newer than the last (rows are created at the real clock's time)
    const updatedAt = new Date(Date.now() + 60_000 * ++edits).toISOString();
    const res = await api.request('PUT', `/api/v1/transactions/${id}`, { token, body: { updated_at: updatedAt, ...body } });
    if (res.status !== 200) throw new Error(`PUT ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  /** A bank CSV of an expense and an income into "Main Wallet", imported by the job. */
  const importCsv = async (t: Test, userId: number) => {
    const csv = ['Date,Amount,Currency,Type,Payee,Account,Category,Memo', '2026-11-03,-12.50,USD,,Cafe,Main Wallet,,Latte', '2026-11-04,200,USD,income,Employer,Main Wallet,,Pay'].join('\n');
    const { payload, headers } = multipart([], [{ field: 'file', filename: 'nov.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
    const upload = await api.request('POST', '/api/v1/import', { token, payload, headers });
    t.equal(upload.status, 201);
    const fx = ledgerFixtures(api);
    const before = await fx.count('transactions', userId);
    await processCsvImportJob.run({ db: api.db, services: api.app.services, log: api.app.log }, { importId: upload.body.data.id });
    t.ok((await fx.count('transactions', userId)) > before, 'the import made transactions');
  };
  return { post, put, importCsv };
}
