// Removing the bytes of files whose rows are gone. Call it after the deleting transaction has
// committed: a rollback must never leave a row naming bytes that were already removed. A
// failure only leaves an orphan blob behind, so it is logged and never fails the caller.
import type { FastifyBaseLogger } from 'fastify';
import type { FileStorage } from './storage.js';

/** Deletes running at once: enough to be quick, few enough not to flood the store. */
const CONCURRENCY = 8;

export async function removeStoredFiles(storage: FileStorage, keys: Iterable<string>, log: FastifyBaseLogger): Promise<void> {
  const pending = [...keys];
  for (let start = 0; start < pending.length; start += CONCURRENCY) {
    await Promise.all(
      pending.slice(start, start + CONCURRENCY).map((key) =>
        storage.delete(key).catch((error: unknown) => log.warn({ err: error, key }, 'removing a stored file failed; the blob is left behind')),
      ),
    );
  }
}
