// Attachments of transactions: uploads are judged by their bytes (images and PDFs only), their
// bytes are stored before the database write, and removed again when that write fails or
// does not use them, so no request leaves a half-attached file behind.
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { validationFailed, type FieldErrors } from '../../server/errors.js';
import type { UploadedFile } from '../../server/multipart.js';
import { sniffUpload, type FileStorage, type SniffedType } from '../../server/storage.js';

/** The spec's `maxItems` of UploadFiles (files are not in the validated body). */
export const MAX_FILES_PER_REQUEST = 10;

export interface CheckedUpload {
  file: UploadedFile;
  type: SniffedType;
}

/** Adds the stored uploads to a transaction, inside the write's database transaction. */
export type AttachFiles = (trx: Transaction<Database>, userId: number, transactionId: number, now: Date) => Promise<void>;

/** The uploads with their sniffed types; 422 on `files.<index>` for anything but an image or a PDF. */
/** Files sent as base64 strings (bare or `data:` URLs) in a JSON body, as uploads named `files[]`. */
export function uploadsFromBase64(values: string[]): UploadedFile[] {
  return values.map((value, index) => ({
    field: 'files[]',
    filename: `file-${index + 1}`,
    declaredType: /^data:([^;]+);/.exec(value)?.[1] ?? 'application/octet-stream',
    data: Buffer.from(value.replace(/^data:[^,]*,/, ''), 'base64'),
  }));
}

export async function checkUploads(files: UploadedFile[] = []): Promise<CheckedUpload[]> {
  if (files.length > MAX_FILES_PER_REQUEST) {
    throw validationFailed({ files: [`At most ${MAX_FILES_PER_REQUEST} files may be sent at once.`] });
  }
  const errors: FieldErrors = {};
  const checked: CheckedUpload[] = [];
  for (const [index, file] of files.entries()) {
    const type = await sniffUpload(file.data);
    if (type) checked.push({ file, type });
    else errors[`files.${index}`] = ['The file must be an image (JPEG, PNG, GIF, WebP) or a PDF document.'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return checked;
}

/**
 * Stores the uploads' bytes, then runs `write`, which calls `attach` inside its database
 * transaction to record them. The stored bytes are deleted again when `write` throws or
 * never attaches them (a replayed create).
 */
export async function withStoredUploads<T>(storage: FileStorage, uploads: CheckedUpload[], write: (attach: AttachFiles) => Promise<T>): Promise<T> {
  const stored: Array<CheckedUpload & { path: string }> = [];
  let attached = false;
  const discard = () => Promise.all(stored.map((upload) => storage.delete(upload.path)));
  try {
    for (const upload of uploads) stored.push({ ...upload, path: await storage.put('transactions', upload.file.data, upload.type.extension, upload.type.mime) });
    const result = await write(async (trx, userId, transactionId, now) => {
      if (stored.length === 0) return;
      await trx
        .insertInto('files')
        .values(
          stored.map((upload) => ({
            user_id: userId,
            model: 'transaction' as const,
            transaction_id: transactionId,
            path: upload.path,
            original_name: upload.file.filename || null,
            mime_type: upload.type.mime,
            size: upload.file.data.length,
            type: upload.type.kind,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
      attached = true;
    });
    if (!attached) await discard();
    return result;
  } catch (error) {
    await discard();
    throw error;
  }
}
