// File storage behind one small adapter, chosen by STORAGE_URL (server/storage-config.ts):
// a local folder under DATA_DIR by default (one process), the database, or an S3-compatible
// store (several processes). Bytes go in and come out as streams; content types are
// recognised from the bytes (file-type), never from the client's name or header.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from './config.js';
import { HttpError } from './errors.js';

/** Stored bytes being read: `size` and `contentType` when the store knows them. */
export interface StoredFile {
  body: Readable;
  size?: number;
  contentType?: string;
}

export interface FileStorage {
  /** Stores the bytes under a new key (`prefix/<uuid>.<extension>`) and returns it. */
  put(prefix: string, data: Buffer | Readable, extension: string, contentType?: string): Promise<string>;
  /** Stores the bytes under a given key, replacing any there (copying files between stores). */
  write(key: string, data: Buffer | Readable, contentType?: string): Promise<void>;
  /** The bytes of a key; undefined when the store has none under it (never stored, deleted or lost). */
  get(key: string): Promise<StoredFile | undefined>;
  /** Removes the bytes; a key already gone is no error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
}

/** Retry hint of a store that cannot be reached: the same as the readiness check's. */
const RETRY_AFTER_SECONDS = '5';

/** An unreachable or failing store: 503 in the envelope, never its details. */
export const storageUnavailable = () =>
  new HttpError(503, 'File storage cannot be reached right now. Please try again later.', undefined, { 'retry-after': RETRY_AFTER_SECONDS });

/** What every store shares: a new file gets a key of its own, then is written under it. */
export abstract class KeyedFileStorage implements FileStorage {
  async put(prefix: string, data: Buffer | Readable, extension: string, contentType?: string): Promise<string> {
    const key = path.posix.join(prefix, `${randomUUID()}.${extension}`);
    await this.write(key, data, contentType);
    return key;
  }

  abstract write(key: string, data: Buffer | Readable, contentType?: string): Promise<void>;
  abstract get(key: string): Promise<StoredFile | undefined>;
  abstract delete(key: string): Promise<void>;
  abstract exists(key: string): Promise<boolean>;
}

/** The whole bytes of a key, for readers that parse a file at once (imports, e-mail attachments). */
export async function readStoredBytes(storage: FileStorage, key: string): Promise<Buffer | undefined> {
  const stored = await storage.get(key);
  return stored && buffer(stored.body);
}

/** The store STORAGE_URL names; `onFailure` hears what an unreachable store answered (the client gets a 503). */
export async function openFileStorage(config: Config, db: Kysely<Database>, onFailure: (error: unknown) => void): Promise<FileStorage> {
  const storage = config.storage;
  if (storage.kind === 'database') {
    const { DatabaseFileStorage } = await import('./storage-database.js');
    return new DatabaseFileStorage(db);
  }
  if (storage.kind === 's3') {
    // loaded only when chosen: the SDK is large, and a local or database deployment never needs it
    const { S3FileStorage } = await import('./storage-s3.js');
    return new S3FileStorage(storage, onFailure);
  }
  return new LocalFileStorage(path.join(config.dataDir, 'files'));
}

export class LocalFileStorage extends KeyedFileStorage {
  constructor(readonly root: string) {
    super();
  }

  async write(key: string, data: Buffer | Readable): Promise<void> {
    const file = this.resolve(key);
    await mkdir(path.dirname(file), { recursive: true });
    await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, createWriteStream(file));
  }

  async get(key: string): Promise<StoredFile | undefined> {
    const file = this.resolve(key);
    const found = await stat(file).catch(whenMissing(undefined));
    return found && { body: createReadStream(file), size: found.size };
  }

  async delete(key: string): Promise<void> {
    await rm(this.resolve(key), { force: true });
  }

  exists(key: string): Promise<boolean> {
    return access(this.resolve(key)).then(() => true, whenMissing(false));
  }

  /** Keys are made by `put`; still, none may escape the root. */
  private resolve(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`invalid storage key ${key}`);
    return file;
  }
}

/** A missing file is an answer (`value`); any other failure of the disk is an error. */
const whenMissing =
  <T>(value: T) =>
  (error: NodeJS.ErrnoException): T => {
    if (error.code === 'ENOENT') return value;
    throw error;
  };

export interface SniffedType {
  mime: string;
  extension: string;
  kind: 'image' | 'pdf';
}

const ACCEPTED: Record<string, SniffedType['kind']> = {
  'image/png': 'image',
  'image/jpeg': 'image',
  'image/gif': 'image',
  'image/webp': 'image',
  'image/heic': 'image',
  'application/pdf': 'pdf',
};

/** The type of an uploaded file from its content; undefined unless it is an image or a PDF. */
export async function sniffUpload(data: Buffer): Promise<SniffedType | undefined> {
  const detected = await fileTypeFromBuffer(data);
  const kind = detected && ACCEPTED[detected.mime];
  return kind && detected ? { mime: detected.mime, extension: detected.ext, kind } : undefined;
}
