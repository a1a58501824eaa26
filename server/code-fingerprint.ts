// What a process's ETags carry for "the build" when the deployment sets no BUILD_ID: a digest
// of the code it runs. Processes of one release share it without being told (a tag made by one
// matches on the others), and a release whose answers could differ gets a new one.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folders whose files shape an answer: the service's code, its generated types and spec, next to this one. */
const CODE_FOLDERS = ['server', 'handlers', 'db', 'domain', 'jobs', 'generated', 'spec'];
/** The installed libraries' versions count too (a serializer's output may change with them). */
const LOCK_FILES = ['package-lock.json', '../package-lock.json'];

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

let runningCode: Promise<string> | undefined;

/** The running code's fingerprint, read once per process. */
export function runningCodeFingerprint(): Promise<string> {
  runningCode ??= codeFingerprint(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  return runningCode;
}

/** A hex digest of every file of the code under `root` (in path order) and the lock file. */
export async function codeFingerprint(root: string): Promise<string> {
  const files = (await Promise.all(CODE_FOLDERS.map((folder) => filesUnder(path.join(root, folder))))).flat();
  files.push(...LOCK_FILES.map((name) => path.join(root, name)));
  files.sort();
  const contents = await Promise.all(files.map((file) => readFile(file).catch(() => null)));
  const digest = createHash('sha256');
  files.forEach((file, i) => {
    const content = contents[i];
    if (content !== null) digest.update(path.relative(root, file)).update('\0').update(content).update('\0');
  });
  return digest.digest('hex').slice(0, 16);
}
