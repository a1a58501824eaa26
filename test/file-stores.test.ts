// One scenario run against each store STORAGE_URL can choose (the data folder, the database,
// an S3-compatible server started here): every kind of upload goes in and comes back
// byte-identical, deletes remove the bytes, a file the store lost is 404. Then the failures:
// an object store or a database that refuses or never answers is 503 in the envelope, within
// a bound. The three apps share one database, as a deployment's processes do.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { openDatabase } from '../db/connection.js';
import { processCsvImportJob } from '../jobs/process-csv-import.js';
import { grantAdmin } from '../scripts/admin.js';
import { copyLocalFiles } from '../scripts/copy-files.js';
import { LocalFileStorage } from '../server/storage.js';
import { startApp, type TestApp } from './helpers/harness.js';
import { closedPort, s3Storage, silentServer, startObjectStore } from './helpers/object-store.js';
import { ledgerFixtures, multipart, PNG, type FilePart } from './helpers/transaction-fixtures.js';

const objectStore = await startObjectStore(t);
const local = await startApp(t);
const stores: Array<[string, TestApp]> = [
  ['the data folder', local],
  ['the database', await startApp(t, { database: local.database, storage: { kind: 'database' } })],
  ['an S3-compatible store', await startApp(t, { database: local.database, storage: objectStore.storage('finance/test') })],
];

// 2.5 MiB: three of the database store's 1 MiB chunks, the last one short
const RECEIPT = Buffer.concat([PNG, randomBytes(2.5 * 1024 * 1024)]);
const STATEMENT = 'Date,Amount,Currency,Type,Account,Memo\n2026-03-01,42.50,USD,income,Main Wallet,Refund\n';

function upload(api: TestApp, method: string, url: string, token: string, fields: Array<[string, string]>, files: FilePart[]) {
  const form = multipart(fields, files);
  return api.request(method, url, { token, payload: form.payload, headers: form.headers });
}

/** The raw bytes of a download (the harness decodes bodies as text). */
async function download(api: TestApp, url: string, token?: string) {
  const res = await api.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, headers: res.headers, bytes: res.rawPayload, body: String(res.headers['content-type']).startsWith('application/json') ? res.json() : undefined };
}

