// Files attached to a chat message (spec: ChatFilesUpload): images and PDFs are judged by their
// bytes like every upload (sniffUpload); Office documents by their sniffed container and name;
// text formats (txt, csv, xml, ofx, qfx) by their name and by holding no binary bytes. Each at
// most 5 MB. Bytes are stored before the database write and removed when it fails.
import { fileTypeFromBuffer } from 'file-type';
import type { Kysely } from 'kysely';
import type { Database, JsonObject } from '../../db/schema.js';
import { validationFailed, type FieldErrors } from '../../server/errors.js';
import type { UploadedFile } from '../../server/multipart.js';
import { sniffUpload, type FileStorage } from '../../server/storage.js';

export const MAX_CHAT_FILES = 10;
export const MAX_CHAT_FILE_BYTES = 5 * 1024 * 1024;

const OFFICE: Record<string, { mime: string; extensions: string[] }> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extensions: ['docx'] },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extensions: ['xlsx'] },
  'application/x-cfb': { mime: 'application/octet-stream', extensions: ['doc', 'xls'] },
};
const TEXT: Record<string, string> = { txt: 'text/plain', csv: 'text/csv', xml: 'application/xml', ofx: 'application/x-ofx', qfx: 'application/x-qfx' };

export interface CheckedChatFile {
  file: UploadedFile;
  mime: string;
  extension: string;
  kind: 'image' | 'pdf' | 'document';
}

const extensionOf = (name: string) => (/\.([a-z0-9]+)$/i.exec(name)?.[1] ?? '').toLowerCase();

async function typeOf(file: UploadedFile): Promise<Omit<CheckedChatFile, 'file'> | undefined> {
  const media = await sniffUpload(file.data);
  if (media && media.mime !== 'image/heic') return { mime: media.mime, extension: media.extension, kind: media.kind };
  const extension = extensionOf(file.filename);
  const detected = await fileTypeFromBuffer(file.data);
  const office = detected && OFFICE[detected.mime];
  if (office && office.extensions.includes(extension)) return { mime: office.mime, extension, kind: 'document' };
  const xmlLike = !detected || detected.mime === 'application/xml';
  if (TEXT[extension] && xmlLike && !file.data.includes(0)) return { mime: TEXT[extension], extension, kind: 'document' };
  return undefined;
}

/** The files with their types; 422 on `files` or `files.<index>`. */
export async function checkChatFiles(files: UploadedFile[]): Promise<CheckedChatFile[]> {
  if (files.length === 0) throw validationFailed({ files: ['The files field is required.'] });
  if (files.length > MAX_CHAT_FILES) throw validationFailed({ files: [`At most ${MAX_CHAT_FILES} files may be sent at once.`] });
  const errors: FieldErrors = {};
  const checked: CheckedChatFile[] = [];
  for (const [index, file] of files.entries()) {
    if (file.data.length > MAX_CHAT_FILE_BYTES) {
      errors[`files.${index}`] = ['The file may not be greater than 5120 kilobytes.'];
      continue;
    }
    const type = await typeOf(file);
    if (type) checked.push({ file, ...type });
    else errors[`files.${index}`] = ['The file must be a file of type: jpg, jpeg, png, gif, webp, pdf, doc, docx, xls, xlsx, txt, csv, xml, ofx, qfx.'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return checked;
}

/** Stores the files' bytes and their rows on the message; stored bytes are removed when the write fails. */
export async function attachChatFiles(
  db: Kysely<Database>,
  storage: FileStorage,
  target: { userId: number; messageId: number; documentType: string | null },
  files: CheckedChatFile[],
  now: Date,
): Promise<void> {
  const stored: string[] = [];
  try {
    for (const file of files) stored.push(await storage.put('chat_attachments', file.file.data, file.extension, file.mime));
    const metadata: JsonObject | null = target.documentType ? { document_type: target.documentType } : null;
    await db
      .insertInto('files')
      .values(
        files.map((file, index) => ({
          user_id: target.userId,
          model: 'chat_message' as const,
          chat_message_id: target.messageId,
          path: stored[index],
          original_name: file.file.filename || null,
          mime_type: file.mime,
          size: file.file.data.length,
          type: file.kind,
          metadata: metadata ? JSON.stringify(metadata) : null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  } catch (error) {
    await Promise.all(stored.map((key) => storage.delete(key).catch(() => undefined)));
    throw error;
  }
}
