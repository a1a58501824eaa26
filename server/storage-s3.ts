// STORAGE_URL=s3://bucket/prefix?endpoint=...&region=...&force_path_style=true: the bytes in an
// S3-compatible object store, through @aws-sdk/client-s3 with the standard AWS_* credentials.
// Bytes stream both ways. A store that cannot be reached is bounded (connect and a silent socket
// each time out after STORAGE_TIMEOUT_MS, two attempts) and answers 503; a missing key is
// `undefined`, as in the other stores.
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { StorageConfig } from './storage-config.js';
import { KeyedFileStorage, storageUnavailable, type StoredFile } from './storage.js';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

/** Attempts per call: one retry rides out a dropped connection, more would stretch the bound. */
const MAX_ATTEMPTS = 2;

export class S3FileStorage extends KeyedFileStorage {
  private readonly client: S3Client;

  constructor(
    private readonly config: S3Config,
    private readonly onFailure: (error: unknown) => void,
  ) {
    super();
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      maxAttempts: MAX_ATTEMPTS,
      // connecting and a socket gone silent are bounded; a slow transfer that keeps moving is not cut
      requestHandler: { connectionTimeout: config.timeoutMs, socketTimeout: config.timeoutMs },
      // checksums only where S3 requires them: several S3-compatible stores refuse the newer defaults
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async write(key: string, data: Buffer | Readable, contentType?: string): Promise<void> {
    const params = { Bucket: this.config.bucket, Key: this.objectKey(key), ContentType: contentType };
    await this.call(() =>
      Buffer.isBuffer(data)
        ? this.client.send(new PutObjectCommand({ ...params, Body: data, ContentLength: data.length }))
        : // a stream of unknown length goes up in parts: PutObject needs the length first
          new Upload({ client: this.client, params: { ...params, Body: data } }).done(),
    );
  }

  async get(key: string): Promise<StoredFile | undefined> {
    const object = await this.call(() => this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })));
    if (!object) return undefined;
    return { body: object.Body as Readable, size: object.ContentLength, contentType: object.ContentType };
  }

  async delete(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })));
  }

  async exists(key: string): Promise<boolean> {
    const head = await this.call(() => this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })));
    return head !== undefined;
  }

  private objectKey(key: string): string {
    return this.config.prefix ? `${this.config.prefix}/${key}` : key;
  }

  /** Runs one store call: a missing object is undefined; anything else the store answers or fails with is 503. */
  private async call<T>(send: () => Promise<T>): Promise<T | undefined> {
    try {
      return await send();
    } catch (error) {
      if (isMissing(error)) return undefined;
      this.onFailure(error);
      throw storageUnavailable();
    }
  }
}

/** No object under the key; a missing bucket is a misconfigured store, not a missing file. */
function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && error.name !== 'NoSuchBucket' && error.$metadata.httpStatusCode === 404;
}
