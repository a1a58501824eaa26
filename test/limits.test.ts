// Limits: every multipart operation of the spec refuses an upload over UPLOAD_LIMIT_MB (413), a
// body of a media type it does not take (415) and a file of a type it does not accept (422 on
// the file's field, nothing stored); and every kind of response (JSON, errors, 404, 405, the
// docs, the spec, stored files) carries the security headers; every public account route is
// rate limited per IP with Retry-After; every list serves a `limit` above 100 as 100. The
// multipart operations, the account routes and the lists are enumerated from the spec: a new
// multipart one (or a list under a record id) fails this test until it has its case here.
import t from 'tap';
import { operations } from '../generated/operations.js';
import { grantAdmin } from '../scripts/admin.js';
import { startApp, type TestApp } from './helpers/harness.js';
import { operations as specOperations } from './helpers/spec-walk.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t, { uploadLimitBytes: 1024 * 1024 });
const owner = await api.newUser();
const admin = await api.newUser();
if ((await grantAdmin(api.db, admin.email)).exitCode !== 0) throw new Error('could not grant the admin role');

async function insertId(table: 'chat_sessions' | 'chat_messages' | 'categories', values: Record<string, unknown>): Promise<number> {
  return (await (api.db.insertInto(table) as any).values(values).returning('id').executeTakeFirstOrThrow()).id;
}
const userId = owner.user.id as number;
const walletsRes = await api.request('GET', '/api/v1/wallets', { token: owner.token });
const wallet = walletsRes.body.data.data[0].id as number;
const created = async (url: string, body: object) => {
  const res = await api.request('POST', url, { token: owner.token, body });
  if (res.status !== 201) throw new Error(`${url}: ${JSON.stringify(res.body)}`);
  return res.body.data.id as number;
};
const income = await created('/api/v1/transactions', { type: 'income', amount: 50, wallet_id: wallet });
const expense = await created('/api/v1/transactions', { type: 'expense', amount: 5, wallet_id: wallet });
const category = await created('/api/v1/categories', { name: 'Limits', type: 'expense' });
const chat = await insertId('chat_sessions', { user_id: userId, title: 'Limits' });
const question = await insertId('chat_messages', { user_id: userId, chat_session_id: chat, role: 'user', status: 'completed', content: 'Here' });

/** Windows executable bytes, whatever name and type they are sent under. */
const EXE = Buffer.concat([Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00]), Buffer.alloc(512, 1)]);
const TOO_LARGE = Buffer.alloc(1024 * 1024 + 4096, 0x61);

interface UploadCase {
  url: string;
  token: string;
  fields: Array<[string, string]>;
  /** The file part's field name, and the error key it is reported under. */
  field: string;
  errorKey: RegExp;
  filename: string;
  contentType: string;
}

const cases: Record<string, UploadCase> = {
  createCategory: { url: '/api/v1/categories', token: owner.token, fields: [['name', 'Icon'], ['type', 'expense']], field: 'icon', errorKey: /^icon$/, filename: 'i.png', contentType: 'image/png' },
  updateCategory: { url: `/api/v1/categories/${category}`, token: owner.token, fields: [['name', 'Icon 2']], field: 'icon', errorKey: /^icon$/, filename: 'i.png', contentType: 'image/png' },
  createTransaction: { url: '/api/v1/transactions', token: owner.token, fields: [['type', 'expense'], ['amount', '1'], ['wallet_id', String(wallet)]], field: 'files[]', errorKey: /^files(\.0)?$/, filename: 'r.png', contentType: 'image/png' },
  updateTransaction: { url: `/api/v1/transactions/${expense}?type=expense`, token: owner.token, fields: [['amount', '2'], ['updated_at', new Date().toISOString()]], field: 'files[]', errorKey: /^files(\.0)?$/, filename: 'r.png', contentType: 'image/png' },
  uploadTransactionFiles: { url: `/api/v1/transactions/${expense}/files`, token: owner.token, fields: [], field: 'files[]', errorKey: /^files(\.0)?$/, filename: 'r.pdf', contentType: 'application/pdf' },
  // takes no file at all: a file part is an unknown field
  markTransactionRefund: { url: `/api/v1/transactions/${income}/refund`, token: owner.token, fields: [['original_transaction_id', String(expense)]], field: 'files[]', errorKey: /^files\[\]$/, filename: 'r.png', contentType: 'image/png' },
  uploadOutreachMedia: { url: '/api/v1/admin/outreach/media', token: admin.token, fields: [], field: 'image', errorKey: /^image$/, filename: 'hero.png', contentType: 'image/png' },
  sendOutreach: { url: '/api/v1/admin/outreach/send', token: admin.token, fields: [['subject', 'S'], ['body', 'B'], ['audience', 'test']], field: 'files[]', errorKey: /^files(\.0)?$/, filename: 'a.pdf', contentType: 'application/pdf' },
  importFile: { url: '/api/v1/import', token: owner.token, fields: [], field: 'file', errorKey: /^file$/, filename: 'march.csv', contentType: 'text/csv' },
  analyzeImport: { url: '/api/v1/import/analyze', token: owner.token, fields: [], field: 'file', errorKey: /^file$/, filename: 'march.csv', contentType: 'text/csv' },
  uploadChatMessageFiles: { url: `/api/v1/ai/chats/${chat}/messages/${question}/files`, token: owner.token, fields: [], field: 'files', errorKey: /^files(\.0)?$/, filename: 'a.csv', contentType: 'text/csv' },
};

