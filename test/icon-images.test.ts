// An uploaded category icon image replaced by another image or by an emoji: the old image's
// file row and stored bytes go once the update has committed, and stay when it fails.
import t, { type Test } from 'tap';
import { startApp } from './helpers/harness.js';
import { isStored } from './helpers/stored-files.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const user = await api.newUser();

const iconPart = (filename: string) => ({ field: 'icon', filename, contentType: 'image/png', data: PNG });

/** The storage key of a category's icon image (its icon path is /api/v1/files/{id}). */
async function imageKeyOf(category: { icon: { path: string } }): Promise<string> {
  const id = Number(category.icon.path.split('/').pop());
  return (await api.db.selectFrom('files').select('path').where('id', '=', id).executeTakeFirstOrThrow()).path;
}

async function pictured(t: Test, name: string) {
  const form = multipart([['name', name], ['type', 'expense'], ['icon_type', 'image']], [iconPart('first.png')]);
  const res = await api.request('POST', '/api/v1/categories', { token: user.token, ...form });
  t.equal(res.status, 201);
  return res.body.data;
}

const fileRowExists = async (key: string) => (await api.db.selectFrom('files').select('id').where('path', '=', key).executeTakeFirst()) !== undefined;

t.test('a new image replaces the old one: row and bytes of the old go', async (t) => {
  const category = await pictured(t, 'Replaced by an image');
  const oldKey = await imageKeyOf(category);
  t.ok(await isStored(api, oldKey));

  const form = multipart([['icon_type', 'image']], [iconPart('second.png')]);
  const res = await api.request('PUT', `/api/v1/categories/${category.id}`, { token: user.token, ...form });
  t.equal(res.status, 200);
  const newKey = await imageKeyOf(res.body.data);
  t.not(newKey, oldKey);
  t.ok(await isStored(api, newKey), 'the new image is stored');
  t.notOk(await fileRowExists(oldKey), 'the old file row is gone');
  t.notOk(await isStored(api, oldKey), 'the old bytes are gone');
  t.equal((await api.request('GET', res.body.data.icon.path, { token: user.token })).status, 200, 'the new icon downloads');
});

t.test('an emoji replaces an image: the image goes', async (t) => {
  const category = await pictured(t, 'Replaced by an emoji');
  const oldKey = await imageKeyOf(category);
  const res = await api.request('PUT', `/api/v1/categories/${category.id}`, { token: user.token, body: { icon: '🍕', icon_type: 'emoji' } });
  t.equal(res.status, 200);
  t.match(res.body.data.icon, { type: 'emoji', content: '🍕' });
  t.notOk(await fileRowExists(oldKey));
  t.notOk(await isStored(api, oldKey));
});

t.test('an update that fails keeps the old image', async (t) => {
  const taken = await pictured(t, 'Taken name');
  const category = await pictured(t, 'Keeps its image');
  const oldKey = await imageKeyOf(category);
  const form = multipart([['name', taken.name], ['icon_type', 'image']], [iconPart('third.png')]);
  const res = await api.request('PUT', `/api/v1/categories/${category.id}`, { token: user.token, ...form });
  t.equal(res.status, 422);
  t.ok(res.body.errors.name);
  t.ok(await fileRowExists(oldKey), 'the old file row stays');
  t.ok(await isStored(api, oldKey), 'and so do its bytes');
  const shown = await api.request('GET', `/api/v1/categories/${category.id}`, { token: user.token });
  t.equal(await imageKeyOf(shown.body.data), oldKey);
});

t.test('a name change leaves the image alone', async (t) => {
  const category = await pictured(t, 'Only renamed');
  const key = await imageKeyOf(category);
  const res = await api.request('PUT', `/api/v1/categories/${category.id}`, { token: user.token, body: { name: 'Renamed' } });
  t.equal(res.status, 200);
  t.ok(await fileRowExists(key));
  t.ok(await isStored(api, key));
});
