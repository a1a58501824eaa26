// Attachments over HTTP: the mobile client's multipart create (categories[] and files[]),
// uploads judged by their bytes, downloads to the owner only, removal.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { Decimal } from '../domain/money.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, multipart, PNG, type FilePart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const wallet = await fx.wallet(owner.user.id, { balance: '100' });

const png = (filename = 'receipt.png'): FilePart => ({ field: 'files[]', filename, contentType: 'image/png', data: PNG });
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

function send(method: string, url: string, token: string | undefined, fields: Array<[string, string]>, files: FilePart[] = []) {
  const { payload, headers } = multipart(fields, files);
  return api.request(method, url, { token, payload, headers });
}

/** A transaction with one PNG attached, made by a multipart create. */
async function withAttachment(token = owner.token, walletId = wallet) {
  const res = await send('POST', '/api/v1/transactions', token, [['type', 'expense'], ['amount', '3.5'], ['wallet_id', String(walletId)]], [png()]);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

t.test('multipart create as the mobile app sends it, with a PNG in files[]', async (t) => {
  const clientId = `${randomUUID()}:${randomUUID()}`;
  const res = await send(
    'POST',
    '/api/v1/transactions',
    owner.token,
    [
      ['client_id', clientId],
      ['client_generated_id', clientId],
      ['rev', '1'],
      ['last_synced_at', String(Date.now())],
      ['created_at', '2026-04-01T10:00:00.000Z'],
      ['datetime', '2026-04-01T09:59:00.000Z'],
      ['amount', '12.0'],
      ['type', 'expense'],
      ['description', 'Taxi'],
      ['wallet_id', String(wallet)],
      ['walletClientId', 'ignored'],
    ],
    [png('taxi.png')],
  );
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.match(res.body.data, { amount: 12, type: 'expense', description: 'Taxi', client_generated_id: clientId, created_at: '2026-04-01T10:00:00.000Z' });
  t.equal(res.body.data.files.length, 1);
  t.match(res.body.data.files[0], { type: 'image', mime_type: 'image/png', size: PNG.length });
  // the reference's names and values for the owner, which the mobile client reads
  t.equal(res.body.data.files[0].fileable_type, 'App\\Models\\Transaction');
  t.equal(res.body.data.files[0].fileable_id, res.body.data.id);
  t.notOk('model' in res.body.data.files[0], 'no renamed owner fields');
  t.match(res.body.data.files[0].path, /^transactions\/.+\.png$/);
  t.match(res.body.data.files[0].link, new RegExp(`/api/v1/files/${res.body.data.files[0].id}$`));
  t.equal(await fx.balance(wallet), '88.0000');
});

t.test('multipart create with categories[]', async (t) => {
  const [a, b] = [await fx.category(owner.user.id), await fx.category(owner.user.id)];
  const res = await send('POST', '/api/v1/transactions', owner.token, [
    ['type', 'expense'],
    ['amount', '1'],
    ['wallet_id', String(wallet)],
    ['categories[]', String(a)],
    ['categories[]', String(b)],
  ]);
  // server/multipart.ts types parts by the stripped name (`categories`) while the form schema
  // names them `categories[]`, so the ids stay strings and validation refuses them.
  t.equal(res.status, 201, JSON.stringify(res.body));
  if (res.status === 201) t.same(res.body.data.categories.map((c: { id: number }) => c.id).sort(), [a, b].sort());
});

t.test('an upload that is not an image or a PDF is 422 on files.<index> and nothing is written', async (t) => {
  const transactions = await fx.count('transactions', owner.user.id);
  const files = await fx.count('files', owner.user.id);
  const text: FilePart = { field: 'files[]', filename: 'notes.png', contentType: 'image/png', data: Buffer.from('just some text, not a picture') };
  const res = await send('POST', '/api/v1/transactions', owner.token, [['type', 'expense'], ['amount', '1'], ['wallet_id', String(wallet)]], [png(), text]);
  t.equal(res.status, 422);
  t.ok(res.body.errors['files.1'], 'judged by the bytes, not the declared type');
  t.notOk(res.body.errors['files.0']);
  t.equal(await fx.count('transactions', owner.user.id), transactions);
  t.equal(await fx.count('files', owner.user.id), files);

  const overdraft = await send('POST', '/api/v1/transactions', owner.token, [['type', 'expense'], ['amount', '5000'], ['wallet_id', String(wallet)]], [png()]);
  t.equal(overdraft.status, 422, 'a refused write keeps no file');
  t.equal(await fx.count('files', owner.user.id), files);
});

t.test('download: the bytes to the owner, 404 to anyone else or once the transaction is gone', async (t) => {
  const tx = await withAttachment();
  const file = tx.files[0];
  const res = await api.request('GET', `/api/v1/files/${file.id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.equal(res.headers['content-type'], 'image/png');
  t.equal(res.headers['content-disposition'], 'inline; filename="receipt.png"');
  t.equal(Number(res.headers['content-length']), PNG.length);
  // the harness decodes bodies as text; compare the exact bytes from fastify's raw payload
  const raw = await api.app.inject({ method: 'GET', url: `/api/v1/files/${file.id}`, headers: { authorization: `Bearer ${owner.token}` } });
  t.same(raw.rawPayload, PNG);

  const foreign = await api.request('GET', `/api/v1/files/${file.id}`, { token: stranger.token });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.success, false);
  t.equal((await api.request('GET', '/api/v1/files/999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', `/api/v1/files/${file.id}`)).status, 401);

  await api.request('DELETE', `/api/v1/transactions/${tx.id}`, { token: owner.token });
  t.equal((await api.request('GET', `/api/v1/files/${file.id}`, { token: owner.token })).status, 404, 'a deleted record hides its files');
});

t.test('upload: files[] are appended and the whole transaction comes back', async (t) => {
  const tx = await withAttachment();
  const res = await send('POST', `/api/v1/transactions/${tx.id}/files`, owner.token, [], [{ field: 'files[]', filename: 'invoice.pdf', contentType: 'application/pdf', data: PDF }]);
  // The contract requires `files[]` in the validated body, but multipart files are set aside
  // before validation (server/routes.ts + server/multipart.ts), so every upload is refused.
  t.equal(res.status, 200, JSON.stringify(res.body));
  if (res.status !== 200) return;
  t.same(res.body.data.files.map((f: { type: string }) => f.type), ['image', 'pdf'], 'oldest first');
  const bad = await send('POST', `/api/v1/transactions/${tx.id}/files`, owner.token, [], [{ field: 'files[]', filename: 'x.pdf', contentType: 'application/pdf', data: Buffer.from('nope') }]);
  t.equal(bad.status, 422);
  t.ok(bad.body.errors['files.0']);
  const foreign = await send('POST', `/api/v1/transactions/${tx.id}/files`, stranger.token, [], [png()]);
  t.equal(foreign.status, 404);
});

t.test('multipart update appends files and replaces categories', async (t) => {
  const tx = await withAttachment();
  const before = await fx.balance(wallet);
  const res = await send(
    'PUT',
    `/api/v1/transactions/${tx.id}?type=expense`,
    owner.token,
    [['amount', '4'], ['updated_at', new Date().toISOString()], ['description', 'Updated']],
    [{ field: 'files[]', filename: 'invoice.pdf', contentType: 'application/pdf', data: PDF }],
  );
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.equal(res.body.data.description, 'Updated');
  t.same(res.body.data.files.map((f: { type: string }) => f.type), ['image', 'pdf']);
  t.equal(await fx.balance(wallet), new Decimal(before).minus('0.5').toFixed(4), 'the amount went from 3.5 to 4');
});

t.test('delete a file: gone with its bytes; another transaction or user is 404', async (t) => {
  const tx = await withAttachment();
  const other = await withAttachment();
  const file = tx.files[0];
  t.equal((await api.request('DELETE', `/api/v1/transactions/${other.id}/files/${file.id}`, { token: owner.token })).status, 404, 'not attached there');
  t.equal((await api.request('DELETE', `/api/v1/transactions/${tx.id}/files/${file.id}`, { token: stranger.token })).status, 404);
  const res = await api.request('DELETE', `/api/v1/transactions/${tx.id}/files/${file.id}`, { token: owner.token });
  t.equal(res.status, 200);
  t.equal(res.body.data.id, tx.id);
  t.same(res.body.data.files, []);
  t.equal((await api.request('GET', `/api/v1/files/${file.id}`, { token: owner.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/transactions/${tx.id}/files/${file.id}`, { token: owner.token })).status, 404, 'already gone');
  t.equal((await api.request('GET', `/api/v1/files/${other.files[0].id}`, { token: owner.token })).status, 200, 'other files stay');
});
