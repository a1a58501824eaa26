// A stored file as the API shows it. `link` is the absolute address of GET /v1/files/{id}
// (bearer token required), as the reference gives it; `path` is the storage key, which the
// mobile client matches to find a file it has just uploaded. `fileable_type`/`fileable_id`
// name the owning record with the reference's names and values (the mobile client reads them).
import type { components } from '../../generated/api.js';
import type { FileRow } from '../../db/transactions.js';

export type FileView = components['schemas']['File'];

/** The reference's morph class of each kind of record files are attached to through the API. */
const FILEABLE_TYPES = { transaction: 'App\\Models\\Transaction', chat_message: 'App\\Models\\ChatMessage' } as const;

/** `fileable_type`/`fileable_id` of a transaction attachment or a chat message file. */
export function fileOwner(row: Pick<FileRow, 'model' | 'transaction_id' | 'chat_message_id'>) {
  return row.model === 'chat_message'
    ? { fileable_type: FILEABLE_TYPES.chat_message, fileable_id: row.chat_message_id ?? 0 }
    : { fileable_type: FILEABLE_TYPES.transaction, fileable_id: row.transaction_id ?? 0 };
}

export function fileLink(publicUrl: string, fileId: number): string {
  return `${publicUrl}/api/v1/files/${fileId}`;
}

export function toFile(row: FileRow, publicUrl: string): FileView {
  return {
    id: row.id,
    path: row.path,
    link: fileLink(publicUrl, row.id),
    // attachments are stored as image or pdf only (sniffed); other kinds are never attached
    type: row.type as FileView['type'],
    ...fileOwner(row),
    mime_type: row.mime_type,
    size: Number(row.size),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
