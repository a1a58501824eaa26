// Authentication over HTTP: register, login, logout, the current user, token checks, and the
// signing key that apps on one database share without APP_KEY.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);

t.test('register creates the account, signs it in and seeds its defaults', async (t) => {
  const email = 'Ada.Lovelace@Example.test';
  const res = await api.request('POST', '/api/register', {
    body: { email, password: 'analytical-engine', first_name: 'Ada', last_name: 'Lovelace', username: 'ada' },
  });
  t.equal(res.status, 201);
  t.equal(res.body.success, true);
  t.equal(res.body.message, 'User registered successfully');
  t.equal(res.body.data.token_type, 'Bearer');
  t.match(res.body.data.user, { email, first_name: 'Ada', last_name: 'Lovelace', username: 'ada', role: 'user', is_admin: false });
  t.notOk('password' in res.body.data.user || 'password_hash' in res.body.data.user, 'no password in the user');
  t.ok(Date.parse(res.body.data.expires_at) > Date.now(), 'token expires in the future');

  const userId = res.body.data.user.id;
  const groups = await api.db.selectFrom('groups').select(['name']).where('user_id', '=', userId).orderBy('id').execute();
  t.same(groups.map((g) => g.name), ['General', 'Personal', 'Family', 'Friends', 'Work']);
  const wallets = await api.db.selectFrom('wallets').select(['name', 'currency', 'balance', 'type']).where('user_id', '=', userId).execute();
  t.same(wallets, [{ name: 'Main Wallet', currency: 'USD', balance: '0.0000', type: 'cash' }]);
  const configs = await api.db.selectFrom('configurations').select(['key', 'value']).where('user_id', '=', userId).orderBy('key').execute();
  t.same(configs.map((c) => c.key), ['default-group', 'default-wallet']);
  for (const config of configs) t.match(config.value, /^00000000-0000-0000-0000-000000000000:[0-9a-f-]{36}$/);

  const me = await api.request('GET', '/api/v1/user', { token: res.body.data.token });
  t.equal(me.status, 200);
  t.equal(me.body.data.id, userId);
});

t.test('register refuses taken e-mails (any case), usernames and phones, keyed by field', async (t) => {
  await api.request('POST', '/api/register', {
    body: { email: 'taken@example.test', password: 'long enough', first_name: 'A', username: 'taken', phone: '+15550001' },
  });
  const res = await api.request('POST', '/api/register', {
    body: { email: 'TAKEN@example.test', password: 'long enough', first_name: 'B', username: 'TAKEN', phone: '+15550001' },
  });
  t.equal(res.status, 422);
  t.equal(res.body.success, false);
  t.same(Object.keys(res.body.errors).sort(), ['email', 'phone', 'username']);
  t.same(res.body.errors.email, ['The email has already been taken.']);
  const count = await api.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).where('first_name', '=', 'B').executeTakeFirstOrThrow();
  t.equal(Number(count.n), 0, 'nothing was written');
});

t.test('register validates its fields', async (t) => {
  const res = await api.request('POST', '/api/register', { body: { email: 'not-an-email', password: 'short' } });
  t.equal(res.status, 422);
  t.same(res.body.errors.first_name, ['The first name field is required.']);
  t.match(res.body.errors.email[0], /valid email/);
  t.match(res.body.errors.password[0], /at least 8 characters/);

  const empty = await api.request('POST', '/api/register', { body: {} });
  t.equal(empty.status, 422);
  t.ok(empty.body.errors.email && empty.body.errors.password && empty.body.errors.first_name);
});

t.test('register and login also answer under /api/v1', async (t) => {
  const email = 'v1@example.test';
  const reg = await api.request('POST', '/api/v1/register', { body: { email, password: 'password-v1', first_name: 'V' } });
  t.equal(reg.status, 201);
  const login = await api.request('POST', '/api/v1/login', { body: { email, password: 'password-v1' } });
  t.equal(login.status, 200);
  t.equal(login.body.data.user.email, email);
});

