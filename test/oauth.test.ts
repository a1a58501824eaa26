// Social login against a fake provider on a loopback port: the login address and its state,
// the code exchange and user info (OpenID style and GitHub style), find-or-create by verified
// e-mail, provider failures, and the mobile variant's ID tokens, signed by a key the test makes
// and serves as JWKS.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import t from 'tap';
import { loadConfig } from '../server/config.js';
import { oauthProvidersFrom } from '../server/oauth-providers.js';
import { startApp } from './helpers/harness.js';

// ---- the fake provider ------------------------------------------------------------------------

interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  form: URLSearchParams;
}

/** What the fake answers: users by authorization code, and switches for failures. */
const provider = {
  /** OpenID claims (or a GitHub /user body) per authorization code. */
  profiles: new Map<string, Record<string, unknown>>(),
  /** GitHub /user/emails per authorization code. */
  githubEmails: new Map<string, unknown[]>(),
  tokenStatus: 200,
  userInfoStatus: 200,
  jwks: { keys: [] as JWK[] },
  seen: [] as SeenRequest[],
};

const fake = createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk) => (raw += chunk));
  req.on('end', () => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const form = new URLSearchParams(raw);
    provider.seen.push({ method: req.method ?? '', path, headers: req.headers, form });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const code = String(req.headers.authorization ?? '').replace(/^Bearer at-/, '');
    if (path === '/token') {
      if (provider.tokenStatus !== 200) return send(provider.tokenStatus, { error: 'server_error' });
      const known = provider.profiles.has(form.get('code') ?? '');
      if (form.get('code') === 'github-style-refusal') return send(200, { error: 'bad_verification_code' });
      return known ? send(200, { access_token: `at-${form.get('code')}`, token_type: 'bearer' }) : send(400, { error: 'invalid_grant' });
    }
    if (path === '/userinfo' || path === '/gh/user') {
      if (provider.userInfoStatus !== 200) return send(provider.userInfoStatus, { error: 'nope' });
      const profile = provider.profiles.get(code);
      return profile ? send(200, profile) : send(401, { error: 'invalid_token' });
    }
    if (path === '/gh/emails') return send(200, provider.githubEmails.get(code) ?? []);
    if (path === '/jwks') return send(200, provider.jwks);
    send(404, { error: 'unknown path' });
  });
});
await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
t.teardown(() => {
  fake.closeAllConnections();
  fake.close();
});

// The key the "provider" signs ID tokens with, and an impostor's key under the same key id.
const ISSUER = 'https://issuer.example';
const AUDIENCE = 'acme-client';
const signing = await generateKeyPair('RS256');
const impostor = await generateKeyPair('RS256');
provider.jwks.keys = [{ ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];

interface TokenOptions {
  issuer?: string;
  audience?: string;
  expiresAt?: number;
  key?: CryptoKey;
}
async function idToken(claims: Record<string, unknown>, options: TokenOptions = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now - 10)
    .setExpirationTime(options.expiresAt ?? now + 600)
    .sign(options.key ?? signing.privateKey);
}

// ---- the app -------------------------------------------------------------------------------------

