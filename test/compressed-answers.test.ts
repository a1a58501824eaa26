// Answers at the cost of their bytes (issue 40): compression negotiated from Accept-Encoding,
// with one weak tag for every coding so revalidation keeps answering 304; and conditional
// answers kept by their tag (server/body-cache.ts), served again without running the handler,
// never to another user or token, never after a change. Settings turn both off.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { startApp, type TestApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const other = await api.newUser();

const wallet = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Main', type: 'bank', currency: 'EUR', balance: 1000 } })).body.data;
for (let i = 0; i < 30; i++) {
  await api.request('POST', '/api/v1/transactions', {
    token: owner.token,
    body: { type: 'expense', amount: 1 + i, wallet_id: wallet.id, datetime: `2026-01-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`, description: `groceries ${i}` },
  });
}
const LIST = '/api/v1/transactions?page=1&limit=50';
const SYNC = '/api/v1/transactions?synced_since=2000-01-01T00:00:00Z&limit=10&page=2';

/** fastify inject with raw bytes: the harness parses JSON bodies, which a compressed body is not. */
async function fetchRaw(app: TestApp, url: string, token: string | undefined, headers: Record<string, string> = {}) {
  const res = await app.app.inject({ method: 'GET', url, headers: { ...(token && { authorization: `Bearer ${token}` }), ...headers } });
  const coding = res.headers['content-encoding'];
  const bytes = res.rawPayload;
  const text = coding === 'gzip' ? gunzipSync(bytes).toString() : coding === 'br' ? brotliDecompressSync(bytes).toString() : bytes.toString();
  return { status: res.statusCode, headers: res.headers, bytes, text };
}

