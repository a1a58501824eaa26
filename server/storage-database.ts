// STORAGE_URL=database: the bytes in PostgreSQL (db/file-blobs.ts), in 1 MiB chunks written in
// one transaction and read back one chunk per query, so neither an upload's store nor a
// download holds more than a chunk of it (the upload itself arrives whole from the form).
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import { blobChunk, deleteBlob, findBlob, writeBlob } from '../db/file-blobs.js';
import type { Database } from '../db/schema.js';
import { KeyedFileStorage, type StoredFile } from './storage.js';

export const CHUNK_BYTES = 1024 * 1024;

export class DatabaseFileStorage extends KeyedFileStorage {
  constructor(private readonly db: Kysely<Database>) {
    super();
  }

  async write(key: string, data: Buffer | Readable, contentType?: string): Promise<void> {
    await writeBlob(this.db, key, contentType ?? null, chunksOf(Buffer.isBuffer(data) ? [data] : data));
  }

  async get(key: string): Promise<StoredFile | undefined> {
    const blob = await findBlob(this.db, key);
    if (!blob) return undefined;
    const count = Math.ceil(blob.size / CHUNK_BYTES);
    const db = this.db;
    async function* chunks() {
      for (let seq = 0; seq < count; seq++) {
        const bytes = await blobChunk(db, key, seq);
        // deleted while it was read: the download ends with an error rather than short
        if (!bytes) throw new Error(`stored file ${key} was removed while it was read`);
        yield bytes;
      }
    }
    return { body: Readable.from(chunks(), { objectMode: false }), size: blob.size, contentType: blob.content_type ?? undefined };
  }

  delete(key: string): Promise<void> {
    return deleteBlob(this.db, key);
  }

  async exists(key: string): Promise<boolean> {
    return (await findBlob(this.db, key)) !== undefined;
  }
}

/** The bytes of `source` cut into chunks of CHUNK_BYTES (the last one shorter), whatever sizes it yields. */
async function* chunksOf(source: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const received of source) {
    let piece = received;
    while (pendingBytes + piece.length >= CHUNK_BYTES) {
      const taken = CHUNK_BYTES - pendingBytes;
      yield Buffer.concat([...pending, piece.subarray(0, taken)]);
      piece = piece.subarray(taken);
      pending = [];
      pendingBytes = 0;
    }
    if (piece.length > 0) {
      pending.push(piece);
      pendingBytes += piece.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}
