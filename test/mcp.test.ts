// The MCP door (docs/mcp.md): personal MCP tokens over the API, with the reference's shapes and
// messages; then the MCP server at /mcp driven by the official SDK's client over real HTTP.
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();

const TOKENS = '/api/v1/ai/mcp/tokens';
const createToken = (body: unknown, token = owner.token) => api.request('POST', TOKENS, { token, body });

t.test('MCP tokens: created with the secret once, listed newest first without it, revoked', async (t) => {
  const first = await createToken({ name: 'Claude Desktop' });
  t.equal(first.status, 201);
  t.equal(first.body.message, 'MCP token created');
  t.match(first.body.data, { id: Number, name: 'Claude Desktop', token: String, scopes: ['read', 'write'] });
  const second = await createToken({ name: 'Reader', scopes: ['read'] });
  t.same(second.body.data.scopes, ['read']);
  t.same((await createToken({ name: 'Both', scopes: ['write', 'read'] })).body.data.scopes, ['read', 'write'], 'scopes in a stable order');

  const listed = await api.request('GET', TOKENS, { token: owner.token });
  t.equal(listed.status, 200);
  t.equal(listed.body.message, 'MCP tokens retrieved');
  t.same(listed.body.data.map((row: any) => row.name), ['Both', 'Reader', 'Claude Desktop'], 'newest first');
  t.match(listed.body.data[2], { id: first.body.data.id, scopes: ['read', 'write'], last_used_at: null, created_at: String });
  t.notOk(listed.body.data.some((row: any) => 'token' in row), 'no secret in the list');
  t.same((await api.request('GET', TOKENS, { token: stranger.token })).body.data, [], "another user's list is their own");

  const revoked = await api.request('DELETE', `${TOKENS}/${second.body.data.id}`, { token: owner.token });
  t.equal(revoked.status, 200);
  t.equal(revoked.body.message, 'MCP token revoked');
  t.same((await api.request('GET', TOKENS, { token: owner.token })).body.data.map((row: any) => row.name), ['Both', 'Claude Desktop']);
  const again = await api.request('DELETE', `${TOKENS}/${second.body.data.id}`, { token: owner.token });
  t.equal(again.status, 404, 'a revoked token is not found');
  t.equal(again.body.message, 'Token not found');
});

t.test('MCP tokens: bad input is 422 keyed by field, nothing made', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'ok', scopes: [] }, 'scopes'],
    [{ name: 'ok', scopes: ['admin'] }, 'scopes.0'],
    [{ name: 'ok', scopes: ['read', 'read'] }, 'scopes'],
    [{ name: 'ok', scopes: 'read' }, 'scopes'],
    [{ name: 'ok', token: 'mine' }, 'token'],
  ];
  for (const [body, field] of cases) {
    const res = await createToken(body, stranger.token);
    t.equal(res.status, 422, JSON.stringify(body).slice(0, 60));
    t.ok(res.body.errors?.[field], `error on ${field}: ${JSON.stringify(res.body.errors)}`);
  }
  t.same((await api.request('GET', TOKENS, { token: stranger.token })).body.data, []);
});

t.test("MCP tokens: another user's token or an API token is 404; no token is 401", async (t) => {
  const mine = (await createToken({ name: 'mine' })).body.data;
  const res = await api.request('DELETE', `${TOKENS}/${mine.id}`, { token: stranger.token });
  t.equal(res.status, 404);
  t.equal(res.body.message, 'Token not found');
  const apiToken = await api.db.selectFrom('tokens').select('id').where('user_id', '=', stranger.user.id).where('kind', '=', 'api').executeTakeFirstOrThrow();
  t.equal((await api.request('DELETE', `${TOKENS}/${apiToken.id}`, { token: stranger.token })).status, 404, 'an API token is not revoked here');
  t.equal((await api.request('GET', '/api/v1/user', { token: stranger.token })).status, 200, 'the API token still works');
  t.equal((await api.request('DELETE', `${TOKENS}/abc`, { token: owner.token })).status, 404);
  for (const [method, url] of [['GET', TOKENS], ['POST', TOKENS], ['DELETE', `${TOKENS}/${mine.id}`]]) {
    t.equal((await api.request(method, url, { body: method === 'POST' ? { name: 'x' } : undefined })).status, 401, `${method} ${url}`);
  }
  t.equal((await api.request('GET', TOKENS, { token: mine.token })).status, 401, 'an MCP token is not accepted on the API');
  t.equal((await api.request('GET', TOKENS, { token: owner.token })).body.data[0].id, mine.id, 'still live');
});