const env = {
  // A generic OpenID provider for both flows.
  OAUTH_ACME_CLIENT_ID: AUDIENCE,
  OAUTH_ACME_CLIENT_SECRET: 'acme-secret',
  OAUTH_ACME_AUTHORIZE_URL: `${base}/authorize`,
  OAUTH_ACME_TOKEN_URL: `${base}/token`,
  OAUTH_ACME_USERINFO_URL: `${base}/userinfo`,
  OAUTH_ACME_JWKS_URL: `${base}/jwks`,
  OAUTH_ACME_ISSUER: ISSUER,
  // The GitHub preset pointed at the fake: no ID tokens.
  OAUTH_GITHUB_CLIENT_ID: 'gh-client',
  OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
  OAUTH_GITHUB_TOKEN_URL: `${base}/token`,
  OAUTH_GITHUB_USERINFO_URL: `${base}/gh/user`,
  OAUTH_GITHUB_EMAILS_URL: `${base}/gh/emails`,
  // A provider that cannot be reached (nothing listens on port 9 of loopback).
  OAUTH_DOWN_CLIENT_ID: 'down-client',
  OAUTH_DOWN_CLIENT_SECRET: 'down-secret',
  OAUTH_DOWN_AUTHORIZE_URL: 'http://127.0.0.1:9/authorize',
  OAUTH_DOWN_TOKEN_URL: 'http://127.0.0.1:9/token',
  OAUTH_DOWN_USERINFO_URL: 'http://127.0.0.1:9/userinfo',
  OAUTH_DOWN_JWKS_URL: 'http://127.0.0.1:9/jwks',
  OAUTH_DOWN_ISSUER: ISSUER,
};
const problems: string[] = [];
const oauthProviders = oauthProvidersFrom(env, 'https://money.example', problems);
const api = await startApp(t, { oauthProviders });

let codes = 0;
/** A code the fake will accept, for this profile. */
function codeFor(profile: Record<string, unknown>, githubEmails?: unknown[]) {
  const code = `code-${++codes}`;
  provider.profiles.set(code, profile);
  if (githubEmails) provider.githubEmails.set(code, githubEmails);
  return code;
}

async function loginState(driver = 'acme', given?: string): Promise<string> {
  const res = await api.request('GET', `/api/v1/oauth/${driver}/login${given ? `?state=${given}` : ''}`);
  if (res.status !== 200) throw new Error(`login address failed: ${JSON.stringify(res.body)}`);
  return res.body.data.state;
}

async function callback(code: string, driver = 'acme', state?: string) {
  const usedState = state ?? (await loginState(driver));
  return api.request('GET', `/api/v1/oauth/${driver}/callback?code=${encodeURIComponent(code)}&state=${encodeURIComponent(usedState)}`);
}

let emails = 0;
const newEmail = () => `social-${++emails}-${Date.now()}@example.test`;
const oidcProfile = (email: string, extra: Record<string, unknown> = {}) => ({
  sub: `acme-${email}`,
  email,
  email_verified: true,
  given_name: 'Ada',
  family_name: 'Lovelace',
  ...extra,
});
const userRow = (email: string) => api.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

// ---- configuration ------------------------------------------------------------------------------

