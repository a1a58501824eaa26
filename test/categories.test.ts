// Categories over HTTP. The sync machinery they share with groups (client-id replay and adoption,
// feeds, paging) is covered by groups.test.ts; this file covers what is the category's own:
// unique names, the type filter, uploaded icon images and the seeded defaults.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { readStoredBytes } from '../server/storage.js';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

// A 1×1 PNG, and a "PNG" with a valid signature that is over the 1 MB icon limit.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const BIG_PNG = Buffer.concat([PNG, Buffer.alloc(1024 * 1024)]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

interface UploadPart {
  filename: string;
  type: string;
  data: Buffer;
}

/** A multipart/form-data body: text fields, and `icon` as an uploaded file when given. */
function multipart(fields: Record<string, string>, icon?: UploadPart) {
  const boundary = `----test-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (icon) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="icon"; filename="${icon.filename}"\r\nContent-Type: ${icon.type}\r\n\r\n`));
    chunks.push(icon.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function count(table: 'categories' | 'files', userId: number) {
  const row = await api.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

const createCategory = (body: Record<string, unknown>, token = owner.token) => api.request('POST', '/api/v1/categories', { token, body });
const names = (list: Array<{ name: string }>) => list.map((c) => c.name);

t.test('create and show a category', async (t) => {
  const id = clientId();
  const res = await createCategory({ name: 'Food & Drinks', type: 'expense', description: 'Eating', icon: '🍔', icon_type: 'emoji', client_id: id });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Category created successfully');
  t.match(res.body.data, { name: 'Food & Drinks', slug: 'food-drinks', type: 'expense', description: 'Eating', client_generated_id: id, deleted_at: null });
  t.match(res.body.data.icon, { type: 'emoji', content: '🍔', path: '🍔' });
  t.equal(res.body.data.sync_state.syncable_type, 'category');

  const shown = await api.request('GET', `/api/v1/categories/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);

  const again = await createCategory({ name: 'food & drinks', type: 'income', client_id: id });
  t.equal(again.status, 200, 'a repeated client_id is a replay, not a name clash');
  t.equal(again.body.data.id, res.body.data.id);
});

t.test('names are unique per user among live categories, across types, ignoring case', async (t) => {
  const first = await createCategory({ name: 'Rent', type: 'expense' });
  t.equal(first.status, 201);
  const before = await count('categories', owner.user.id);
  for (const [name, type] of [
    ['Rent', 'expense'],
    ['RENT', 'expense'],
    ['rent', 'income'],
  ]) {
    const res = await createCategory({ name, type });
    t.equal(res.status, 422, `${name} (${type})`);
    t.ok(res.body.errors.name, 'errors.name');
  }
  t.equal(await count('categories', owner.user.id), before, 'nothing written');

  const theirs = await createCategory({ name: 'Rent', type: 'expense' }, stranger.token);
  t.equal(theirs.status, 201, 'another user may use the name');

  const other = await createCategory({ name: 'Utilities', type: 'expense' });
  const url = `/api/v1/categories/${other.body.data.id}`;
  const clash = await api.request('PUT', url, { token: owner.token, body: { name: 'rENT' } });
  t.equal(clash.status, 422, 'renaming onto another live name');
  t.ok(clash.body.errors.name);
  const recased = await api.request('PUT', url, { token: owner.token, body: { name: 'UTILITIES' } });
  t.equal(recased.status, 200, 'a category may change the case of its own name');
  t.match(recased.body.data, { name: 'UTILITIES', slug: 'utilities' });
  const renamed = await api.request('PUT', url, { token: owner.token, body: { name: 'Bills', type: 'income', description: null } });
  t.match(renamed.body.data, { name: 'Bills', slug: 'utilities', type: 'income', description: null }, 'the slug never changes');

  await api.request('DELETE', `/api/v1/categories/${first.body.data.id}`, { token: owner.token });
  const reused = await createCategory({ name: 'Rent', type: 'expense' });
  t.equal(reused.status, 201, "a deleted category's name is free again");
  t.equal(reused.body.data.slug, 'rent-2', 'slugs stay unique, tombstones included');

  const racing = await Promise.all(Array.from({ length: 5 }, () => createCategory({ name: 'Race', type: 'expense' })));
  t.same(racing.map((r) => r.status).sort(), [201, ...Array(4).fill(422)], 'simultaneous creates of one name make one category');
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const before = await count('categories', owner.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ type: 'expense' }, 'name'],
    [{ name: '', type: 'expense' }, 'name'],
    [{ name: 'x'.repeat(256), type: 'expense' }, 'name'],
    [{ name: 'No type' }, 'type'],
    [{ name: 'Invoices', type: 'invoice' }, 'type'],
    [{ name: 'ok', type: 'expense', client_id: 'not-a-client-id' }, 'client_id'],
    [{ name: 'ok', type: 'expense', icon: 'x', icon_type: 'sticker' }, 'icon_type'],
    [{ name: 'ok', type: 'expense', created_at: 'yesterday' }, 'created_at'],
  ];
  for (const [body, field] of cases) {
    const res = await createCategory(body);
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field} for ${JSON.stringify(body)}`);
  }
  t.equal(await count('categories', owner.user.id), before);

  const made = await createCategory({ name: 'Pets', type: 'expense' });
  const url = `/api/v1/categories/${made.body.data.id}`;
  for (const [body, field] of [
    [{ name: '' }, 'name'],
    [{ type: 'invoice' }, 'type'],
    [{ name: 'Animals', updated_at: '2000-01-01T00:00:00Z' }, 'updated_at'],
  ] as const) {
    const res = await api.request('PUT', url, { token: owner.token, body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.ok(res.body.errors[field], `errors.${field}`);
  }
  t.match((await api.request('GET', url, { token: owner.token })).body.data, { name: 'Pets', type: 'expense' }, 'unchanged');
});

t.test('list: creation order, the type filter', async (t) => {
  const user = await api.newUser();
  for (const [name, type] of [
    ['Wages', 'income'],
    ['Groceries', 'expense'],
    ['Bonus', 'income'],
    ['Fuel', 'expense'],
  ]) {
    await createCategory({ name, type }, user.token);
  }
  const all = await api.request('GET', '/api/v1/categories', { token: user.token });
  t.equal(all.status, 200);
  t.same(names(all.body.data.data), ['Wages', 'Groceries', 'Bonus', 'Fuel']);
  const incomes = await api.request('GET', '/api/v1/categories?type=income', { token: user.token });
  t.same(names(incomes.body.data.data), ['Wages', 'Bonus']);
  t.equal(incomes.body.data.total, 2, 'the total counts the filtered rows');
  const expenses = await api.request('GET', '/api/v1/categories?type=expense&limit=1&page=2', { token: user.token });
  t.same(names(expenses.body.data.data), ['Fuel']);
  t.match(expenses.body.data, { total: 2, last_page: 2 });
  const bad = await api.request('GET', '/api/v1/categories?type=invoice', { token: user.token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.type);
});

t.test('multipart: an uploaded PNG becomes an image icon; other files are refused', async (t) => {
  const user = await api.newUser();
  const form = multipart({ name: 'Pictured', type: 'expense', icon_type: 'image', description: 'With a picture' }, { filename: 'icon.png', type: 'image/png', data: PNG });
  const res = await api.request('POST', '/api/v1/categories', { token: user.token, ...form });
  t.equal(res.status, 201);
  t.match(res.body.data, { name: 'Pictured', type: 'expense', description: 'With a picture' });
  const icon = res.body.data.icon;
  t.equal(icon.type, 'image');
  const file = await api.db.selectFrom('files').selectAll().where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
  t.match(file, { model: 'icon', type: 'image', mime_type: 'image/png', size: PNG.length, original_name: 'icon.png', transaction_id: null });
  t.equal(icon.path, `/api/v1/files/${file.id}`, "the icon's path downloads the file");
  t.same(await readStoredBytes(api.app.services.storage, file.path), PNG, 'the bytes are stored');
  const download = await api.request('GET', icon.path, { token: user.token });
  t.equal(download.status, 200, 'the owner downloads the icon');
  t.equal(download.headers['content-type'], 'image/png');

  const before = { categories: await count('categories', user.user.id), files: await count('files', user.user.id) };
  for (const [label, upload] of [
    ['text', { filename: 'icon.png', type: 'image/png', data: Buffer.from('not an image at all') }],
    ['PDF', { filename: 'icon.pdf', type: 'application/pdf', data: PDF }],
    ['over 1 MB', { filename: 'big.png', type: 'image/png', data: BIG_PNG }],
  ] as const) {
    const refused = await api.request('POST', '/api/v1/categories', { token: user.token, ...multipart({ name: `Refused ${label}`, type: 'expense', icon_type: 'image' }, upload) });
    t.equal(refused.status, 422, label);
    t.ok(refused.body.errors.icon, `errors.icon for ${label}`);
  }
  t.same({ categories: await count('categories', user.user.id), files: await count('files', user.user.id) }, before, 'nothing written');

  const fieldsOnly = await api.request('POST', '/api/v1/categories', { token: user.token, ...multipart({ name: 'Form only', type: 'income', icon: '💶', icon_type: 'emoji' }) });
  t.equal(fieldsOnly.status, 201, 'multipart without a file');
  t.match(fieldsOnly.body.data.icon, { type: 'emoji', content: '💶' });
  const badForm = await api.request('POST', '/api/v1/categories', { token: user.token, ...multipart({ name: 'Bad', type: 'invoice' }) });
  t.equal(badForm.status, 422);
  t.ok(badForm.body.errors.type);

  const url = `/api/v1/categories/${fieldsOnly.body.data.id}`;
  const updated = await api.request('PUT', url, { token: user.token, ...multipart({ name: 'Form, pictured', icon_type: 'image' }, { filename: 'new.png', type: 'image/png', data: PNG }) });
  t.equal(updated.status, 200);
  t.match(updated.body.data, { name: 'Form, pictured', type: 'income', icon: { id: fieldsOnly.body.data.icon.id, type: 'image' } });
  t.match(updated.body.data.icon.path, /^\/api\/v1\/files\/\d+$/);

  const refusedUpdate = await api.request('PUT', url, { token: user.token, ...multipart({ name: 'Nope' }, { filename: 'x.png', type: 'image/png', data: PDF }) });
  t.equal(refusedUpdate.status, 422);
  t.ok(refusedUpdate.body.errors.icon);
  t.equal((await api.request('GET', url, { token: user.token })).body.data.name, 'Form, pictured', 'unchanged');

  const replayId = clientId();
  await api.request('POST', '/api/v1/categories', { token: user.token, ...multipart({ name: 'Replayed', type: 'expense', client_id: replayId }) });
  const filesBefore = await count('files', user.user.id);
  const replay = await api.request('POST', '/api/v1/categories', {
    token: user.token,
    ...multipart({ name: 'Replayed', type: 'expense', client_id: replayId }, { filename: 'icon.png', type: 'image/png', data: PNG }),
  });
  t.equal(replay.status, 200);
  t.equal(replay.body.data.icon, null, 'a replay changes nothing');
  t.equal(await count('files', user.user.id), filesBefore, 'and stores no file');
  t.ok(await api.app.services.storage.exists(file.path), 'the first image is still stored');
});

t.test('seed-defaults: 21 categories in the caller’s language, idempotent', async (t) => {
  const user = await api.newUser();
  const seed = (language?: string) =>
    api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token, headers: language ? { 'accept-language': language } : {} });

  const english = await seed();
  t.equal(english.status, 201);
  t.equal(english.body.message, 'Default categories created successfully');
  t.match(english.body.data, { created: 21, skipped: 0 });
  const seeded = english.body.data.categories;
  t.same(names(seeded.slice(0, 6)), ['Salary', 'Freelance', 'Investments', 'Gifts', 'Refunds', 'Other Income']);
  t.ok(seeded.slice(0, 6).every((c: { type: string }) => c.type === 'income'));
  t.ok(seeded.slice(6).every((c: { type: string }) => c.type === 'expense'));
  t.match(seeded[6], { name: 'Food & Dining', slug: 'food-dining', description: 'Groceries, restaurants, takeout', icon: null });
  t.equal(seeded.length, 21);

  const again = await seed('en-US');
  t.equal(again.status, 201, '201 even when everything is skipped');
  t.same(again.body.data, { created: 0, skipped: 21, categories: [] });
  t.equal(await count('categories', user.user.id), 21, 'a second call creates nothing');

  const french = await seed('fr-FR,fr;q=0.9,en;q=0.8');
  t.match(french.body.data, { created: 20, skipped: 1 }, 'another language adds a translated set');
  t.same(names(french.body.data.categories.slice(0, 3)), ['Salaire', 'Travail indépendant', 'Investissements']);
  t.notOk(names(french.body.data.categories).includes('Éducation'), 'Éducation is Education, ignoring accents and case');
  t.match(french.body.data.categories.find((c: { name: string }) => c.name === 'Épargne'), { type: 'expense', description: 'Virements vers l’épargne ou les placements' });
  t.same((await seed('fr')).body.data, { created: 0, skipped: 21, categories: [] });
});

t.test('seed-defaults skips names already taken, ignoring case, accents and type', async (t) => {
  const user = await api.newUser();
  await createCategory({ name: 'SALARY', type: 'expense' }, user.token);
  await createCategory({ name: 'education', type: 'income' }, user.token);
  const english = await api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token });
  t.match(english.body.data, { created: 19, skipped: 2 });
  t.notOk(names(english.body.data.categories).includes('Salary'));

  const spanish = await api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token, headers: { 'accept-language': 'ja, es-ES;q=0.9' } });
  t.match(spanish.body.data, { created: 21, skipped: 0 }, 'the first supported language is used');
  t.equal(spanish.body.data.categories[0].name, 'Salario');

  // Portuguese shares Freelance with English, and five names with Spanish once accents are
  // ignored (Salário = Salario).
  const portuguese = await api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token, headers: { 'accept-language': 'pt-BR' } });
  t.match(portuguese.body.data, { created: 15, skipped: 6 });
  t.notOk(names(portuguese.body.data.categories).includes('Salário'));

  const german = await api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token, headers: { 'accept-language': 'de-CH' } });
  t.equal(german.body.data.categories[0].name, 'Gehalt');
  const fallback = await api.request('POST', '/api/v1/categories/seed-defaults', { token: user.token, headers: { 'accept-language': 'ja-JP' } });
  t.same(fallback.body.data, { created: 0, skipped: 21, categories: [] }, 'an unsupported language falls back to English');

  const other = await api.request('GET', '/api/v1/categories?limit=100', { token: stranger.token });
  t.notOk(names(other.body.data.data).includes('Gehalt'), "another user's categories are untouched");
});