for (const [store, api] of stores) {
  t.test(`${store}: uploads come back byte-identical, deletes remove them, lost bytes are 404`, async (t) => {
    const storage = api.app.services.storage;
    const owner = await api.newUser();
    const stranger = await api.newUser();
    const wallet = await ledgerFixtures(api).mainWallet(owner.user.id);

    const created = await upload(api, 'POST', '/api/v1/transactions', owner.token, [['type', 'income'], ['amount', '12.5'], ['wallet_id', String(wallet)]], [
      { field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: RECEIPT },
    ]);
    t.equal(created.status, 201, JSON.stringify(created.body));
    const attachment = created.body.data.files[0];
    const served = await download(api, `/api/v1/files/${attachment.id}`, owner.token);
    t.equal(served.status, 200);
    t.ok(served.bytes.equals(RECEIPT), 'the attachment is served byte-identical');
    t.match(served.headers, { 'content-type': 'image/png', 'content-length': String(RECEIPT.length) });
    t.equal((await download(api, `/api/v1/files/${attachment.id}`, stranger.token)).status, 404, "another user's file is 404");

    const category = await upload(api, 'POST', '/api/v1/categories', owner.token, [['name', 'Pictured'], ['type', 'expense'], ['icon_type', 'image']], [
      { field: 'icon', filename: 'icon.png', contentType: 'image/png', data: PNG },
    ]);
    t.equal(category.status, 201, JSON.stringify(category.body));
    const iconUrl: string = category.body.data.icon.path;
    t.same((await download(api, iconUrl, owner.token)).bytes, PNG, 'the icon image too');

    const chat = await api.request('POST', '/api/v1/ai/chats', { token: owner.token, body: { message: 'What is on this receipt?', defer_processing: true } });
    t.equal(chat.status, 201, JSON.stringify(chat.body));
    const question = chat.body.data.messages[0];
    const chatFiles = await upload(api, 'POST', `/api/v1/ai/chats/${chat.body.data.id}/messages/${question.id}/files`, owner.token, [], [
      { field: 'files', filename: 'receipt.png', contentType: 'image/png', data: PNG },
    ]);
    t.equal(chatFiles.status, 200, JSON.stringify(chatFiles.body));
    const chatFile: string = chatFiles.body.data.files[0].path;
    t.ok(await storage.exists(chatFile), 'a chat file is stored');
    t.equal((await api.request('DELETE', `/api/v1/ai/chats/${chat.body.data.id}`, { token: owner.token })).status, 200);
    t.notOk(await storage.exists(chatFile), 'and removed with its chat');

    const imported = await upload(api, 'POST', '/api/v1/import', owner.token, [], [{ field: 'file', filename: 'march.csv', contentType: 'text/csv', data: Buffer.from(STATEMENT) }]);
    t.equal(imported.status, 201, JSON.stringify(imported.body));
    const importUpload = await api.db.selectFrom('files').select('path').where('user_id', '=', owner.user.id).where('model', '=', 'import').executeTakeFirstOrThrow();
    t.ok(await storage.exists(importUpload.path), 'an import upload is stored');
    await processCsvImportJob.run({ db: api.db, services: api.app.services, log: api.app.log }, { importId: imported.body.data.id });
    const importRow = await api.db.selectFrom('file_imports').select(['status', 'num_rows']).where('id', '=', imported.body.data.id).executeTakeFirstOrThrow();
    t.same(importRow, { status: 'completed', num_rows: 1 }, 'the job read it back from the store');
    t.notOk(await storage.exists(importUpload.path), 'and removed it once done');

    const admin = await api.newUser();
    await grantAdmin(api.db, admin.email);
    const media = await upload(api, 'POST', '/api/v1/admin/outreach/media', admin.token, [], [{ field: 'image', filename: 'hero.png', contentType: 'image/png', data: PNG }]);
    t.equal(media.status, 200, JSON.stringify(media.body));
    const mediaPath = new URL(media.body.data.url).pathname;
    const publicImage = await download(api, mediaPath);
    t.equal(publicImage.status, 200, 'an outreach image is served without a token');
    t.same(publicImage.bytes, PNG);

    const removed = await api.request('DELETE', `/api/v1/transactions/${created.body.data.id}/files/${attachment.id}`, { token: owner.token });
    t.equal(removed.status, 200);
    t.notOk(await storage.exists(attachment.path), 'deleting the attachment removes its bytes');
    t.equal((await download(api, `/api/v1/files/${attachment.id}`, owner.token)).status, 404);

    // bytes lost from the store under rows that still name them
    const iconKey = (await api.db.selectFrom('files').select('path').where('user_id', '=', owner.user.id).where('model', '=', 'icon').executeTakeFirstOrThrow()).path;
    await storage.delete(iconKey);
    await storage.delete(mediaPath.replace(/^\/storage\//, ''));
    const lostIcon = await download(api, iconUrl, owner.token);
    t.equal(lostIcon.status, 404, 'an icon whose bytes are lost is 404');
    t.match(lostIcon.body, { success: false, message: 'File not found.' });
    t.equal((await download(api, mediaPath)).status, 404, 'and so is a lost outreach image');
  });
}

t.test('npm run copy-files: what the data folder holds moves to a shared store under the same keys', async (t) => {
  const owner = await local.newUser();
  const wallet = await ledgerFixtures(local).mainWallet(owner.user.id);
  const created = await upload(local, 'POST', '/api/v1/transactions', owner.token, [['type', 'income'], ['amount', '3'], ['wallet_id', String(wallet)]], [
    { field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: RECEIPT },
  ]);
  t.equal(created.status, 201);
  const fileUrl = `/api/v1/files/${created.body.data.files[0].id}`;
  const folder = new LocalFileStorage(path.join(local.config.dataDir, 'files'));
  for (const [store, shared] of stores.slice(1)) {
    t.equal((await download(shared, fileUrl, owner.token)).status, 404, `before the copy, ${store} does not have it`);
    const first = await copyLocalFiles(folder, shared.app.services.storage);
    t.ok(first.copied >= 1, `copied ${first.copied}`);
    const served = await download(shared, fileUrl, owner.token);
    t.equal(served.status, 200);
    t.ok(served.bytes.equals(RECEIPT), `served byte-identical from ${store} after the copy (streamed from the file)`);
    t.same(await copyLocalFiles(folder, shared.app.services.storage), { copied: 0, alreadyThere: first.copied + first.alreadyThere }, 'a second run copies nothing again');
  }
});

t.test('an object store that refuses or never answers is 503 in the envelope, within the bound', async (t) => {
  const owner = await local.newUser();
  const wallet = await ledgerFixtures(local).mainWallet(owner.user.id);
  const receipt: FilePart = { field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: PNG };
  // a file stored through the working store, served by processes whose store is down
  const stored = await upload(stores[2][1], 'POST', '/api/v1/transactions', owner.token, [['type', 'income'], ['amount', '1'], ['wallet_id', String(wallet)]], [receipt]);
  t.equal(stored.status, 201);
  const fileUrl = `/api/v1/files/${stored.body.data.files[0].id}`;
  const silent = await silentServer(t);

  for (const [failure, port] of [['refused', await closedPort()], ['silent', silent.port]] as const) {
    const down = await startApp(t, { database: local.database, storage: s3Storage(`http://127.0.0.1:${port}`, 'finance/test', 300) });
    const transactions = await down.db.selectFrom('transactions').select('id').where('user_id', '=', owner.user.id).execute();
    const started = Date.now();
    const refused = await upload(down, 'POST', '/api/v1/transactions', owner.token, [['type', 'income'], ['amount', '1'], ['wallet_id', String(wallet)]], [receipt]);
    const served = await download(down, fileUrl, owner.token);
    const elapsed = Date.now() - started;
    t.equal(refused.status, 503, `${failure}: the upload is 503`);
    t.same(refused.body, { success: false, message: 'File storage cannot be reached right now. Please try again later.' }, 'in the envelope, without details');
    t.equal(refused.headers['retry-after'], '5');
    t.same(await down.db.selectFrom('transactions').select('id').where('user_id', '=', owner.user.id).execute(), transactions, 'and nothing is written');
    t.equal(served.status, 503, `${failure}: the download is 503`);
    t.match(served.body, { success: false, message: /File storage cannot be reached/ });
    // two attempts of 300 ms each, twice over, with room for a busy machine
    t.ok(elapsed < 5000, `${failure}: answered in ${elapsed} ms`);
  }
});

t.test('a database that refuses or never answers is 503 in the envelope, within the bound', async (t) => {
  const user = await local.newUser(); // a token the unreachable database cannot check
  const silent = await silentServer(t);
  for (const [failure, port] of [['refused', await closedPort()], ['silent', silent.port]] as const) {
    const database = await openDatabase({ databaseUrl: `postgres://finance@127.0.0.1:${port}/finance`, connectTimeoutMs: 300 });
    t.teardown(() => database.close());
    const down = await startApp(t, { database, storage: { kind: 'database' } });
    const started = Date.now();
    const res = await down.request('GET', '/api/v1/wallets', { token: user.token });
    const elapsed = Date.now() - started;
    t.equal(res.status, 503, `${failure}: 503`);
    t.same(res.body, { success: false, message: 'The service cannot reach its database right now. Please try again later.' }, 'in the envelope, without details');
    t.ok(elapsed < 3000, `${failure}: answered in ${elapsed} ms`);
  }
});
