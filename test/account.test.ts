// DELETE /account: confirmation, revocation, removal of everything the user owns (stored
// file bytes included), and the confirmation e-mail.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { isStored, uploadFiles } from './helpers/stored-files.js';

const api = await startApp(t);

async function rowsOwnedBy(userId: number) {
  const count = async (table: 'wallets' | 'groups' | 'configurations' | 'devices' | 'tokens') =>
    Number((await api.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);
  return {
    wallets: await count('wallets'),
    groups: await count('groups'),
    configurations: await count('configurations'),
    devices: await count('devices'),
    tokens: await count('tokens'),
  };
}

t.test('deleting needs an explicit confirmation and changes nothing without it', async (t) => {
  const { token, user } = await api.newUser();
  const before = await rowsOwnedBy(user.id);
  for (const body of [{}, { confirm_delete: false }, { confirm_delete: 'yes please' }]) {
    const res = await api.request('DELETE', '/api/v1/account', { token, body });
    t.equal(res.status, 422);
    t.ok(res.body.errors.confirm_delete, JSON.stringify(body));
  }
  const tooLong = await api.request('DELETE', '/api/v1/account', { token, body: { confirm_delete: true, reason: 'x'.repeat(1001) } });
  t.equal(tooLong.status, 422);
  t.ok(tooLong.body.errors.reason);
  t.same(await rowsOwnedBy(user.id), before, 'nothing was removed');
  t.equal((await api.request('GET', '/api/v1/user', { token })).status, 200);
});

t.test('deleting removes the account and everything it owns, and only that', async (t) => {
  const victim = await api.newUser();
  const bystander = await api.newUser();
  const secondToken = (await api.request('POST', '/api/login', { body: { email: victim.email, password: victim.password } })).body.data.token;
  const victimFiles = await uploadFiles(api, victim);
  const bystanderFiles = await uploadFiles(api, bystander);
  for (const key of victimFiles) t.ok(await isStored(api, key), `${key} is stored before`);

  const res = await api.request('DELETE', '/api/v1/account', { token: victim.token, body: { confirm_delete: true, reason: 'moving on' } });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Account deleted successfully.', data: null });

  t.equal((await api.request('GET', '/api/v1/user', { token: victim.token })).status, 401, 'this token is dead');
  t.equal((await api.request('GET', '/api/v1/user', { token: secondToken })).status, 401, 'every token is dead');
  t.same(await rowsOwnedBy(victim.user.id), { wallets: 0, groups: 0, configurations: 0, devices: 0, tokens: 0 });
  t.equal(await api.db.selectFrom('users').select('id').where('id', '=', victim.user.id).executeTakeFirst(), undefined);
  t.same(await api.db.selectFrom('files').select('id').where('user_id', '=', victim.user.id).execute(), [], 'no file rows left');
  for (const key of victimFiles) t.notOk(await isStored(api, key), `the bytes of ${key} are gone`);
  for (const key of bystanderFiles) t.ok(await isStored(api, key), `the other user's ${key} stays`);

  const confirmation = await api.db.selectFrom('emails').selectAll().where('to_address', '=', victim.email).where('kind', '=', 'account_deleted').execute();
  t.equal(confirmation.length, 1, 'the confirmation e-mail is queued');
  t.match(confirmation[0], { user_id: null, subject: 'Your account has been deleted' });
  t.match(confirmation[0].text_body, 'Hi Test User,');

  const other = await rowsOwnedBy(bystander.user.id);
  t.equal(other.wallets, 1, "the other user's data is untouched");
  t.equal((await api.request('GET', '/api/v1/user', { token: bystander.token })).status, 200);

  const again = await api.request('POST', '/api/register', { body: { email: victim.email, password: 'a new password', first_name: 'Back' } });
  t.equal(again.status, 201, 'the e-mail can register again');
});

t.test('a stored file that cannot be removed does not fail the deletion', async (t) => {
  const user = await api.newUser();
  const [key] = await uploadFiles(api, user);
  const storage = api.app.services.storage;
  const original = storage.delete;
  storage.delete = async () => {
    throw new Error('storage unavailable');
  };
  t.teardown(() => {
    storage.delete = original;
  });
  const res = await api.request('DELETE', '/api/v1/account', { token: user.token, body: { confirm_delete: true } });
  t.equal(res.status, 200, 'the account is deleted all the same');
  t.equal(await api.db.selectFrom('users').select('id').where('id', '=', user.user.id).executeTakeFirst(), undefined);
  t.ok(await isStored(api, key), 'the bytes are left behind (and logged)');
});

t.test('deleting without a token is 401', async (t) => {
  const res = await api.request('DELETE', '/api/v1/account', { body: { confirm_delete: true } });
  t.equal(res.status, 401);
});
