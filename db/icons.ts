// Icons of wallets, groups, parties and categories: an emoji, an icon name, or an uploaded
// image (a row of `files`). A record points at its icon through `icon_id`.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database, IconType } from './schema.js';

export interface IconColumns {
  icon_id: number | null;
  icon_type: IconType | null;
  icon_content: string | null;
  icon_file_id: number | null;
}

/** Adds the icon of each row of `table` to a query. */
export function withIcon<Row>(query: SelectQueryBuilder<any, any, Row>, table: string): SelectQueryBuilder<any, any, Row & IconColumns> {
  return query
    .leftJoin('icons as record_icon', 'record_icon.id', `${table}.icon_id`)
    .select(['record_icon.type as icon_type', 'record_icon.content as icon_content', 'record_icon.file_id as icon_file_id']) as SelectQueryBuilder<
    any,
    any,
    Row & IconColumns
  >;
}

export interface IconInput {
  icon?: string | null;
  icon_type?: IconType;
}

/**
 * Creates or changes the icon a record points at and returns the icon id to store:
 * unchanged when the input says nothing about icons, null when `icon` is null.
 * Whatever replaces an uploaded image (another image, an icon, an emoji, no icon), the old
 * image's `files` row is deleted here and its storage key added to `replacedFiles`, for the
 * caller to remove the bytes once the transaction has committed (server/stored-files.ts).
 */
export async function saveIcon(
  trx: Kysely<Database>,
  userId: number,
  currentIconId: number | null,
  input: IconInput,
  imageFileId?: number,
  replacedFiles?: Set<string>,
): Promise<number | null> {
  if (input.icon === undefined && imageFileId === undefined) return currentIconId;
  const oldImage = currentIconId === null ? undefined : await deleteIconImage(trx, userId, currentIconId);
  if (oldImage) replacedFiles?.add(oldImage);
  if (input.icon === null && imageFileId === undefined) return null;
  // Without an icon_type the stored type stays (an emoji stays an emoji); new icons default to `icon`.
  const type = imageFileId !== undefined ? ('image' as const) : input.icon_type;
  const values = { content: input.icon ?? null, file_id: imageFileId ?? null };
  if (currentIconId !== null) {
    await trx
      .updateTable('icons')
      .set({ ...values, ...(type ? { type } : {}), updated_at: new Date() })
      .where('id', '=', currentIconId)
      .where('user_id', '=', userId)
      .execute();
    return currentIconId;
  }
  const row = await trx.insertInto('icons').values({ user_id: userId, type: type ?? 'icon', ...values }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes the uploaded image (`files` row) of an icon, if it has one; returns its storage key. */
async function deleteIconImage(trx: Kysely<Database>, userId: number, iconId: number): Promise<string | undefined> {
  const deleted = await trx
    .deleteFrom('files')
    .where('user_id', '=', userId)
    .where('id', '=', (eb) => eb.selectFrom('icons').select('file_id').where('id', '=', iconId).where('user_id', '=', userId))
    .returning('path')
    .executeTakeFirst();
  return deleted?.path;
}
