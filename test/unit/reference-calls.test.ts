// The coverage report's list of calls is read from clients.md: check the reading, so a format
// change there cannot silently empty the list the client suites are measured against.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { CALLS_SNAPSHOT, callKey, CLIENTS_MD, referenceCalls } from '../clients/reference-calls.js';

const hasClientsMd = existsSync(CLIENTS_MD);

t.test('the endpoint tables of clients.md give each client its calls', { skip: hasClientsMd ? false : 'no shared/ beside the project' }, async (t) => {
  const web = referenceCalls('web');
  const mobile = referenceCalls('mobile');
  t.ok(web.length >= 50, `web: ${web.length} calls`);
  t.ok(mobile.length >= 40, `mobile: ${mobile.length} calls`);
  for (const call of ['POST /transfers', 'POST /ai/chat', 'GET /stats', 'PUT /parties/{}', 'POST /parties', 'GET /oauth/google/login']) t.ok(web.includes(call), `web ${call}`);
  for (const call of ['PUT /notifications/{}/read', 'POST /auth/login', 'GET /configurations/{}', 'DELETE /configurations/{}', 'POST /oauth/firebase/apple/callback', 'GET /cloud/plans']) {
    t.ok(mobile.includes(call), `mobile ${call}`);
  }
  t.notOk(web.includes('PUT /parties'), '`POST / PUT` over two paths pairs them');
  t.notOk(mobile.some((call) => call.includes('http')), "a third party's address is not a call of this service");
  t.notOk(mobile.includes('POST /notifications'), 'notifications are only marked read by mobile');
});

t.test('a call added to a table is picked up', async (t) => {
  const markdown = [
    '### 3.6 Mobile bodies, per entity',
    '| wallet | a | b |',
    '### 4.1 Web UI endpoints',
    '| Method | Path | Query / body sent | Response read |',
    '|---|---|---|---|',
    '| GET | `/budgets/{id}` | — | `data` |',
    '| POST / DELETE | `/tags`, `/tags/{id}` | `{name}` | `data` |',
    '### 4.2 Mobile endpoints',
    '| POST / PUT / DELETE | as in §3.6 | — | `data` |',
  ].join('\n');
  t.same(referenceCalls('web', markdown), ['GET /budgets/{}', 'POST /tags', 'DELETE /tags/{}']);
  t.same(referenceCalls('mobile', markdown), ['POST /wallets', 'PUT /wallets/{}', 'DELETE /wallets/{}']);
  t.equal(callKey('get', 'wallets/{id}'), 'GET /wallets/{}');
});

t.test('the snapshot used without shared/ is what clients.md says today', { skip: hasClientsMd ? false : 'no shared/ beside the project' }, async (t) => {
  const snapshot = JSON.parse(readFileSync(CALLS_SNAPSHOT, 'utf8'));
  t.same(snapshot, { web: referenceCalls('web'), mobile: referenceCalls('mobile') }, 'refresh it: npx tsx test/clients/reference-calls.ts');
});
