// The MCP OAuth authorization server (docs/mcp.md, "OAuth"): the whole flow with the official
// SDK's client (discovery from the 401, dynamic registration, the consent form submitted with the
// user's password, the code exchanged, tools listed and called, a refresh), then the attacks over
// plain HTTP: redirect URIs, PKCE, replayed and expired codes, the resource, tokens where they do
// not belong, deleted accounts, reused refresh tokens, scopes.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';

/** A port nobody listens on, so PUBLIC_URL can be the address the service listens at. */
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
let clockOffsetMs = 0;
const api = await startApp(t, { publicUrl: base, now: () => new Date(Date.now() + clockOffsetMs) });
await api.app.listen({ host: '127.0.0.1', port });
const owner = await api.newUser();

const REDIRECT = 'http://127.0.0.1:9/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The SDK client's storage, in memory; the browser step (redirectToAuthorization) is the test's. */
class TestProvider implements OAuthClientProvider {
  client: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(private readonly scope = 'read write') {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'Test assistant', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: this.scope };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: unknown) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: unknown) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** What the user does in the browser: opens the consent page and submits it. */
async function consent(authorizationUrl: string | URL, user: { email: string; password: string }, decision = 'approve') {
  const page = await fetch(authorizationUrl, { redirect: 'manual' });
  const html = await page.text();
  const sealed = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !sealed) throw new Error(`consent page ${page.status}: ${html.slice(0, 300)}`);
  const answer = await fetch(`${base}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: FORM, body: new URLSearchParams({ request: sealed, email: user.email, password: user.password, decision }) });
  return { page, answer, sealed, location: answer.headers.get('location') ? new URL(answer.headers.get('location')!) : undefined };
}

const rpcStatus = async (token: string) =>
  (
    await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } } }),
    })
  ).status;

const postJson = async (path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
};
const postForm = async (path: string, form: Record<string, string>) => {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: FORM, body: new URLSearchParams(form) });
  return { status: response.status, body: (await response.json()) as any, headers: response.headers };
};

const register = async (redirectUris = [REDIRECT]) => {
  const answer = await postJson('/oauth/register', { client_name: 'Raw client', redirect_uris: redirectUris });
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
  return answer.body.client_id as string;
};

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const authorizeUrl = (params: Record<string, string | undefined>) => {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
};

/** A code for `user` by the raw flow: the client, its PKCE pair, the code. */
async function rawCode(user: { email: string; password: string }, options: { scope?: string; clientId?: string } = {}) {
  const clientId = options.clientId ?? (await register());
  const { verifier, challenge } = pkce();
  const url = authorizeUrl({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz', scope: options.scope, resource: `${base}/mcp` });
  const { location } = await consent(url, user);
  const code = location?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${location}`);
  return { clientId, verifier, code };
}

const exchange = (grant: { clientId: string; verifier: string; code: string }, extra: Record<string, string> = {}) =>
  postForm('/oauth/token', { grant_type: 'authorization_code', client_id: grant.clientId, code: grant.code, code_verifier: grant.verifier, redirect_uri: REDIRECT, resource: `${base}/mcp`, ...extra });

async function rawTokens(user: { email: string; password: string }, scope?: string) {
  const grant = await rawCode(user, { scope });
  const answer = await exchange(grant);
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  return { ...grant, ...(answer.body as { access_token: string; refresh_token: string; scope: string }) };
}