const multipartOperations = operations.filter((op) => op.bodyTypes.includes('multipart/form-data'));

const storedFiles = async () => Number((await api.db.selectFrom('files').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

t.test('every multipart operation of the spec has its case here', async (t) => {
  t.same(multipartOperations.map((op) => op.operationId).filter((id) => !(id in cases)), []);
  t.ok(multipartOperations.length >= 11);
});

for (const operation of multipartOperations) {
  const upload = cases[operation.operationId];
  if (!upload) continue;
  const send = (app: TestApp, form: { payload: Buffer; headers: Record<string, string> }) =>
    app.request(operation.method, upload.url, { token: upload.token, payload: form.payload, headers: form.headers });

  t.test(`${operation.operationId}: 413 over the limit, 415 for another media type, 422 for a file it does not take`, async (t) => {
    const before = await storedFiles();
    const large = await send(api, multipart(upload.fields, [{ field: upload.field, filename: upload.filename, contentType: upload.contentType, data: TOO_LARGE }]));
    t.equal(large.status, 413, 'a file over UPLOAD_LIMIT_MB is refused');
    t.match(large.body, { success: false, message: /larger than the limit of 1 MB/ });

    const text = await api.request(operation.method, upload.url, { token: upload.token, payload: 'name=x', headers: { 'content-type': 'text/plain' } });
    t.equal(text.status, 415, 'a text/plain body is refused');
    t.equal(text.body.success, false);

    const exe = await send(api, multipart(upload.fields, [{ field: upload.field, filename: upload.filename, contentType: upload.contentType, data: EXE }]));
    t.equal(exe.status, 422, 'executable bytes under an accepted name and type are refused');
    t.ok(Object.keys(exe.body.errors ?? {}).some((key) => upload.errorKey.test(key)), `the error names the file field: ${JSON.stringify(exe.body.errors)}`);
    t.equal(await storedFiles(), before, 'nothing was stored');
  });
}

t.test('an accepted file still passes (the cases are not refused for another reason)', async (t) => {
  const upload = cases.uploadTransactionFiles;
  const form = multipart([], [{ field: 'files[]', filename: 'ok.png', contentType: 'image/png', data: PNG }]);
  const ok = await api.request('POST', upload.url, { token: owner.token, payload: form.payload, headers: form.headers });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
});

// ---------------------------------------------------------------- security headers

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

t.test('every kind of response carries the security headers', async (t) => {
  const fileId = (await api.db.selectFrom('files').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow()).id;
  const samples: Array<[string, string, string | undefined, number]> = [
    ['JSON, public', '/api/info', undefined, 200],
    ['JSON, authenticated', '/api/v1/wallets', owner.token, 200],
    ['401', '/api/v1/wallets', undefined, 401],
    ['403', '/api/v1/admin/users', owner.token, 403],
    ['404 of a record', '/api/v1/wallets/999999', owner.token, 404],
    ['404 of a route', '/api/nothing-here', undefined, 404],
    ['422', '/api/v1/transactions?limit=abc', owner.token, 422],
    ['the spec', '/api/openapi.json', undefined, 200],
    ['the docs page', '/docs/', undefined, 200],
    ['a docs script', '/docs/static/swagger-initializer.js', undefined, 200],
    ['a stored file', `/api/v1/files/${fileId}`, owner.token, 200],
    ['a public media 404', '/storage/outreach/nothing.png', undefined, 404],
  ];
  for (const [kind, url, token, status] of samples) {
    const res = await api.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    t.equal(res.statusCode, status, `${kind}: ${url}`);
    t.match(res.headers, SECURITY_HEADERS, `${kind}: nosniff, no framing, no referrer`);
    const policy = String(res.headers['content-security-policy']);
    t.match(policy, /frame-ancestors 'none'/, `${kind}: a CSP that forbids framing`);
    if (url.startsWith('/docs')) t.match(policy, /script-src 'self'/, `${kind}: the docs may run their own scripts`);
    else t.match(policy, /^default-src 'none'/, `${kind}: anything else may load nothing`);
    t.notOk(res.headers['strict-transport-security'], `${kind}: no HSTS over plain HTTP`);
  }
  const wrongMethod = await api.app.inject({ method: 'PATCH', url: '/api/v1/wallets' });
  t.equal(wrongMethod.statusCode, 405);
  t.match(wrongMethod.headers, SECURITY_HEADERS, '405 too');
});

t.test('the docs page loads only what its policy allows', async (t) => {
  const page = await api.app.inject({ method: 'GET', url: '/docs/' });
  t.notMatch(page.body, /<script>(?!\s*<\/script>)|<script(?![^>]*\bsrc=)[^>]*>[^<]/, 'no inline script');
  for (const [, src] of page.body.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)) {
    t.notMatch(src, /^(https?:)?\/\//, `${src} is from this origin`);
    const asset = await api.app.inject({ method: 'GET', url: new URL(src, 'http://localhost/docs/').pathname });
    t.equal(asset.statusCode, 200, `${src} is served`);
  }
});

t.test('HSTS behind a TLS proxy the service trusts', async (t) => {
  const proxied = await startApp(t, { trustProxy: true });
  const https = await proxied.app.inject({ method: 'GET', url: '/api/info', headers: { 'x-forwarded-proto': 'https' } });
  t.match(https.headers['strict-transport-security'], /^max-age=\d{7,}; includeSubDomains$/);
  const plain = await proxied.app.inject({ method: 'GET', url: '/api/info', headers: { 'x-forwarded-proto': 'http' } });
  t.notOk(plain.headers['strict-transport-security']);
  const untrusted = await api.app.inject({ method: 'GET', url: '/api/info', headers: { 'x-forwarded-proto': 'https' } });
  t.notOk(untrusted.headers['strict-transport-security'], 'a forwarded header from an untrusted client is not believed');
});

// ---------------------------------------------------------------- rate limits

t.test('every public account route of the spec is rate limited per IP, with Retry-After', async (t) => {
  // behind a trusted proxy, so each operation can come from its own address and still be checked against the spec
  const limited = await startApp(t, { rateLimitAuth: 2, trustProxy: true });
  const accountRoutes = operations.filter((op) => op.public && op.tag === 'Authentication');
  t.ok(accountRoutes.length >= 14, `${accountRoutes.length} operations`);
  for (const [index, op] of accountRoutes.entries()) {
    const url = op.route.replace(':driver', 'google');
    // each operation from its own address; bodies without an e-mail, so only the per-IP limit counts
    const call = () => limited.request(op.method, url, { headers: { 'x-forwarded-for': `10.20.${index}.1` }, ...(op.method === 'POST' ? { body: {} } : {}) });
    for (let i = 0; i < 2; i += 1) t.not((await call()).status, 429, `${op.operationId}: request ${i + 1} passes`);
    const refused = await call();
    t.equal(refused.status, 429, `${op.operationId}: the third request in a minute is refused`);
    t.ok(Number(refused.headers['retry-after']) > 0, `${op.operationId}: with Retry-After`);
    t.equal(refused.body.success, false);
  }
});

t.test('every list of the spec serves a limit above 100 as 100, and still refuses 0 and a non-integer', async (t) => {
  const budget = await created('/api/v1/budgets', { name: 'Limits', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01' });
  const csv = multipart([], [{ field: 'file', filename: 'march.csv', contentType: 'text/csv', data: Buffer.from('amount,type\n5,expense\n') }]);
  const fileImport = await api.request('POST', '/api/v1/import', { token: owner.token, ...csv });
  t.equal(fileImport.status, 201);
  const webhook = await created('/api/v1/webhooks', { url: 'https://hooks.example.com/finance', event_kinds: ['transaction.created'] });
  const rule = await created('/api/v1/rules', { name: 'Limits', conditions: [{ field: 'description', operator: 'contains', value: 'coffee' }], actions: [{ type: 'set_description', description: 'Coffee' }] });
  // the record each list under an id is read for
  const ids: Record<string, number> = { listBudgetTransactions: budget, listFailedImports: fileImport.body.data.id, listWebhookDeliveries: webhook, previewRule: rule };
  const lists = specOperations.filter((op) => op.parameters.some((p) => p.in === 'query' && p.name === 'limit'));
  t.ok(lists.length >= 18, `${lists.length} lists`);
  for (const op of lists) {
    const id = ids[op.operationId];
    if (op.path.includes('{') && id === undefined) {
      t.fail(`${op.operationId}: no record id for ${op.path} here`);
      continue;
    }
    const url = `/api${op.path.replace(/\{[^}]+\}/, String(id))}`;
    const token = op.admin ? admin.token : owner.token;
    const res = await api.request('GET', `${url}?limit=500`, { token });
    t.equal(res.status, 200, `${op.operationId}: limit=500 is served`);
    if (res.body.data?.per_page !== undefined) t.equal(res.body.data.per_page, 100, `${op.operationId}: per_page says 100`);
    for (const bad of ['0', 'abc']) {
      const refused = await api.request('GET', `${url}?limit=${bad}`, { token });
      t.equal(refused.status, 422, `${op.operationId}: limit=${bad} is 422`);
      t.ok(refused.body.errors?.limit, `${op.operationId}: keyed by limit`);
    }
  }
});
