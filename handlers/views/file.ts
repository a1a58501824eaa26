// A stored file as the API shows it. `link` is the absolute address of GET /v1/files/{id}
// (bearer token required), as the reference gives it; `path` is the storage key, which the
// mobile client matches to find a file it has just uploaded.
import type { components } from '../../generated/api.js';
import type { FileRow } from '../../db/transactions.js';

export type FileView = components['schemas']['File'];

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
    model: row.model,
    model_id: row.transaction_id ?? row.chat_message_id ?? 0,
    mime_type: row.mime_type,
    size: Number(row.size),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