t.test('login', async (t) => {
  const { email, password } = await api.newUser({ username: 'grace', phone: '+15550123' });

  const res = await api.request('POST', '/api/login', { body: { email: email.toUpperCase(), password } });
  t.equal(res.status, 200);
  t.equal(res.body.message, 'User successfully logged in');
  t.equal(res.body.data.token_type, 'Bearer');
  t.equal((await api.request('GET', '/api/v1/user', { token: res.body.data.token })).status, 200);

  t.equal((await api.request('POST', '/api/login', { body: { username: 'grace', password } })).status, 200, 'by username');
  t.equal((await api.request('POST', '/api/login', { body: { phone: '+15550123', password } })).status, 200, 'by phone');

  const wrong = await api.request('POST', '/api/login', { body: { email, password: 'wrong password' } });
  const unknown = await api.request('POST', '/api/login', { body: { email: 'nobody@example.test', password } });
  t.equal(wrong.status, 401);
  t.equal(unknown.status, 401);
  t.equal(wrong.body.message, 'Invalid credentials');
  t.equal(unknown.body.message, wrong.body.message, 'does not say which part was wrong');

  const none = await api.request('POST', '/api/login', { body: { password } });
  t.equal(none.status, 422);
  t.same(Object.keys(none.body.errors).sort(), ['email', 'phone', 'username']);

  const short = await api.request('POST', '/api/login', { body: { email, password: 'short' } });
  t.equal(short.status, 422);
  t.ok(short.body.errors.password);
});

t.test('logout revokes only the token it was called with', async (t) => {
  const { token, email, password } = await api.newUser();
  const second = (await api.request('POST', '/api/login', { body: { email, password } })).body.data.token;

  t.equal((await api.request('POST', '/api/logout', { token })).status, 200);
  const after = await api.request('GET', '/api/v1/user', { token });
  t.equal(after.status, 401);
  t.equal(after.body.success, false);
  t.equal((await api.request('GET', '/api/v1/user', { token: second })).status, 200, 'the other token still works');

  const v1 = await api.request('POST', '/api/v1/logout', { token: second, headers: { 'content-type': 'application/json' }, payload: '' });
  t.equal(v1.status, 200, 'an empty JSON body is no body');
  t.equal((await api.request('GET', '/api/v1/user', { token: second })).status, 401);
  t.equal((await api.request('POST', '/api/logout')).status, 401, 'no token');
});

t.test('tokens: missing, malformed, forged, expired and unknown are all 401', async (t) => {
  const { token, user } = await api.newUser();
  const cases: Record<string, string | undefined> = {
    missing: undefined,
    'not a JWT': 'not-a-jwt',
    'another scheme': undefined,
  };
  for (const [label, value] of Object.entries(cases)) {
    const res = await api.request('GET', '/api/v1/user', value ? { token: value } : {});
    t.equal(res.status, 401, label);
    t.equal(res.body.message, 'Unauthenticated. Please log in to access this resource.');
  }
  const basic = await api.request('GET', '/api/v1/user', { headers: { authorization: `Basic ${token}` } });
  t.equal(basic.status, 401, 'Basic scheme');

  const forged = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('finance-service')
    .setSubject(String(user.id))
    .setJti('00000000-0000-4000-8000-000000000000')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('some other key'));
  t.equal((await api.request('GET', '/api/v1/user', { token: forged })).status, 401, 'signed with another key');

  const [, payload] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const unknownRow = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('finance-service')
    .setSubject(String(user.id))
    .setJti('00000000-0000-4000-8000-000000000000')
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(api.config.appKey));
  t.equal((await api.request('GET', '/api/v1/user', { token: unknownRow })).status, 401, 'right key, no token row');
});

t.test('an expired token is refused', async (t) => {
  let clock = new Date('2026-01-01T00:00:00Z');
  const timed = await startApp(t, { tokenTtlSeconds: 60, now: () => clock });
  const { token } = await timed.newUser();
  t.equal((await timed.request('GET', '/api/v1/user', { token })).status, 200);
  clock = new Date('2026-01-01T00:01:01Z');
  t.equal((await timed.request('GET', '/api/v1/user', { token })).status, 401);
});

