// The secret that signs tokens and keys the hashes of one-time codes. APP_KEY wins when set.
// Without it the key is kept in the database (db/app-key.ts), so every process on one database
// signs and checks with the same key, whatever its data folder. Before that, a process kept a
// generated key in DATA_DIR/app.key: an install that has one offers it as the database's key on
// its first start, so the tokens it issued stay valid, and the file is then removed, so that
// deleting the row (a rotation, docs/operating.md) is not undone by the file on the next start.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { keepFirstAppKey } from '../db/app-key.js';
import type { Database } from '../db/schema.js';
import type { Config } from './config.js';
import { settledOnce } from './settled-once.js';

/** Where versions before the database-kept key stored the generated one. */
export const LEGACY_KEY_FILE = 'app.key';

type Warn = (message: string) => void;

/**
 * The key, settled on first use and remembered (a failure, such as the database being
 * unreachable, is not remembered: the next use tries again). main.ts asks for it once the
 * database is migrated, before the process reports ready.
 */
export function appKeySource(config: Pick<Config, 'appKey' | 'dataDir'>, db: Kysely<Database>, warn: Warn = () => {}): () => Promise<string> {
  const given = config.appKey;
  if (given) return () => Promise.resolve(given);
  return settledOnce(() => settleSharedKey(config.dataDir, db, warn));
}

async function settleSharedKey(dataDir: string, db: Kysely<Database>, warn: Warn): Promise<string> {
  const file = path.join(dataDir, LEGACY_KEY_FILE);
  const legacy = (await readFile(file, 'utf8').catch(() => undefined))?.trim() || undefined;
  const key = await keepFirstAppKey(db, legacy ?? randomBytes(32).toString('base64url'));
  if (legacy !== undefined) {
    if (legacy !== key) warn(`${file} held another key than the database's; tokens it signed are no longer accepted`);
    await rm(file, { force: true });
  }
  return key;
}