t.test('providers come from the environment: presets, overrides, and only usable ones', async (t) => {
  t.same(problems, []);
  t.same(Object.keys(oauthProviders).sort(), ['acme', 'down', 'github']);
  t.equal(oauthProviders.github!.idToken, null, 'GitHub has no ID tokens');
  t.equal(oauthProviders.acme!.web!.redirectUrl, 'https://money.example/api/v1/oauth/acme/callback', 'redirect defaults to PUBLIC_URL');
  t.same(oauthProviders.acme!.idToken, { jwksUrl: `${base}/jwks`, issuers: [ISSUER], audience: AUDIENCE }, 'audience defaults to the client id');

  const none = loadConfig({ APP_KEY: 'k', DATA_DIR: '/tmp/oauth-config-test' });
  t.same(none.oauthProviders, {}, 'nothing is enabled without settings');

  const google = loadConfig({ APP_KEY: 'k', DATA_DIR: '/tmp/oauth-config-test', PUBLIC_URL: 'https://app.example/', OAUTH_GOOGLE_CLIENT_ID: 'g-id', OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret' })
    .oauthProviders.google!;
  t.equal(google.web!.authorizeUrl, 'https://accounts.google.com/o/oauth2/v2/auth');
  t.equal(google.web!.tokenUrl, 'https://oauth2.googleapis.com/token');
  t.same(google.web!.scopes, ['openid', 'email', 'profile']);
  t.equal(google.web!.redirectUrl, 'https://app.example/api/v1/oauth/google/callback');
  t.same(google.idToken, { jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs', issuers: ['https://accounts.google.com', 'accounts.google.com'], audience: 'g-id' });

  const mobileOnly = loadConfig({ APP_KEY: 'k', DATA_DIR: '/tmp/oauth-config-test', OAUTH_GOOGLE_CLIENT_ID: 'g-id' }).oauthProviders.google!;
  t.equal(mobileOnly.web, null, 'the browser flow needs the client secret too');
  t.ok(mobileOnly.idToken, 'ID tokens need only the audience');

  const firebase = loadConfig({ APP_KEY: 'k', DATA_DIR: '/tmp/oauth-config-test', FIREBASE_PROJECT_ID: 'my-app' }).oauthProviders;
  t.same(Object.keys(firebase).sort(), ['apple', 'google']);
  t.same(firebase.apple!.idToken!.issuers, ['https://securetoken.google.com/my-app']);
  t.equal(firebase.apple!.idToken!.audience, 'my-app');

  t.throws(
    () => loadConfig({ APP_KEY: 'k', DATA_DIR: '/tmp/oauth-config-test', OAUTH_GITHUB_CLIENT_ID: 'x', OAUTH_GITHUB_TOKEN_URL: 'ftp://nope' }),
    /OAUTH_GITHUB_TOKEN_URL must be an http\(s\) URL/,
  );
});

t.test('GET /integrations reports social login as configured when a provider is', async (t) => {
  const { token } = await api.newUser();
  const res = await api.request('GET', '/api/v1/integrations', { token });
  t.equal(res.body.data.find((i: any) => i.key === 'social-login').configured, true);
  const bare = await startApp(t);
  const other = await bare.newUser();
  const without = await bare.request('GET', '/api/v1/integrations', { token: other.token });
  t.equal(without.body.data.find((i: any) => i.key === 'social-login').configured, false);
});

// ---- GET /oauth/{driver}/login -----------------------------------------------------------------

t.test('login address: client id, redirect, scopes, state and a PKCE challenge', async (t) => {
  const res = await api.request('GET', '/api/v1/oauth/acme/login');
  t.equal(res.status, 200);
  const url = new URL(res.body.data.url);
  t.equal(`${url.origin}${url.pathname}`, `${base}/authorize`);
  t.equal(url.searchParams.get('client_id'), AUDIENCE);
  t.equal(url.searchParams.get('redirect_uri'), 'https://money.example/api/v1/oauth/acme/callback');
  t.equal(url.searchParams.get('response_type'), 'code');
  t.equal(url.searchParams.get('scope'), 'openid email profile');
  t.equal(url.searchParams.get('code_challenge_method'), 'S256');
  t.match(url.searchParams.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
  t.match(res.body.data.state, /^[A-Za-z0-9_-]{43}$/, 'a random state is generated');
  t.equal(url.searchParams.get('state'), res.body.data.state);
  t.equal(res.body.data.message, 'oauth login redirection url', "the reference's label beside the address");

  const given = await api.request('GET', '/api/v1/oauth/acme/login?state=client-made-state-123');
  t.equal(given.body.data.state, 'client-made-state-123', 'a given state is used as is');
  t.equal(new URL(given.body.data.url).searchParams.get('state'), 'client-made-state-123');
  t.not(given.body.data.url, res.body.data.url);
});

t.test('login address: unknown or unconfigured driver is 404, bad state 422', async (t) => {
  for (const driver of ['nope', 'google', 'apple']) {
    const res = await api.request('GET', `/api/v1/oauth/${driver}/login`);
    t.equal(res.status, 404, driver);
    t.equal(res.body.success, false);
  }
  const short = await api.request('GET', '/api/v1/oauth/acme/login?state=short');
  t.equal(short.status, 422);
  t.ok(short.body.errors.state, 'keyed by state');
  const badDriver = await api.request('GET', '/api/v1/oauth/Not%20A%20Driver/login');
  t.equal(badDriver.status, 404, 'a path parameter outside its pattern names no resource');
});

// ---- GET /oauth/{driver}/callback ----------------------------------------------------------------

t.test('callback: a new user is created, signed in, and seeded like a registration', async (t) => {
  const email = newEmail();
  provider.seen.length = 0;
  const state = await loginState('acme', 'web-client-state-001');
  const res = await callback(codeFor(oidcProfile(email)), 'acme', state);
  t.equal(res.status, 200);
  t.equal(res.body.message, 'User authenticated successfully');
  t.equal(res.body.data.token_type, 'Bearer');
  t.match(res.body.data.user, { email, first_name: 'Ada', last_name: 'Lovelace' });
  t.ok(res.body.data.user.email_verified_at, 'the provider vouched for the address');

  const me = await api.request('GET', '/api/v1/user', { token: res.body.data.token });
  t.equal(me.status, 200, 'the token works');
  t.equal(me.body.data.id, res.body.data.user.id);

  const row = await userRow(email);
  t.equal(row!.password_hash, null, 'no usable password');
  const wallets = await api.db.selectFrom('wallets').select('name').where('user_id', '=', row!.id).execute();
  t.equal(wallets.length, 1, 'the starting wallet');
  const groups = await api.db.selectFrom('groups').select('name').where('user_id', '=', row!.id).execute();
  t.ok(groups.length > 0, 'the starting groups');
  const link = await api.db.selectFrom('oauth_accounts').selectAll().where('user_id', '=', row!.id).execute();
  t.match(link, [{ provider: 'acme', provider_user_id: `acme-${email}`, email }]);

  const exchange = provider.seen.find((r) => r.path === '/token')!;
  t.equal(exchange.method, 'POST');
  t.equal(exchange.form.get('grant_type'), 'authorization_code');
  t.equal(exchange.form.get('client_id'), AUDIENCE);
  t.equal(exchange.form.get('client_secret'), 'acme-secret');
  t.equal(exchange.form.get('redirect_uri'), 'https://money.example/api/v1/oauth/acme/callback');
  t.match(exchange.form.get('code_verifier'), /^[A-Za-z0-9_-]{43}$/);
  const userInfo = provider.seen.find((r) => r.path === '/userinfo')!;
  t.equal(userInfo.headers.authorization, `Bearer at-code-${codes}`);
});

t.test('callback: the PKCE verifier matches the challenge of the login address', async (t) => {
  provider.seen.length = 0;
  const login = await api.request('GET', '/api/v1/oauth/acme/login');
  const challenge = new URL(login.body.data.url).searchParams.get('code_challenge');
  const res = await callback(codeFor(oidcProfile(newEmail())), 'acme', login.body.data.state);
  t.equal(res.status, 200);
  const verifier = provider.seen.find((r) => r.path === '/token')!.form.get('code_verifier')!;
  t.equal(createHash('sha256').update(verifier).digest('base64url'), challenge);
});

t.test('callback: a second login finds the same user by the provider link', async (t) => {
  const email = newEmail();
  const first = await callback(codeFor(oidcProfile(email)));
  // Later the provider reports another address for the same subject: the link still wins.
  const second = await callback(codeFor(oidcProfile(newEmail(), { sub: `acme-${email}`, email_verified: false })));
  t.equal(second.status, 200);
  t.equal(second.body.data.user.id, first.body.data.user.id);
  t.not(second.body.data.token, first.body.data.token, 'a new token each time');
  const count = await api.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('email', '=', email).executeTakeFirst();
  t.equal(Number(count!.n), 1);
});

t.test('callback: a verified e-mail links to the existing account', async (t) => {
  const existing = await api.newUser();
  const res = await callback(codeFor(oidcProfile(existing.email.toUpperCase(), { sub: 'acme-linked-1' })));
  t.equal(res.status, 200);
  t.equal(res.body.data.user.id, existing.user.id, 'signed into the account with that address');
  const link = await api.db.selectFrom('oauth_accounts').selectAll().where('provider_user_id', '=', 'acme-linked-1').executeTakeFirst();
  t.equal(link?.user_id, existing.user.id, 'and linked');
  const wallets = await api.db.selectFrom('wallets').select('id').where('user_id', '=', existing.user.id).execute();
  t.equal(wallets.length, 1, 'nothing seeded twice');
});

t.test('callback: an account registered but never verified is taken over by the proven owner', async (t) => {
  // someone registered the victim's address first (api.newUser leaves it unverified)
  const squatter = await api.newUser();
  t.equal((await userRow(squatter.email))?.email_verified_at, null);
  const res = await callback(codeFor(oidcProfile(squatter.email, { sub: 'acme-owner-1' })));
  t.equal(res.status, 200);
  t.equal(res.body.data.user.id, squatter.user.id, 'the owner gets the account');
  t.not(res.body.data.user.email_verified_at, null, 'now verified');
  const row = await userRow(squatter.email);
  t.equal(row?.password_hash, null, 'the unproven password no longer works');
  t.equal((await api.request('GET', '/api/v1/user', { token: squatter.token })).status, 401, 'nor the tokens issued with it');
  const login = await api.request('POST', '/api/login', { body: { email: squatter.email, password: squatter.password } });
  t.equal(login.status, 401);
  t.equal((await api.request('GET', '/api/v1/user', { token: res.body.data.token })).status, 200);
});

t.test('callback: an unverified e-mail never signs into an account, nor creates one', async (t) => {
  const existing = await api.newUser();
  const res = await callback(codeFor(oidcProfile(existing.email, { sub: 'acme-unverified-1', email_verified: false })));
  t.equal(res.status, 422);
  t.ok(res.body.errors.code, 'keyed by code');
  t.notOk(JSON.stringify(res.body).includes('token'), 'no token');
  const link = await api.db.selectFrom('oauth_accounts').selectAll().where('provider_user_id', '=', 'acme-unverified-1').executeTakeFirst();
  t.equal(link, undefined, 'no link made');

  const fresh = newEmail();
  const unknown = await callback(codeFor(oidcProfile(fresh, { email_verified: false })));
  t.equal(unknown.status, 422);
  t.equal(await userRow(fresh), undefined, 'no account for an address nobody vouched for');

  const noEmail = await callback(codeFor({ sub: 'acme-no-email', name: 'Nobody' }));
  t.equal(noEmail.status, 422);
  t.match(noEmail.body.errors.code[0], /e-mail/);
});

t.test('callback: bad, used, expired or foreign state is 422 on state; missing fields 422', async (t) => {
  const code = codeFor(oidcProfile(newEmail()));
  const unknown = await callback(code, 'acme', 'never-handed-out-state');
  t.equal(unknown.status, 422);
  t.ok(unknown.body.errors.state);

  const state = await loginState();
  t.equal((await callback(code, 'acme', state)).status, 200);
  const reused = await callback(codeFor(oidcProfile(newEmail())), 'acme', state);
  t.equal(reused.status, 422, 'single use');
  t.ok(reused.body.errors.state);

  const foreign = await loginState('github');
  const wrongDriver = await callback(codeFor(oidcProfile(newEmail())), 'acme', foreign);
  t.equal(wrongDriver.status, 422, "another driver's state");

  const expiring = await loginState('acme', 'state-that-will-expire');
  await api.db.updateTable('oauth_states').set({ expires_at: new Date(Date.now() - 1000) }).execute();
  const expired = await callback(codeFor(oidcProfile(newEmail())), 'acme', expiring);
  t.equal(expired.status, 422, 'expired');
  t.ok(expired.body.errors.state);

  const missing = await api.request('GET', '/api/v1/oauth/acme/callback?state=some-state-value');
  t.equal(missing.status, 422);
  t.ok(missing.body.errors.code, 'code is required');
  const noState = await api.request('GET', '/api/v1/oauth/acme/callback?code=abc');
  t.equal(noState.status, 422);
  t.ok(noState.body.errors.state, 'state is required');
});

t.test('callback: the provider refusing the code is 401', async (t) => {
  const refused = await callback('code-the-provider-never-issued');
  t.equal(refused.status, 401);
  t.match(refused.body.message, /rejected the authorization code/);
  const githubStyle = await callback('github-style-refusal', 'github');
  t.equal(githubStyle.status, 401, 'an error in a 200 answer is a refusal too');
});

t.test('callback: provider failures are 503 with a clear message, never 500', async (t) => {
  provider.tokenStatus = 500;
  const tokenDown = await callback(codeFor(oidcProfile(newEmail())));
  provider.tokenStatus = 200;
  t.equal(tokenDown.status, 503);
  t.match(tokenDown.body.message, /cannot be reached/);

  provider.userInfoStatus = 502;
  const userInfoDown = await callback(codeFor(oidcProfile(newEmail())));
  provider.userInfoStatus = 200;
  t.equal(userInfoDown.status, 503);

  const unreachable = await callback('any-code', 'down');
  t.equal(unreachable.status, 503);
});

t.test('callback: unknown or unconfigured driver is 404', async (t) => {
  for (const driver of ['nope', 'google', 'apple']) {
    const res = await api.request('GET', `/api/v1/oauth/${driver}/callback?code=abc&state=some-state-value`);
    t.equal(res.status, 404, driver);
  }
});

t.test('GitHub: the primary verified address from /user/emails, the name split', async (t) => {
  provider.seen.length = 0;
  const email = newEmail();
  const code = codeFor({ id: 4242, login: 'octo', name: 'Mona Lisa Octocat', email: null }, [
    { email: 'old@example.test', primary: false, verified: true },
    { email, primary: true, verified: true },
  ]);
  const res = await callback(code, 'github');
  t.equal(res.status, 200);
  t.match(res.body.data.user, { email, first_name: 'Mona', last_name: 'Lisa Octocat' });
  const link = await api.db.selectFrom('oauth_accounts').selectAll().where('provider', '=', 'github').executeTakeFirst();
  t.equal(link?.provider_user_id, '4242');
  const userCall = provider.seen.find((r) => r.path === '/gh/user')!;
  t.equal(userCall.headers.accept, 'application/json');
  t.ok(userCall.headers['user-agent'], 'GitHub requires a User-Agent');

  // The public profile address is not verified: with no verified primary it must not match.
  const existing = await api.newUser();
  const unverified = await callback(
    codeFor({ id: 777, login: 'sneaky', email: existing.email }, [{ email: existing.email, primary: true, verified: false }]),
    'github',
  );
  t.equal(unverified.status, 422);
});

// ---- POST /oauth/firebase/{driver}/callback -------------------------------------------------------

const mobile = (driver: string, body: unknown) => api.request('POST', `/api/v1/oauth/firebase/${driver}/callback`, { body });

t.test('mobile: a valid ID token signs in (and creates the account once)', async (t) => {
  const email = newEmail();
  const token = await idToken({ sub: 'mobile-1', email, email_verified: true, name: 'Grace Brewster Hopper' });
  const res = await mobile('acme', { id_token: token });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'User authenticated successfully');
  t.match(res.body.data.user, { email, first_name: 'Grace', last_name: 'Brewster Hopper' });
  const me = await api.request('GET', '/api/v1/user', { token: res.body.data.token });
  t.equal(me.status, 200);

  const again = await mobile('acme', { token: await idToken({ sub: 'mobile-1', email, email_verified: true }) });
  t.equal(again.status, 200, '`token` is accepted as the field name');
  t.equal(again.body.data.user.id, res.body.data.user.id);
});

t.test('mobile: names from the body when the token has none; Apple-style "true" flag', async (t) => {
  const email = newEmail();
  const res = await mobile('acme', { id_token: await idToken({ sub: 'mobile-apple-1', email, email_verified: 'true' }), first_name: 'Tim', last_name: 'Apple' });
  t.equal(res.status, 200);
  t.match(res.body.data.user, { first_name: 'Tim', last_name: 'Apple' });
  const bare = newEmail();
  const fromEmail = await mobile('acme', { id_token: await idToken({ sub: 'mobile-bare-1', email: bare, email_verified: true }) });
  t.equal(fromEmail.body.data.user.first_name, bare.split('@')[0]);
});

t.test('mobile: a verified e-mail links to the existing account; an unverified one does not', async (t) => {
  const existing = await api.newUser();
  const linked = await mobile('acme', { id_token: await idToken({ sub: 'mobile-link-1', email: existing.email, email_verified: true }) });
  t.equal(linked.status, 200);
  t.equal(linked.body.data.user.id, existing.user.id);

  const other = await api.newUser();
  const refused = await mobile('acme', { id_token: await idToken({ sub: 'mobile-link-2', email: other.email, email_verified: false }) });
  t.equal(refused.status, 422);
  t.ok(refused.body.errors.id_token);
});

t.test('mobile: wrong audience, wrong issuer, expired, bad signature, garbage are 401', async (t) => {
  const claims = { sub: 'mobile-bad', email: newEmail(), email_verified: true };
  const cases: Array<[string, Promise<string> | string]> = [
    ['wrong audience', idToken(claims, { audience: 'someone-else' })],
    ['wrong issuer', idToken(claims, { issuer: 'https://evil.example' })],
    ['expired', idToken(claims, { expiresAt: Math.floor(Date.now() / 1000) - 600 })],
    ['bad signature', idToken(claims, { key: impostor.privateKey })],
    ['not a JWT', 'not-a-jwt'],
  ];
  for (const [name, token] of cases) {
    const res = await mobile('acme', { id_token: await token });
    t.equal(res.status, 401, name);
    t.equal(res.body.message, 'Invalid token', name);
  }
  t.equal(await userRow(claims.email), undefined, 'no account made');
});

t.test('mobile: bad input is 422 keyed by field; unknown driver 404; keys unreachable 503', async (t) => {
  const none = await mobile('acme', {});
  t.equal(none.status, 422);
  t.same(Object.keys(none.body.errors), ['id_token']);
  const wrongType = await mobile('acme', { id_token: 42 });
  t.equal(wrongType.status, 422);
  t.ok(wrongType.body.errors.id_token);
  const empty = await mobile('acme', { token: '' });
  t.equal(empty.status, 422);
  t.ok(empty.body.errors.token);

  const token = await idToken({ sub: 'x', email: newEmail(), email_verified: true });
  t.equal((await mobile('nope', { id_token: token })).status, 404, 'unknown driver');
  t.equal((await mobile('github', { id_token: token })).status, 404, 'a driver without ID-token settings');
  const down = await mobile('down', { id_token: token });
  t.equal(down.status, 503);
});

// ---- review: concurrency, algorithm confusion, audiences, clock skew ------------------------------

t.test('callback: two callbacks racing with one state: exactly one signs in', async (t) => {
  const email = newEmail();
  const code = codeFor(oidcProfile(email));
  const state = await loginState();
  const results = await Promise.all([callback(code, 'acme', state), callback(code, 'acme', state), callback(code, 'acme', state)]);
  t.same(results.map((r) => r.status).sort(), [200, 422, 422], 'one success, the others refused on state');
  for (const refused of results.filter((r) => r.status === 422)) t.ok(refused.body.errors.state);
  const links = await api.db.selectFrom('oauth_accounts').select('id').where('provider_user_id', '=', `acme-${email}`).execute();
  t.equal(links.length, 1);
});

/** A JWT with any header, signed or not, made by hand. */
function handMadeJwt(header: Record<string, unknown>, claims: Record<string, unknown>, signature = '') {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${signature}`;
}

t.test('mobile: only the asymmetric algorithms of the key set: none and HS256 are refused', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'mobile-alg', email: newEmail(), email_verified: true, iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 600 };
  const none = handMadeJwt({ alg: 'none', kid: 'k1' }, claims);
  t.equal((await mobile('acme', { id_token: none })).status, 401, 'alg none');
  t.equal((await mobile('acme', { id_token: `${none.slice(0, -1)}` })).status, 401, 'alg none without the last dot');

  // HS256 keyed with the public key's own material (the classic confusion attack).
  const publicJwk = provider.jwks.keys[0]!;
  const secret = new TextEncoder().encode(JSON.stringify(publicJwk));
  const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(secret);
  const res = await mobile('acme', { id_token: hs });
  t.equal(res.status, 401, 'HS256');
  t.equal(res.body.message, 'Invalid token');
  t.equal(await userRow(claims.email as string), undefined);
});

t.test('mobile: an audience list must name this service', async (t) => {
  const email = newEmail();
  const listed = await idTokenWithAudience({ sub: 'mobile-aud-1', email, email_verified: true }, ['another-client', AUDIENCE]);
  t.equal((await mobile('acme', { id_token: listed })).status, 200, 'our client id among others');
  const foreign = await idTokenWithAudience({ sub: 'mobile-aud-2', email: newEmail(), email_verified: true }, ['another-client', 'third-client']);
  t.equal((await mobile('acme', { id_token: foreign })).status, 401, 'a list without our client id');
});

async function idTokenWithAudience(claims: Record<string, unknown>, audience: string[]) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(signing.privateKey);
}

t.test('mobile: a little clock skew is tolerated, a long-expired token is not', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const early = await new SignJWT({ sub: 'mobile-skew-1', email: newEmail(), email_verified: true })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(now + 20)
    .setNotBefore(now + 20)
    .setExpirationTime(now + 600)
    .sign(signing.privateKey);
  t.equal((await mobile('acme', { id_token: early })).status, 200, 'issued by a provider whose clock runs 20 s ahead');
  const justExpired = await idToken({ sub: 'mobile-skew-2', email: newEmail(), email_verified: true }, { expiresAt: now - 10 });
  t.equal((await mobile('acme', { id_token: justExpired })).status, 200, 'expired 10 s ago by our clock');
  const longExpired = await idToken({ sub: 'mobile-skew-3', email: newEmail(), email_verified: true }, { expiresAt: now - 600 });
  t.equal((await mobile('acme', { id_token: longExpired })).status, 401, 'expired 10 minutes ago');
});

t.test('mobile: NUL characters are 422 in the body, dropped from token claims, never a 500', async (t) => {
  const email = newEmail();
  const res = await mobile('acme', { id_token: await idToken({ sub: 'mobile-nul-1', email, email_verified: true }), first_name: 'Ti\u0000m', last_name: '\u0000' });
  t.equal(res.status, 422);
  t.ok(res.body.errors.first_name && res.body.errors.last_name);
  const fromToken = await mobile('acme', { id_token: await idToken({ sub: 'mobile-nul-2', email: newEmail(), email_verified: true, given_name: 'Gr\u0000ace', family_name: 'H' }) });
  t.equal(fromToken.status, 200);
  t.equal(fromToken.body.data.user.first_name, 'Grace');
});

t.test('login address: the redirect address comes from configuration only (no open redirect)', async (t) => {
  const res = await api.request('GET', '/api/v1/oauth/acme/login?redirect_uri=https%3A%2F%2Fevil.example%2Fsteal&state=state-with.dots~ok');
  t.not(res.status, 500);
  if (res.status === 200) {
    const url = new URL(res.body.data.url);
    t.equal(url.searchParams.get('redirect_uri'), 'https://money.example/api/v1/oauth/acme/callback');
    t.equal(url.searchParams.getAll('redirect_uri').length, 1);
    t.notMatch(res.body.data.url, 'evil.example');
  } else t.ok(res.status >= 400 && res.status < 500, `refused (${res.status}), never redirected elsewhere`);
  const injected = await api.request('GET', '/api/v1/oauth/acme/login?state=abcdefgh%26redirect_uri%3Dhttps%3A%2F%2Fevil.example');
  t.equal(injected.status, 422, 'a state cannot smuggle parameters into the address');
  t.ok(injected.body.errors.state);
});
