// Uploads that leave bytes in storage (a transaction attachment and a category icon image),
// and a look into the app's store, for the tests of what deleting removes.
import type { TestApp } from './harness.js';
import { ledgerFixtures, multipart, PNG } from './transaction-fixtures.js';

/** Whether the app's store (whichever STORAGE_URL chose) holds bytes under the key. */
export function isStored(api: TestApp, key: string): Promise<boolean> {
  return api.app.services.storage.exists(key);
}

/** Uploads a transaction attachment and a category icon image as the user; returns their storage keys. */
export async function uploadFiles(api: TestApp, { token, user }: { token: string; user: { id: number } }): Promise<string[]> {
  const wallet = await ledgerFixtures(api).mainWallet(user.id);
  const attachment = multipart([['type', 'income'], ['amount', '3.5'], ['wallet_id', String(wallet)]], [{ field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: PNG }]);
  const created = await api.request('POST', '/api/v1/transactions', { token, payload: attachment.payload, headers: attachment.headers });
  if (created.status !== 201) throw new Error(`upload failed: ${JSON.stringify(created.body)}`);
  const icon = multipart([['name', 'Pictured'], ['type', 'expense'], ['icon_type', 'image']], [{ field: 'icon', filename: 'icon.png', contentType: 'image/png', data: PNG }]);
  const category = await api.request('POST', '/api/v1/categories', { token, payload: icon.payload, headers: icon.headers });
  if (category.status !== 201) throw new Error(`icon upload failed: ${JSON.stringify(category.body)}`);
  const files = await api.db
    .selectFrom('files')
    .select('path')
    .where('id', 'in', [created.body.data.files[0].id, Number(category.body.data.icon.path.split('/').pop())])
    .execute();
  return files.map((file) => file.path);
}
