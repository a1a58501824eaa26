// Uploaded bytes kept in the database (migration 035): a header row per storage key and the
// bytes in numbered chunks. A file is written in one transaction, so a reader sees all of it
// or none.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Writes the chunks in order under `key`, replacing a file kept there; returns the size stored. */
export async function writeBlob(db: Kysely<Database>, key: string, contentType: string | null, chunks: AsyncIterable<Buffer>): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('file_blobs').where('key', '=', key).execute();
    await trx.insertInto('file_blobs').values({ key, size: 0, content_type: contentType }).execute();
    let size = 0;
    let seq = 0;
    for await (const bytes of chunks) {
      await trx.insertInto('file_blob_chunks').values({ key, seq: seq++, bytes }).execute();
      size += bytes.length;
    }
    await trx.updateTable('file_blobs').set({ size }).where('key', '=', key).execute();
    return size;
  });
}

export function findBlob(db: Kysely<Database>, key: string) {
  return db.selectFrom('file_blobs').select(['size', 'content_type']).where('key', '=', key).executeTakeFirst();
}

export async function blobChunk(db: Kysely<Database>, key: string, seq: number): Promise<Buffer | undefined> {
  const row = await db.selectFrom('file_blob_chunks').select('bytes').where('key', '=', key).where('seq', '=', seq).executeTakeFirst();
  return row?.bytes;
}

/** Removes the file; its chunks go with it (on delete cascade). */
export async function deleteBlob(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('file_blobs').where('key', '=', key).execute();
}
