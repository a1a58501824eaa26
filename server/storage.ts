// File storage behind a small adapter: a local folder under DATA_DIR by default; an
// S3-compatible store can implement the same interface for scale-out. Content types are
// recognised from the bytes (file-type), never from the client's name or header.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';

export interface FileStorage {
  /** Stores the bytes under a new key and returns it. */
  put(prefix: string, data: Buffer, extension: string): Promise<string>;
  get(key: string): Promise<Buffer>;
  delete(key: string): Promise<void>;
}

export class LocalFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  async put(prefix: string, data: Buffer, extension: string): Promise<string> {
    const key = path.posix.join(prefix, `${randomUUID()}.${extension}`);
    const file = this.resolve(key);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data);
    return key;
  }

  get(key: string): Promise<Buffer> {
    return readFile(this.resolve(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.resolve(key), { force: true });
  }

  /** Keys are made by `put`; still, none may escape the root. */
  private resolve(key: string): string {
    const file = path.resolve(this.root, key);
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`invalid storage key ${key}`);
    return file;
  }
}

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
