// A bank export uploaded to POST /v1/import/analyze and analysed by its job, as the review shows it.
import { analyzeImportJob } from '../../jobs/analyze-import.js';
import type { TestApp } from './harness.js';
import { multipart } from './transaction-fixtures.js';

/** The session of `csv` (a CSV file's text) after its analysis: GET /v1/import/sessions/{id}'s data. */
export async function analysedSession(api: TestApp, token: string, csv: string, fileName = 'giro.csv') {
  const { payload, headers } = multipart([], [{ field: 'file', filename: fileName, contentType: 'text/csv', data: Buffer.from(csv) }]);
  const res = await api.request('POST', '/api/v1/import/analyze', { token, payload, headers });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  await analyzeImportJob.run({ db: api.db, services: api.app.services, log: api.app.log }, { sessionId: res.body.data.id });
  return (await api.request('GET', `/api/v1/import/sessions/${res.body.data.id}`, { token })).body.data;
}