const refresh = (clientId: string, refreshToken: string) => postForm('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });

async function connectWith(t: Test, provider: TestProvider) {
  const client = new Client({ name: 'finance-oauth-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  t.teardown(() => client.close());
  return client;
}

t.test('the official client connects by URL alone: discovery, registration, consent, tokens, tools, refresh', async (t) => {
  const provider = new TestProvider();
  const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
  await t.rejects(new Client({ name: 'finance-oauth-tests', version: '1.0.0' }).connect(first), UnauthorizedError, 'the 401 starts the OAuth flow');
  t.match(provider.client, { client_id: /^mcp-/ }, 'registered itself (RFC 7591)');
  const authorizationUrl = provider.authorizationUrl!;
  t.equal(authorizationUrl.origin + authorizationUrl.pathname, `${base}/oauth/authorize`);
  t.equal(authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
  t.equal(authorizationUrl.searchParams.get('resource'), `${base}/mcp`);

  const { page, answer, location } = await consent(authorizationUrl, owner);
  const policy = page.headers.get('content-security-policy') ?? '';
  t.match(policy, /frame-ancestors 'none'/);
  t.match(policy, /default-src 'none'/);
  t.match(policy, /form-action 'self' http:\/\/127\.0\.0\.1:9/, 'the form may go on to the redirect URI only');
  t.equal(answer.status, 302);
  t.equal(location!.origin + location!.pathname, REDIRECT);
  t.equal(location!.searchParams.get('iss'), base, 'RFC 9207 iss');
  t.equal(location!.searchParams.get('state'), authorizationUrl.searchParams.get('state'));
  await first.finishAuth(location!.searchParams);
  t.match(provider.saved, { access_token: String, refresh_token: String, token_type: /bearer/i, scope: 'read write' });

  const client = await connectWith(t, provider);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.ok(names.includes('list-wallets') && names.includes('record-transaction'), 'read and write tools');
  const wallet = (await client.callTool({ name: 'create-wallet', arguments: { name: 'By OAuth', type: 'cash', currency: 'USD', balance: 5 } })).structuredContent as any;
  t.equal(wallet.name, 'By OAuth');
  const wallets = await api.request<any>('GET', '/api/v1/wallets', { token: owner.token });
  t.ok(wallets.body.data.data.some((row: any) => row.id === wallet.id), 'the write is the owner’s, read back over REST');

  const listed = await api.request<any>('GET', '/api/v1/ai/mcp/tokens', { token: owner.token });
  t.match(listed.body.data[0], { name: 'Test assistant (OAuth)', scopes: ['read', 'write'], last_used_at: String }, 'the grant is listed with the MCP tokens');

  // an hour later the access token has expired: the SDK refreshes it and carries on
  const before = provider.saved.refresh_token;
  clockOffsetMs += 3_700_000;
  t.teardown(() => void (clockOffsetMs -= 3_700_000));
  const expired = await fetch(`${base}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${provider.saved.access_token}`, 'content-type': 'application/json' }, body: '{}' });
  t.equal(expired.status, 401, 'an expired access token is refused');
  t.match(expired.headers.get('www-authenticate'), /error="invalid_token"/);
  const again = await connectWith(t, provider);
  t.ok((await again.listTools()).tools.length > 0, 'served after the refresh');
  t.not(provider.saved.refresh_token, before, 'the refresh token rotated');
});

t.test('metadata: RFC 8414 at the well-known address, and the protected resource names the server', async (t) => {
  const metadata = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
  t.match(metadata, {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ['read', 'write'],
    authorization_response_iss_parameter_supported: true,
  });
  const resource = await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json();
  t.same(resource.authorization_servers, [base]);
});

t.test('registration: https or loopback redirect URIs only, bounded, with the RFC 7591 errors', async (t) => {
  const ok = await postJson('/oauth/register', { client_name: 'Mine', redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'http://localhost:3000/cb', 'http://[::1]:8/cb'], token_endpoint_auth_method: 'client_secret_basic' });
  t.equal(ok.status, 201);
  t.match(ok.body, { client_id: String, client_name: 'Mine', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
  for (const [body, error] of [
    [{ redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://example.com/cb#frag'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ client_name: 'x' }, 'invalid_redirect_uri'],
    [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`) }, 'invalid_redirect_uri'],
    [{ redirect_uris: [REDIRECT], client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    [{ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
    [{ redirect_uris: [REDIRECT], scope: 'admin' }, 'invalid_client_metadata'],
    ['{not json', 'invalid_client_metadata'],
    ['[]', 'invalid_client_metadata'],
  ] as const) {
    const answer = await postJson('/oauth/register', body);
    t.equal(answer.status, 400, JSON.stringify(body));
    t.equal(answer.body.error, error, JSON.stringify(body));
    t.type(answer.body.error_description, 'string');
  }
  const huge = await postJson('/oauth/register', { redirect_uris: [REDIRECT], client_name: 'x', pad: 'y'.repeat(20_000) });
  t.equal(huge.status, 413);
  t.equal(huge.body.error, 'invalid_client_metadata');
});

t.test('authorization: an unknown client or redirect URI is a page, never a redirect; PKCE, scope and resource are checked', async (t) => {
  const clientId = await register();
  const { challenge } = pkce();
  const good = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's1' };
  for (const [params, why] of [
    [{ ...good, client_id: 'mcp-unknown' }, 'unknown client'],
    [{ ...good, redirect_uri: 'https://evil.example/cb' }, 'a redirect URI not registered'],
    [{ ...good, redirect_uri: 'http://127.0.0.1:9/other' }, 'another path on loopback'],
  ] as const) {
    const answer = await fetch(authorizeUrl(params), { redirect: 'manual' });
    t.equal(answer.status, 400, why);
    t.equal(answer.headers.get('location'), null, `${why}: no redirect`);
    t.match(answer.headers.get('content-type'), /text\/html/);
  }
  t.equal((await fetch(authorizeUrl({ ...good, redirect_uri: 'http://127.0.0.1:4567/callback' }), { redirect: 'manual' })).status, 200, 'a loopback redirect on any port (RFC 8252)');

  for (const [params, error] of [
    [{ ...good, code_challenge: undefined }, 'invalid_request'],
    [{ ...good, code_challenge_method: 'plain' }, 'invalid_request'],
    [{ ...good, code_challenge_method: undefined }, 'invalid_request'],
    [{ ...good, response_type: 'token' }, 'unsupported_response_type'],
    [{ ...good, scope: 'read admin' }, 'invalid_scope'],
    [{ ...good, resource: 'https://other.example/mcp' }, 'invalid_target'],
  ] as const) {
    const answer = await fetch(authorizeUrl(params), { redirect: 'manual' });
    t.equal(answer.status, 302, error);
    const location = new URL(answer.headers.get('location')!);
    t.equal(location.origin + location.pathname, REDIRECT);
    t.equal(location.searchParams.get('error'), error, JSON.stringify(params));
    t.equal(location.searchParams.get('state'), 's1');
    t.equal(location.searchParams.get('iss'), base);
  }

  const denied = await consent(authorizeUrl(good), owner, 'deny');
  t.equal(denied.location?.searchParams.get('error'), 'access_denied');
  t.equal(denied.location?.searchParams.get('code'), null);

  const wrong = await consent(authorizeUrl(good), { email: owner.email, password: 'not the password' });
  t.equal(wrong.answer.status, 401, 'a wrong password is the page again');
  t.equal(wrong.location, undefined);
  t.match(await wrong.answer.text(), /wrong/);
  const altered = await fetch(`${base}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: FORM, body: new URLSearchParams({ request: `${wrong.sealed}x`, email: owner.email, password: owner.password, decision: 'approve' }) });
  t.equal(altered.status, 400, 'an altered request is refused');
  t.equal(altered.headers.get('location'), null);
});

t.test('the token endpoint: PKCE verifier, single-use and short-lived codes, redirect URI, client and resource must match', async (t) => {
  const wrongVerifier = await rawCode(owner);
  t.match((await exchange({ ...wrongVerifier, verifier: pkce().verifier })).body, { error: 'invalid_grant' }, 'a wrong code_verifier');
  t.match((await exchange(wrongVerifier, { code_verifier: '' })).body, { error: 'invalid_request' }, 'a missing code_verifier');

  const replayed = await rawCode(owner);
  const firstUse = await exchange(replayed);
  t.equal(firstUse.status, 200);
  t.equal(firstUse.headers.get('cache-control'), 'no-store');
  t.equal(await rpcStatus(firstUse.body.access_token), 200);
  const secondUse = await exchange(replayed);
  t.equal(secondUse.status, 400);
  t.equal(secondUse.body.error, 'invalid_grant', 'a replayed code fails');
  t.equal(await rpcStatus(firstUse.body.access_token), 401, '...and revokes what was issued from it');
  t.equal((await refresh(replayed.clientId, firstUse.body.refresh_token)).body.error, 'invalid_grant');

  const late = await rawCode(owner);
  clockOffsetMs += 61_000;
  t.teardown(() => void (clockOffsetMs -= 61_000));
  t.match((await exchange(late)).body, { error: 'invalid_grant', error_description: /expired/ }, 'an expired code');

  t.match((await exchange(await rawCode(owner), { resource: 'https://other.example/mcp' })).body, { error: 'invalid_target' }, 'another resource');
  t.match((await exchange(await rawCode(owner), { redirect_uri: 'http://127.0.0.1:9/elsewhere' })).body, { error: 'invalid_grant' }, 'another redirect URI');
  const otherClient = await register();
  t.match((await exchange({ ...(await rawCode(owner)), clientId: otherClient })).body, { error: 'invalid_grant' }, "another client's code");
  const unknown = await exchange({ ...(await rawCode(owner)), clientId: 'mcp-nobody' });
  t.equal(unknown.status, 401);
  t.equal(unknown.body.error, 'invalid_client');
  t.match((await postForm('/oauth/token', { grant_type: 'password', client_id: otherClient })).body, { error: 'unsupported_grant_type' });
  const basic = await rawCode(owner);
  const byBasic = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { ...FORM, authorization: `Basic ${Buffer.from(`${basic.clientId}:ignored`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: basic.code, code_verifier: basic.verifier, redirect_uri: REDIRECT }),
  });
  t.equal(byBasic.status, 200, 'a client naming itself by HTTP Basic, without resource (bound to /mcp all the same)');
  t.match((await postForm('/oauth/token', { grant_type: 'authorization_code', client_id: otherClient, code: 'nonsense', code_verifier: pkce().verifier, redirect_uri: REDIRECT })).body, { error: 'invalid_grant' });
});

t.test('an OAuth token works at /mcp only, dies with its account and its grant, and a reused refresh token revokes the family', async (t) => {
  const tokens = await rawTokens(owner);
  t.equal(await rpcStatus(tokens.access_token), 200);
  t.equal((await api.request('GET', '/api/v1/wallets', { token: tokens.access_token })).status, 401, 'refused by the REST API');

  // rotation: the new pair works, the old refresh token presented again revokes the family
  const rotated = await refresh(tokens.clientId, tokens.refresh_token);
  t.equal(rotated.status, 200);
  t.not(rotated.body.refresh_token, tokens.refresh_token);
  t.equal(await rpcStatus(rotated.body.access_token), 200);
  const reused = await refresh(tokens.clientId, tokens.refresh_token);
  t.equal(reused.body.error, 'invalid_grant', 'an old refresh token is refused');
  t.equal(await rpcStatus(rotated.body.access_token), 401, '...and every token of its grant is revoked');
  t.equal((await refresh(tokens.clientId, rotated.body.refresh_token)).body.error, 'invalid_grant');

  // revoked by the user from the token list
  const kept = await rawTokens(owner);
  const listed = await api.request<any>('GET', '/api/v1/ai/mcp/tokens', { token: owner.token });
  const row = listed.body.data.find((item: any) => item.name === 'Raw client (OAuth)');
  t.ok(row, 'listed by the client name');
  t.equal((await api.request('DELETE', `/api/v1/ai/mcp/tokens/${row.id}`, { token: owner.token })).status, 200);
  t.equal(await rpcStatus(kept.access_token), 401, 'refused at the next request');
  t.equal((await refresh(kept.clientId, kept.refresh_token)).body.error, 'invalid_grant');

  // a deleted account
  const leaving = await api.newUser();
  const theirs = await rawTokens(leaving);
  t.equal(await rpcStatus(theirs.access_token), 200);
  t.equal((await api.request('DELETE', '/api/v1/account', { token: leaving.token, body: { confirm_delete: true } })).status, 200);
  t.equal(await rpcStatus(theirs.access_token), 401, "a deleted account's token");
  t.equal((await refresh(theirs.clientId, theirs.refresh_token)).body.error, 'invalid_grant');
});

t.test('a read-scope grant cannot call a write tool', async (t) => {
  const tokens = await rawTokens(owner, 'read');
  t.equal(tokens.scope, 'read');
  const client = new Client({ name: 'reader', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens.access_token}` } } }));
  t.teardown(() => client.close());
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.ok(names.includes('list-wallets'));
  t.notOk(names.includes('record-transaction'), 'write tools are not listed');
  const refused = await client.callTool({ name: 'create-wallet', arguments: { name: 'Nope', type: 'cash', currency: 'USD' } });
  t.equal(refused.isError, true);
  t.match((refused.content as any)[0].text, /write scope/);
  const refreshed = await refresh(tokens.clientId, tokens.refresh_token);
  t.equal(refreshed.body.scope, 'read', 'a refresh keeps the scope');
  t.match((await postForm('/oauth/token', { grant_type: 'refresh_token', client_id: tokens.clientId, refresh_token: refreshed.body.refresh_token, scope: 'read write' })).body, { error: 'invalid_scope' });
});

t.test('the consent sign-in is throttled as the login is, registration and tokens as public routes', async (t) => {
  const limited = await startApp(t, { rateLimitAuth: 2, rateLimitApi: 2, database: api.database });
  const inject = (method: 'GET' | 'POST', url: string, payload?: string, type = 'application/x-www-form-urlencoded') =>
    limited.app.inject({ method, url, payload, headers: payload ? { 'content-type': type } : {} });
  const registered = await inject('POST', '/oauth/register', JSON.stringify({ redirect_uris: [REDIRECT] }), 'application/json');
  t.equal(registered.statusCode, 201);
  const clientId = registered.json().client_id;
  const page = await inject('GET', `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' })}`);
  const sealed = /name="request" value="([^"]+)"/.exec(page.body)![1];
  const attempt = () => inject('POST', '/oauth/authorize', new URLSearchParams({ request: sealed, email: owner.email, password: 'guess', decision: 'approve' }).toString());
  t.equal((await attempt()).statusCode, 401);
  t.equal((await attempt()).statusCode, 401);
  const refused = await attempt();
  t.equal(refused.statusCode, 429, 'the third guess in a minute is refused');
  t.ok(refused.headers['retry-after']);
  t.match(refused.body, /Too many requests/);

  const third = await inject('POST', '/oauth/register', JSON.stringify({ redirect_uris: [REDIRECT] }), 'application/json');
  t.equal(third.statusCode, 429, 'registration counts per IP with the public routes');
  t.equal(third.json().error, 'temporarily_unavailable');
});

t.test('MCP_OAUTH_ENABLED=0: personal tokens only, no authorization server', async (t) => {
  const plain = await startApp(t, { mcpOAuth: { ...api.config.mcpOAuth, enabled: false }, database: api.database });
  t.equal((await plain.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).statusCode, 404);
  t.equal((await plain.app.inject({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: [REDIRECT] } })).statusCode, 404);
  const resource = (await plain.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).json();
  t.notOk('authorization_servers' in resource);
});

t.test('a PUBLIC_URL with a path: the issuer has it, and the metadata answers at the path-suffixed address too', async (t) => {
  const behindProxy = await startApp(t, { publicUrl: 'https://money.example.com/finance', database: api.database });
  for (const url of ['/.well-known/oauth-authorization-server/finance', '/.well-known/oauth-authorization-server']) {
    const metadata = (await behindProxy.app.inject({ method: 'GET', url })).json();
    t.match(metadata, { issuer: 'https://money.example.com/finance', token_endpoint: 'https://money.example.com/finance/oauth/token' }, url);
  }
  const resource = (await behindProxy.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })).json();
  t.same(resource.authorization_servers, ['https://money.example.com/finance']);
  t.equal(resource.resource, 'https://money.example.com/finance/mcp');
});