t.test('JSON is compressed as Accept-Encoding asks, with one weak tag for every coding', async (t) => {
  const plain = await fetchRaw(api, LIST, owner.token);
  t.equal(plain.status, 200);
  t.notOk(plain.headers['content-encoding'], 'no Accept-Encoding: the identity body');
  t.equal(plain.headers.vary, 'accept-encoding');
  t.ok(plain.bytes.length > 5_000, `a page of 30 rows is ${plain.bytes.length} bytes`);
  for (const [asked, expected] of [
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['*', 'gzip'],
    ['identity', undefined],
    ['deflate', undefined],
  ] as const) {
    const res = await fetchRaw(api, LIST, owner.token, { 'accept-encoding': asked });
    t.equal(res.status, 200);
    t.equal(res.headers['content-encoding'], expected, `Accept-Encoding: ${asked}`);
    t.equal(res.headers.vary, 'accept-encoding');
    t.equal(res.text, plain.text, `${asked}: the same JSON`);
    t.equal(res.headers.etag, plain.headers.etag, `${asked}: the same weak tag`);
    if (expected) t.ok(res.bytes.length < plain.bytes.length / 4, `${asked}: ${res.bytes.length} of ${plain.bytes.length} bytes`);
  }
  t.match(plain.headers.etag, /^W\//, 'the tag is weak: codings of one answer may share it');
});

t.test("a gzip client's tag revalidates to a 304 with no body, in any coding", async (t) => {
  for (const url of [LIST, SYNC, '/api/v1/user']) {
    const first = await fetchRaw(api, url, owner.token, { 'accept-encoding': 'gzip' });
    t.equal(first.status, 200);
    for (const coding of ['gzip', 'br', 'identity']) {
      const again = await fetchRaw(api, url, owner.token, { 'accept-encoding': coding, 'if-none-match': first.headers.etag as string });
      t.equal(again.status, 304, `${url} revalidated with ${coding}`);
      t.equal(again.bytes.length, 0, 'no body');
      t.notOk(again.headers['content-encoding'], 'a 304 has no coding');
      t.equal(again.headers.etag, first.headers.etag);
      t.equal(again.headers.vary, 'accept-encoding', 'a 304 says what its 200 varies by');
    }
  }
});

t.test('short bodies, the spec, the docs page and stored files', async (t) => {
  const user = await fetchRaw(api, '/api/v1/wallets/' + wallet.id, owner.token, { 'accept-encoding': 'br, gzip' });
  t.equal(user.status, 200);
  t.ok(user.bytes.length < 1024, `a short answer (${user.bytes.length} bytes)`);
  t.notOk(user.headers['content-encoding'], 'is sent as it is');
  const spec = await fetchRaw(api, '/api/openapi.json', undefined, { 'accept-encoding': 'gzip' });
  t.equal(spec.headers['content-encoding'], 'gzip', 'the spec, through the plugin');
  t.ok(JSON.parse(spec.text).openapi, 'decodes to the document');
  t.match(spec.headers.vary, /accept-encoding/);
  const docs = await fetchRaw(api, '/docs/static/swagger-ui-bundle.js', undefined, { 'accept-encoding': 'br' });
  t.equal(docs.status, 200);
  t.equal(docs.headers['content-encoding'], 'br', "the docs page's script");
  const error = await fetchRaw(api, '/api/v1/nothing-here', owner.token, { 'accept-encoding': 'gzip' });
  t.equal(error.status, 404);
  t.notOk(error.headers['content-encoding'], 'a short error as it is');

  // a stored file goes as stored, with its length (a PDF of repeated text would compress well)
  const text = `%PDF-1.4\n${'1 0 obj << /Type /Page >> endobj\n'.repeat(200)}%%EOF\n`;
  const form = new FormData();
  form.append('type', 'expense');
  form.append('amount', '5');
  form.append('wallet_id', String(wallet.id));
  form.append('files[]', new Blob([text], { type: 'application/pdf' }), 'notes.pdf');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  const created = await api.app.inject({
    method: 'POST',
    url: '/api/v1/transactions',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': request.headers.get('content-type')! },
    payload: Buffer.from(await request.arrayBuffer()),
  });
  t.equal(created.statusCode, 201, created.body.slice(0, 200));
  const file = created.json().data.files[0];
  const download = await fetchRaw(api, `/api/v1/files/${file.id}`, owner.token, { 'accept-encoding': 'gzip, br' });
  t.equal(download.status, 200);
  t.notOk(download.headers['content-encoding'], 'a stored file is not compressed');
  t.equal(download.text, text);
  t.equal(download.headers['content-length'], String(text.length), 'and keeps its length');
});

t.test('a kept answer is served without running the handler, to its own user and token only', async (t) => {
  const marks = () => api.db.selectFrom('sync_page_marks').selectAll().execute();
  const first = await fetchRaw(api, SYNC, owner.token, { 'accept-encoding': 'gzip' });
  t.equal(first.status, 200);
  t.ok(api.app.bodyCache.size.entries > 0, 'the answer is kept');
  // page 2 wrote its mark; a handler that runs writes it again
  t.ok((await marks()).length > 0);
  await api.db.deleteFrom('sync_page_marks').execute();
  const kept = await fetchRaw(api, SYNC, owner.token, { 'accept-encoding': 'gzip' });
  t.equal(kept.status, 200);
  t.same(kept.bytes, first.bytes, 'the same bytes');
  t.equal(kept.headers.etag, first.headers.etag);
  t.equal(kept.headers['content-encoding'], 'gzip');
  t.same(await marks(), [], 'the handler did not run');

  // another coding is another answer: serialised again, and kept too
  const identity = await fetchRaw(api, SYNC, owner.token);
  t.equal(identity.text, first.text);
  t.notOk(identity.headers['content-encoding']);

  // another user's same URL: their own answer
  const stranger = await fetchRaw(api, SYNC, other.token, { 'accept-encoding': 'gzip' });
  t.equal(JSON.parse(stranger.text).data.data.length, 0, "the other user's page is theirs");
  t.not(stranger.headers.etag, first.headers.etag);
  // the same user on another token: page 2 continues after that token's page 1, so it runs
  const second = (await api.request('POST', '/api/login', { body: { email: owner.email, password: owner.password } })).body.data.token as string;
  const otherToken = await fetchRaw(api, SYNC, second, { 'accept-encoding': 'gzip' });
  t.equal(otherToken.status, 200);
  t.not(otherToken.headers.etag, first.headers.etag);
  t.ok((await marks()).length > 0, 'the handler ran for the other token');

  // any change of the user's is a new tag, hence a new answer
  const before = await fetchRaw(api, LIST, owner.token, { 'accept-encoding': 'br' });
  await api.request('PUT', `/api/v1/transactions/${JSON.parse(before.text).data.data[0].id}?type=expense`, { token: owner.token, body: { description: 'changed' } });
  const after = await fetchRaw(api, LIST, owner.token, { 'accept-encoding': 'br' });
  t.not(after.headers.etag, before.headers.etag);
  t.equal(JSON.parse(after.text).data.data.find((row: { description: string }) => row.description === 'changed')?.description, 'changed', 'the change is in it');
});

t.test('COMPRESSION=false and RESPONSE_CACHE_MB=0 turn them off', async (t) => {
  const plainApp = await startApp(t, { compression: false, responseCacheBytes: 0 });
  const user = await plainApp.newUser();
  const w = (await plainApp.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'Main', type: 'bank', currency: 'EUR', balance: 100 } })).body.data;
  for (let i = 0; i < 10; i++) await plainApp.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 1, wallet_id: w.id, description: `row ${i}` } });
  const res = await fetchRaw(plainApp, LIST, user.token, { 'accept-encoding': 'gzip, br' });
  t.equal(res.status, 200);
  t.ok(res.bytes.length > 1024);
  t.notOk(res.headers['content-encoding']);
  t.notOk(res.headers.vary, 'nothing varies by Accept-Encoding');
  t.notOk((await fetchRaw(plainApp, '/api/openapi.json', undefined, { 'accept-encoding': 'gzip' })).headers['content-encoding']);
  t.equal(plainApp.app.bodyCache.size.entries, 0, 'nothing kept');
  t.equal((await fetchRaw(plainApp, LIST, user.token, { 'if-none-match': res.headers.etag as string })).status, 304, 'revalidation still works');
});
