// What an outbox e-mail carries besides its text: the files of the outreach campaign it
// belongs to (rows of `files`, model 'outreach'), read through the storage adapter.
import type { Kysely } from 'kysely';
import { outreachAttachmentsOf } from '../db/outreach.js';
import type { Database } from '../db/schema.js';
import type { MailAttachment } from '../server/mail-transport.js';
import { readStoredBytes, type FileStorage } from '../server/storage.js';

export type AttachmentReader = (email: { outreach_send_id: number | null }) => Promise<MailAttachment[]>;

/**
 * Reads the attachments of outbox e-mails. One campaign's e-mails share their files, so a
 * reader reads each stored file once (make one per delivery run, not per process).
 */
export function attachmentReader(db: Kysely<Database>, storage: FileStorage): AttachmentReader {
  const bytes = new Map<string, Promise<Buffer>>();
  const read = (key: string) => {
    let content = bytes.get(key);
    if (!content) bytes.set(key, (content = readStoredBytes(storage, key).then((stored) => stored ?? missing(key))));
    return content;
  };
  return async (email) => {
    if (email.outreach_send_id === null) return [];
    const files = await outreachAttachmentsOf(db, email.outreach_send_id);
    return Promise.all(files.map(async (file) => ({ filename: file.name, contentType: file.mime_type, content: await read(file.path) })));
  };
}

/** A campaign's file gone from the store: the e-mail fails (and is retried) rather than going out without it. */
function missing(key: string): never {
  throw new Error(`the stored file ${key} is missing`);
}