t.test('login and register are rate limited per IP and per e-mail, in the envelope', async (t) => {
  const limited = await startApp(t, { rateLimitAuth: 3 });
  const body = { email: 'someone@example.test', password: 'whatever-password' };
  for (let i = 0; i < 3; i++) t.equal((await limited.request('POST', '/api/login', { body })).status, 401);
  const res = await limited.request('POST', '/api/login', { body });
  t.equal(res.status, 429);
  t.equal(res.body.success, false);
  t.match(res.body.message, /Too many requests/);
  t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After header');

  const otherIp = await limited.app.inject({
    method: 'POST',
    url: '/api/login',
    remoteAddress: '10.9.8.7',
    payload: body,
  });
  t.equal(otherIp.statusCode, 429, 'the same e-mail from another IP is still limited');
});

t.test('without APP_KEY, every app on one database signs with the one key kept there', async (t) => {
  // three processes' apps, each with its own data folder, on this file's database
  const fleet = await Promise.all([1, 2, 3].map(() => startApp(t, { database: api.database, appKey: undefined })));
  t.equal(new Set(fleet.map((a) => a.config.dataDir)).size, 3, 'three data folders');
  const keys = await Promise.all(fleet.map((a) => a.app.services.appKey()));
  t.equal(new Set(keys).size, 1, 'first starts at the same moment agree on one key');
  t.same(await api.db.selectFrom('app_key').select('key').execute(), [{ key: keys[0] }], 'one row holds it');

  const { token } = await fleet[0].newUser();
  for (const [i, other] of fleet.entries()) t.equal((await other.request('GET', '/api/v1/user', { token })).status, 200, `accepted by app ${i + 1}`);
  t.equal(await api.app.services.appKey(), api.config.appKey, 'an explicit APP_KEY wins over the kept one');
  t.equal((await api.request('GET', '/api/v1/user', { token })).status, 401, 'so that app refuses the others\' tokens');

  // rotation: the row deleted, the next start makes a new key and the old tokens stop working
  await api.db.deleteFrom('app_key').execute();
  const restarted = await startApp(t, { database: api.database, appKey: undefined });
  t.not(await restarted.app.services.appKey(), keys[0], 'a new key');
  t.equal((await restarted.request('GET', '/api/v1/user', { token })).status, 401, 'tokens of the old key are refused');
});

t.test('a key an older version kept in DATA_DIR/app.key becomes the database\'s, so its tokens stay valid', async (t) => {
  await api.db.deleteFrom('app_key').execute();
  const dataDirWith = (key: string) => {
    const dir = path.join(tmpdir(), `finance-key-${randomUUID()}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'app.key'), `${key}\n`);
    return dir;
  };
  const legacyKey = 'legacy-key-made-by-an-older-version-0123';
  // the older version signed with the file's key, as APP_KEY does now
  const older = await startApp(t, { database: api.database, appKey: legacyKey });
  const { token } = await older.newUser();

  const dataDir = dataDirWith(legacyKey);
  const upgraded = await startApp(t, { database: api.database, appKey: undefined, dataDir });
  t.equal((await upgraded.request('GET', '/api/v1/user', { token })).status, 200, 'a token issued before the upgrade is accepted');
  t.same(await api.db.selectFrom('app_key').select('key').execute(), [{ key: legacyKey }], 'the file\'s key is kept in the database');
  t.notOk(existsSync(path.join(dataDir, 'app.key')), 'and the file is gone, so deleting the row rotates the key');

  // another process with a stale file of its own joins: the database's key wins
  const stale = dataDirWith('a-stale-key-of-another-folder-0123456789');
  const joining = await startApp(t, { database: api.database, appKey: undefined, dataDir: stale });
  t.equal((await joining.request('GET', '/api/v1/user', { token })).status, 200, 'the joining process accepts the same token');
  t.notOk(existsSync(path.join(stale, 'app.key')), 'its stale file is removed');
});
