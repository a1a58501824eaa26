// Files of outreach campaigns, judged by their bytes: the hero image (JPEG, PNG, GIF, WebP)
// and attachments (those images, PDF, Word, Excel, plain text and CSV). At most 5 MB each.
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import type { FileType } from '../../db/schema.js';
import { payloadTooLarge, validationFailed, type FieldErrors } from '../../server/errors.js';
import type { UploadedFile } from '../../server/multipart.js';

export const MAX_OUTREACH_FILE_BYTES = 5 * 1024 * 1024;
export const MAX_OUTREACH_ATTACHMENTS = 5;

const IMAGES: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' };

const OFFICE: Record<string, string> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

/** Old Office files are all one container format (CFB); their extension says which. */
const CFB_BY_EXTENSION: Record<string, string> = { doc: 'application/msword', xls: 'application/vnd.ms-excel' };

/** Text has no signature: the extension, and no NUL byte, decide. */
const TEXT_BY_EXTENSION: Record<string, string> = { txt: 'text/plain', csv: 'text/csv' };

export interface CheckedFile {
  file: UploadedFile;
  mime: string;
  extension: string;
  kind: FileType;
}

function checkSize(file: UploadedFile): void {
  if (file.data.length > MAX_OUTREACH_FILE_BYTES) throw payloadTooLarge(MAX_OUTREACH_FILE_BYTES);
}

/** The hero image; 413 when too large, 422 on `image` for anything but the four image types. */
export async function checkOutreachImage(file: UploadedFile | undefined): Promise<CheckedFile> {
  if (!file) throw validationFailed({ image: ['The image field is required.'] });
  checkSize(file);
  const detected = await fileTypeFromBuffer(file.data);
  const extension = detected && IMAGES[detected.mime];
  if (!detected || !extension) throw validationFailed({ image: ['The image must be a JPEG, PNG, GIF or WebP image.'] });
  return { file, mime: detected.mime, extension, kind: 'image' };
}

/** The attachments of a send; 413 when one is too large, 422 on `files` / `files.N` otherwise. */
export async function checkOutreachAttachments(files: UploadedFile[] = []): Promise<{ checked: CheckedFile[]; errors: FieldErrors }> {
  if (files.length > MAX_OUTREACH_ATTACHMENTS) {
    return { checked: [], errors: { files: [`At most ${MAX_OUTREACH_ATTACHMENTS} files may be attached.`] } };
  }
  files.forEach(checkSize);
  const checked: CheckedFile[] = [];
  const errors: FieldErrors = {};
  for (const [index, file] of files.entries()) {
    const type = await attachmentType(file);
    if (type) checked.push({ file, ...type });
    else errors[`files.${index}`] = ['The file must be an image (JPEG, PNG, GIF, WebP), a PDF, Word, Excel, text or CSV file.'];
  }
  return { checked, errors };
}

async function attachmentType(file: UploadedFile): Promise<Omit<CheckedFile, 'file'> | undefined> {
  const extension = path.extname(file.filename).slice(1).toLowerCase();
  const detected = await fileTypeFromBuffer(file.data);
  if (detected) {
    if (IMAGES[detected.mime]) return { mime: detected.mime, extension: IMAGES[detected.mime], kind: 'image' };
    if (detected.mime === 'application/pdf') return { mime: detected.mime, extension: 'pdf', kind: 'pdf' };
    if (OFFICE[detected.mime]) return { mime: detected.mime, extension: OFFICE[detected.mime], kind: 'document' };
    if (detected.mime === 'application/x-cfb' && CFB_BY_EXTENSION[extension]) return { mime: CFB_BY_EXTENSION[extension], extension, kind: 'document' };
    return undefined;
  }
  if (TEXT_BY_EXTENSION[extension] && !file.data.includes(0)) return { mime: TEXT_BY_EXTENSION[extension], extension, kind: 'document' };
  return undefined;
}
