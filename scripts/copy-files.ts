// `npm run copy-files`: copies the files kept in the data folder (DATA_DIR/files, where they
// go while STORAGE_URL is unset) into the store STORAGE_URL names, under the same keys, so a
// deployment moving to the database or an object store keeps every link. Files the store
// already holds are left alone: run it again after an interruption, or once more right
// before switching to pick up the last uploads. Nothing is removed from the folder.
//
//   DATABASE_URL=... STORAGE_URL=database npm run copy-files [-- --from /path/to/files]
//
// Exit codes: 0 done, 2 bad usage (STORAGE_URL unset: the folder is the store).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { loadConfig } from '../server/config.js';
import { LocalFileStorage, openFileStorage, type FileStorage } from '../server/storage.js';
import { runAsProgram } from './run-as-program.js';

export interface CopyCounts {
  copied: number;
  alreadyThere: number;
}

/** Copies every file under `source`'s folder that `target` does not hold yet, streaming each. */
export async function copyLocalFiles(source: LocalFileStorage, target: FileStorage): Promise<CopyCounts> {
  const counts: CopyCounts = { copied: 0, alreadyThere: 0 };
  for (const key of await keysUnder(source.root)) {
    if (await target.exists(key)) {
      counts.alreadyThere += 1;
      continue;
    }
    const stored = await source.get(key);
    if (!stored) continue; // removed since it was listed
    await target.write(key, stored.body);
    counts.copied += 1;
  }
  return counts;
}

/** The storage keys of the files below `root`: their paths relative to it, with forward slashes. */
async function keysUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { from: { type: 'string' } } });
  const config = loadConfig();
  if (config.storage.kind === 'local') {
    console.error('STORAGE_URL is unset: the data folder is already the store. Set STORAGE_URL to database or s3://... first.');
    return 2;
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    const target = await openFileStorage(config, database.db, (error) => console.error(error));
    const source = new LocalFileStorage(path.resolve(values.from ?? path.join(config.dataDir, 'files')));
    const counts = await copyLocalFiles(source, target);
    console.log(`Copied ${counts.copied} files from ${source.root}; ${counts.alreadyThere} were already there.`);
    return 0;
  } finally {
    await database.close();
  }
}

runAsProgram(import.meta.url, main);
