// The build an ETag carries without BUILD_ID: the same for two copies of one release, another
// for a release whose code or locked libraries differ.
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { codeFingerprint } from '../../server/code-fingerprint.js';

async function release(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'finance-release-'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
  return root;
}

const files = {
  'server/app.js': 'export const app = 1;\n',
  'handlers/wallets.js': 'export const listWallets = () => [];\n',
  'generated/operations.js': 'export const operations = [];\n',
  'package-lock.json': '{"lockfileVersion":3}\n',
  'data/uploads/receipt.jpg': 'not code',
};

t.test('two copies of one release agree; a changed file, lock file or renamed file does not', async (t) => {
  const first = await release(files);
  const copy = await mkdtemp(path.join(tmpdir(), 'finance-release-'));
  await cp(first, copy, { recursive: true });
  const fingerprint = await codeFingerprint(first);
  t.match(fingerprint, /^[0-9a-f]{16}$/);
  t.equal(await codeFingerprint(copy), fingerprint, 'the same code in another folder');

  t.not(await codeFingerprint(await release({ ...files, 'server/app.js': 'export const app = 2;\n' })), fingerprint, 'code changed');
  t.not(await codeFingerprint(await release({ ...files, 'package-lock.json': '{"lockfileVersion":3,"x":1}\n' })), fingerprint, 'a library changed');
  const { 'handlers/wallets.js': wallets, ...rest } = files;
  t.not(await codeFingerprint(await release({ ...rest, 'handlers/accounts.js': wallets })), fingerprint, 'a file renamed');
  t.equal(await codeFingerprint(await release({ ...files, 'data/uploads/receipt.jpg': 'another photo' })), fingerprint, 'files outside the code do not count');
});
