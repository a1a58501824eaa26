// Files: the stored bytes of an attachment or an icon image, to the owner of a live record
// only. Everything else (another user's file, a deleted record's, bytes missing from storage)
// is 404, never a hint that the file exists.
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { FileRow } from '../db/transactions.js';
import type { RawResult } from '../server/envelope.js';
import { notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';

export const fileHandlers = {
  downloadFile: async (ctx: HandlerContext<'downloadFile'>): Promise<RawResult> => {
    const { db, user, services, params } = ctx;
    const file = await db.selectFrom('files').selectAll().where('id', '=', params.id).where('user_id', '=', user.id).executeTakeFirst();
    if (!file || !(await belongsToLiveRecord(db, user.id, file))) throw notFound('File');
    const stored = await services.storage.get(file.path);
    if (!stored) throw notFound('File');
    return {
      status: 200,
      raw: true,
      headers: {
        'content-type': file.mime_type,
        ...(stored.size !== undefined ? { 'content-length': String(stored.size) } : {}),
        'content-disposition': inlineDisposition(file.original_name || path.posix.basename(file.path)),
      },
      body: stored.body,
    };
  },
} satisfies Partial<Handlers>;

/** A transaction attachment of a live transaction, or the image of an icon a live record uses. */
async function belongsToLiveRecord(db: Kysely<Database>, userId: number, file: FileRow): Promise<boolean> {
  if (file.model === 'transaction' && file.transaction_id !== null) {
    const owner = await db
      .selectFrom('transactions')
      .select('id')
      .where('id', '=', file.transaction_id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return owner !== undefined;
  }
  if (file.model === 'icon') {
    const usedBy = (table: 'wallets' | 'groups' | 'parties' | 'categories') =>
      db
        .selectFrom(table)
        .innerJoin('icons', 'icons.id', `${table}.icon_id`)
        .select(`${table}.id`)
        .where('icons.file_id', '=', file.id)
        .where(`${table}.user_id`, '=', userId)
        .where(`${table}.deleted_at`, 'is', null);
    const owner = await usedBy('wallets').union(usedBy('groups')).union(usedBy('parties')).union(usedBy('categories')).limit(1).executeTakeFirst();
    return owner !== undefined;
  }
  return false;
}

/** `inline; filename="..."`, with an RFC 5987 form for names that are not plain ASCII. */
function inlineDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return ascii === name ? `inline; filename="${name}"` : `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