t.test('delete is soft and keeps the links of transactions', async (t) => {
  const since = new Date(Date.now() - 1000).toISOString();
  const made = await createCategory({ name: 'Doomed', type: 'expense', client_id: clientId() });
  const id = made.body.data.id;
  const wallet = await api.db.selectFrom('wallets').select('id').where('user_id', '=', owner.user.id).executeTakeFirstOrThrow();
  const transaction = await api.db
    .insertInto('transactions')
    .values({ user_id: owner.user.id, wallet_id: wallet.id, type: 'expense', amount: '3.2000' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await api.db.insertInto('transaction_categories').values({ transaction_id: transaction.id, category_id: id, user_id: owner.user.id }).execute();

  const res = await api.request('DELETE', `/api/v1/categories/${id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.same(res.body, { success: true, message: 'Category deleted successfully', data: null });
  t.equal((await api.request('GET', `/api/v1/categories/${id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('PUT', `/api/v1/categories/${id}`, { token: owner.token, body: { name: 'Back' } })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/categories/${id}`, { token: owner.token })).status, 404);

  const link = await api.db.selectFrom('transaction_categories').selectAll().where('transaction_id', '=', transaction.id).executeTakeFirst();
  t.equal(link?.category_id, id, 'the transaction keeps its link');

  const live = await api.request('GET', '/api/v1/categories?limit=100', { token: owner.token });
  t.notOk(live.body.data.data.some((c: { id: number }) => c.id === id));
  const feed = await api.request('GET', `/api/v1/categories?limit=100&synced_since=${encodeURIComponent(since)}`, { token: owner.token });
  t.ok(feed.body.data.data.find((c: { id: number }) => c.id === id)?.deleted_at, 'a tombstone in the sync feed');
});

t.test("another user's category is 404, as are unknown and non-numeric ids", async (t) => {
  const mine = await createCategory({ name: 'Private', type: 'income' });
  const id = mine.body.data.id;
  for (const [method, body] of [['GET'], ['PUT', { name: 'Taken over' }], ['DELETE']] as const) {
    const res = await api.request(method, `/api/v1/categories/${id}`, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} by another user`);
    t.equal(res.body.message, 'Category not found.');
  }
  t.equal((await api.request('GET', '/api/v1/categories/999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', '/api/v1/categories/abc', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', `/api/v1/categories/${id}`, { token: owner.token })).body.data.name, 'Private', 'unchanged');
});

t.test('no token is 401 on every category operation', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/categories'],
    ['POST', '/api/v1/categories'],
    ['GET', '/api/v1/categories/1'],
    ['PUT', '/api/v1/categories/1'],
    ['DELETE', '/api/v1/categories/1'],
    ['POST', '/api/v1/categories/seed-defaults'],
  ]) {
    const body = method === 'PUT' || (method === 'POST' && url === '/api/v1/categories') ? { name: 'x', type: 'expense' } : undefined;
    t.equal((await api.request(method, url, { body })).status, 401, `${method} ${url}`);
  }
});
