// The request path over HTTP: routing errors, media types, sizes, validation, the envelope,
// request ids, CORS, docs, info, faults, and the contract check itself.
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { openDatabase } from '../db/connection.js';
import { additions, operations } from '../generated/operations.js';
import { allHandlers } from '../handlers/index.js';
import { drainAndClose, Lifecycle } from '../server/lifecycle.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t, { uploadLimitBytes: 1024 * 1024 });
const { token } = await api.newUser();

t.test('unknown routes are 404 and wrong methods 405, in the envelope', async (t) => {
  const missing = await api.request('GET', '/api/v1/nothing-here', { token });
  t.equal(missing.status, 404);
  t.same(missing.body, { success: false, message: 'The route GET /api/v1/nothing-here does not exist.' });

  const wrong = await api.request('PATCH', '/api/v1/user', { token });
  t.equal(wrong.status, 405);
  t.equal(wrong.body.success, false);
  t.equal(wrong.headers.allow, 'GET, HEAD');
});

t.test('bodies: malformed JSON 400, wrong media type 415, too large 413', async (t) => {
  const malformed = await api.request('POST', '/api/login', { payload: '{"email": ', headers: { 'content-type': 'application/json' } });
  t.equal(malformed.status, 400);
  t.same(malformed.body, { success: false, message: 'The body is not valid JSON.' });

  const text = await api.request('POST', '/api/login', { payload: 'email=a', headers: { 'content-type': 'text/plain' } });
  t.equal(text.status, 415);
  t.equal(text.body.success, false);

  const boundary = 'XyZ';
  const multipart = await api.request('POST', '/api/login', {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `--${boundary}\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.test\r\n--${boundary}--\r\n`,
  });
  t.equal(multipart.status, 415, 'multipart where only JSON is accepted');
  t.match(multipart.body.message, /application\/json/);

  const large = await api.request('POST', '/api/login', {
    payload: JSON.stringify({ email: 'a@b.test', password: 'x'.repeat(2 * 1024 * 1024) }),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(large.status, 413);
  t.match(large.body.message, /limit of 1 MB/);
});

t.test('validation runs before the handler: 422 keyed by field, bad ids 404', async (t) => {
  const badQuery = await api.request('GET', '/api/v1/groups?limit=0&page=0', { token });
  t.equal(badQuery.status, 422);
  t.same(Object.keys(badQuery.body.errors).sort(), ['limit', 'page']);
  t.same(badQuery.body.errors.limit, ['The limit must be at least 1.']);

  const badId = await api.request('GET', '/api/v1/groups/abc', { token });
  t.equal(badId.status, 404, 'a non-numeric id names no record');
  t.equal(badId.body.success, false);
});

t.test('an operation without a handler answers 501 in the envelope, after authentication', async (t) => {
  const unimplemented = operations.find((op) => !(op.operationId in allHandlers) && op.method === 'GET' && !op.public && !op.path.includes('{'));
  if (!unimplemented) return t.pass('every operation is implemented');
  const url = `/api${unimplemented.path}`;
  const res = await api.request('GET', url, { token });
  t.equal(res.status, 501);
  t.same(res.body, { success: false, message: `The operation ${unimplemented.operationId} is not implemented yet.` });
  t.equal((await api.request('GET', url)).status, 401, 'no token is still 401');
});

t.test('request ids: generated, or taken from the client, and echoed', async (t) => {
  const generated = await api.request('GET', '/api/info');
  t.match(generated.headers['x-request-id'], /^[0-9a-f-]{36}$/);
  const given = await api.request('GET', '/api/info', { headers: { 'x-request-id': 'client-trace-42' } });
  t.equal(given.headers['x-request-id'], 'client-trace-42');
});

t.test('CORS answers preflight requests with the headers clients send', async (t) => {
  const res = await api.app.inject({
    method: 'OPTIONS',
    url: '/api/v1/wallets',
    headers: {
      origin: 'http://localhost:3000',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,accept-language',
    },
  });
  t.equal(res.statusCode, 204);
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.match(String(res.headers['access-control-allow-headers']), /Authorization/);
  t.match(String(res.headers['access-control-allow-headers']), /Accept-Language/);
});

t.test('info says what this server is and how much it implements', async (t) => {
  for (const url of ['/api/info', '/api/v1/info']) {
    const res = await api.request('GET', url);
    t.equal(res.status, 200);
    t.equal(res.body.data.version, '1.1.2');
    t.equal(res.body.data.database, process.env.DATABASE_URL ? 'postgresql' : 'embedded');
    t.equal(res.body.data.operations.total, operations.length);
    t.equal(res.body.data.operations.implemented, Object.keys(allHandlers).length);
    // the operations beyond 1.1.2 as released (spec/released/1.1.2.json), and no released one
    t.same(res.body.data.additions, additions);
    t.ok(['getLiveness', 'createWebhookEndpoint', 'registerPushSubscription'].every((id) => res.body.data.additions.includes(id)));
    t.notOk(res.body.data.additions.includes('listWallets'));
  }
});

t.test('health: live and ready while serving', async (t) => {
  const live = await api.request('GET', '/api/health/live');
  t.equal(live.status, 200);
  t.same(live.body, { success: true, message: 'The service is running.', data: { status: 'live' } });
  const ready = await api.request('GET', '/api/health/ready');
  t.equal(ready.status, 200);
  t.same(ready.body.data, { status: 'ready' });
});

t.test('health while starting: live, not ready, every other operation 503 until served', async (t) => {
  const lifecycle = new Lifecycle('starting');
  const starting = await startApp(t, { database: api.database, lifecycle });
  t.equal((await starting.request('GET', '/api/health/live')).status, 200);
  const ready = await starting.request('GET', '/api/health/ready');
  t.equal(ready.status, 503);
  t.same(ready.body, { success: false, message: 'The service is starting: the database is being migrated.' });
  t.equal(ready.headers['retry-after'], '5');
  for (const [method, url] of [['GET', '/api/info'], ['POST', '/api/register'], ['GET', '/api/v1/user']]) {
    const held = await starting.request(method, url, { body: method === 'POST' ? {} : undefined });
    t.same([held.status, held.body.message], [503, 'The service is starting. Try again in a few seconds.'], `${method} ${url} is held`);
  }
  lifecycle.serve();
  t.equal((await starting.request('GET', '/api/health/ready')).status, 200, 'ready once migrated');
  t.equal((await starting.request('GET', '/api/info')).status, 200);
});

t.test('health from the shutdown signal on: not ready at once, still serving until the drain', async (t) => {
  const stopping = await startApp(t, { database: api.database });
  const { token } = await stopping.newUser();
  const shutdown = drainAndClose(stopping.app, 300);
  const ready = await stopping.request('GET', '/api/health/ready');
  t.same([ready.status, ready.body.message], [503, 'The service is shutting down.']);
  t.equal((await stopping.request('GET', '/api/health/live')).status, 200, 'still alive');
  t.equal((await stopping.request('GET', '/api/v1/user', { token })).status, 200, 'requests still arriving are served');
  await shutdown;
  await t.rejects(stopping.app.inject({ method: 'GET', url: '/api/health/live' }), 'then closed');
});

t.test('health when the database cannot be reached: 503 within the bound, never a hang', async (t) => {
  // a port nobody listens on: refused at once
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const refused = await openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${closedPort}/finance`, poolSize: 2 });
  t.teardown(() => refused.close());
  const down = await startApp(t, { database: refused, readinessTimeoutMs: 300 });
  const answer = await down.request('GET', '/api/health/ready');
  t.same([answer.status, answer.body.message], [503, 'The database cannot be reached.']);
  t.equal((await down.request('GET', '/api/health/live')).status, 200, 'alive all the same');

  // a server that accepts the connection and never answers: the check gives up at the bound
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const hung = await openDatabase({ databaseUrl: `postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/finance`, poolSize: 2 });
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await hung.close();
  });
  const silentApp = await startApp(t, { database: hung, readinessTimeoutMs: 300 });
  for (const attempt of [1, 2]) {
    const started = Date.now();
    const timedOut = await silentApp.request('GET', '/api/health/ready');
    t.same([timedOut.status, timedOut.body.message], [503, 'The database did not answer within 300 ms.'], `check ${attempt}`);
    t.ok(Date.now() - started < 1500, `answered within the bound (${Date.now() - started} ms)`);
  }
});

t.test('info is rate limited per IP at the API rate, both paths on one counter', async (t) => {
  const limited = await startApp(t, { rateLimitApi: 3 });
  for (const url of ['/api/info', '/api/v1/info', '/api/info']) t.equal((await limited.request('GET', url)).status, 200);
  const refused = await limited.request('GET', '/api/v1/info');
  t.equal(refused.status, 429);
  t.match(refused.body, { success: false, message: /Too many requests/ });
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After header');
  const otherIp = await limited.app.inject({ method: 'GET', url: '/api/info', remoteAddress: '10.9.8.7' });
  t.equal(otherIp.statusCode, 200, 'another IP has its own count');
});

t.test('the spec and its interactive reference are served', async (t) => {
  const spec = await api.request('GET', '/api/openapi.json');
  t.equal(spec.status, 200);
  t.equal(spec.body.info.version, '1.1.2');
  t.equal(spec.body.openapi, '3.0.0');
  const docs = await api.app.inject({ method: 'GET', url: '/docs/' });
  t.equal(docs.statusCode, 200);
  t.match(docs.body, `<title>${spec.body.info.title}: API reference</title>`, 'the page is named after the product');
  const initializer = await api.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body);
  t.ok(logo, 'the stock logo is replaced');
  t.match(Buffer.from(logo![1]!, 'base64').toString(), spec.body.info.title, 'by the product name');
  t.match((await api.app.inject({ method: 'GET', url: '/docs/static/theme/product.css' })).body, 'download-url-wrapper { display: none }', 'no "Explore" box');
});

t.test('a fault is a 500 with a request id and no details', async (t) => {
  const faulty = await startApp(t, {
    handlers: {
      ...allHandlers,
      getServerInfo: async () => {
        throw new Error('connection to the ledger exploded at /srv/secret/path.ts:12');
      },
    },
  });
  const res = await faulty.request('GET', '/api/info');
  t.equal(res.status, 500);
  t.equal(res.body.success, false);
  t.equal(res.body.message, 'Server error. Please try again later.');
  t.equal(res.body.request_id, res.headers['x-request-id']);
  t.notMatch(JSON.stringify(res.body), /exploded|secret/);
});

t.test('the contract check fails a response that does not match the spec', async (t) => {
  const broken = await startApp(t, {
    handlers: {
      ...allHandlers,
      getServerInfo: async () => ({ status: 200, data: { name: 'x', version: 112 } }) as never,
    },
  });
  await t.rejects(broken.request('GET', '/api/info'), /breaks the contract[\s\S]*version/);
});

t.test('integers beyond 2^53 − 1 are refused before SQL: 404 in a path, 422 in a body', async (t) => {
  const api = await startApp(t);
  const { token } = await api.newUser();
  const huge = '99999999999999999999';
  const inPath = await api.request('GET', `/api/v1/wallets/${huge}`, { token });
  t.equal(inPath.status, 404);
  const inBody = await api.request('POST', '/api/v1/transactions', {
    token,
    payload: `{"type":"expense","amount":1,"wallet_id":${huge}}`,
    headers: { 'content-type': 'application/json' },
  });
  t.equal(inBody.status, 422);
  t.match(inBody.body.errors.wallet_id, [/may not be greater than 9007199254740991/]);
  const inQuery = await api.request('GET', `/api/v1/budget-period-states?budget_id=${huge}`, { token });
  t.equal(inQuery.status, 422);
});

t.test('unknown query parameters are ignored without losing the others', async (t) => {
  const api = await startApp(t);
  const { token } = await api.newUser();
  const wallet = (await api.request('GET', '/api/v1/wallets?limit=1', { token })).body.data.data[0];
  const shown = await api.request('GET', `/api/v1/wallets/${wallet.id}?unknown=1`, { token });
  t.equal(shown.status, 200, 'the path id is kept');
  const listed = await api.request('GET', '/api/v1/wallets?limit=1&unknown=x', { token });
  t.equal(listed.body.data.per_page, 1, 'declared parameters are still typed');
});

t.test('a NUL character in any text is 422 on its field, never a 500', async (t) => {
  const api = await startApp(t);
  const { token } = await api.newUser();
  const created = await api.request('POST', '/api/v1/groups', { token, body: { name: 'a\u0000b' } });
  t.equal(created.status, 422);
  t.same(created.body.errors, { name: ['The name may not contain NUL characters.'] });
  const registered = await api.request('POST', '/api/register', {
    body: { email: 'nul@example.test', password: 'long enough password', first_name: 'N\u0000' },
  });
  t.equal(registered.status, 422);
  t.ok(registered.body.errors.first_name);
  const searched = await api.request('GET', `/api/v1/transactions?search=${encodeURIComponent('a\u0000')}`, { token });
  t.ok([200, 422].includes(searched.status), 'a query value with NUL is refused or ignored, not a 500');
});

t.test('an unpaired surrogate (text that is not Unicode) is 422 on its field; a whole pair is kept', async (t) => {
  const api = await startApp(t);
  const { token } = await api.newUser();
  const stored = await api.request('POST', '/api/v1/configurations', { token, body: { key: 'country', type: 'string', value: 'x\ud800' } });
  t.equal(stored.status, 422);
  t.same(stored.body.errors, { value: ['The value may not contain unpaired surrogate characters (text that is not valid Unicode).'] });
  const lowHalf = await api.request('POST', '/api/v1/groups', { token, body: { name: '\udc00 group' } });
  t.same(lowHalf.body.errors, { name: ['The name may not contain unpaired surrogate characters (text that is not valid Unicode).'] });
  const keyed = await api.request('POST', '/api/v1/reminders', { token, body: { title: 'x', metadata: { 'k\ud800': 1 } } });
  t.equal(keyed.status, 422, 'a key of a free-form object too');
  const emoji = await api.request('POST', '/api/v1/groups', { token, body: { name: 'Trips \ud83c\udf34' } });
  t.equal(emoji.status, 201);
  t.equal(emoji.body.data.name, 'Trips \u{1F334}', 'a surrogate pair is one character and is stored');
  const groups = await api.request('GET', '/api/v1/groups', { token });
  t.notOk(JSON.stringify(groups.body).includes('\udc00'), 'the refused group was not written');
});
