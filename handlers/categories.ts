// Categories: income and expense categories. Everything but the category's own columns is the
// shared synced-resource flow (handlers/shared/crud.ts). Particular to categories: names are
// unique per user among live categories (both types, ignoring case), an icon may be an
// uploaded image (multipart), and the predefined set can be seeded in the caller's language.
// A deleted category stays as a tombstone, so transactions keep their links to it.
import type { Kysely, Transaction } from 'kysely';
import { defaultCategories, nameKey, seedLanguage, type DefaultCategory } from '../domain/default-categories.js';
import { saveIcon, withIcon } from '../db/icons.js';
import { lockCategoryNames } from '../db/category-names.js';
import type { Database } from '../db/schema.js';
import { uniqueSlug } from '../db/slugs.js';
import { selectSynced } from '../db/sync.js';
import { created } from '../server/envelope.js';
import { invalidField } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { UploadedFile, UploadedFiles } from '../server/multipart.js';
import { sniffUpload, type FileStorage, type SniffedType } from '../server/storage.js';
import { removeStoredFiles } from '../server/stored-files.js';
import { syncedResource } from './shared/crud.js';
import { toCategory, type CategoryRow } from './views/category.js';

const selectCategories = (db: Kysely<Database>, userId: number) => withIcon(selectSynced(db, 'categories', userId), 'categories');

const categories = syncedResource<CategoryRow, ReturnType<typeof toCategory>>({
  table: 'categories',
  label: 'Category',
  select: selectCategories,
  view: toCategory,
  order: [['categories.id', 'asc']],
});

export const categoryHandlers = {
  listCategories: (ctx: HandlerContext<'listCategories'>) => {
    const { type } = ctx.query;
    return categories.list(ctx, (q) => (type ? q.where('categories.type', '=', type) : q));
  },

  getCategory: (ctx: HandlerContext<'getCategory'>) => categories.show(ctx),

  createCategory: async (ctx: HandlerContext<'createCategory'>) => {
    const image = await iconImageFrom(ctx.files, ctx.services.storage);
    return keepingImage(
      image,
      () =>
        categories.create(ctx, async (trx, columns) => {
          const { body, user } = ctx;
          await requireFreeName(trx, user.id, body.name);
          const row = await trx
            .insertInto('categories')
            .values({
              ...columns,
              name: body.name,
              slug: await uniqueSlug(trx, 'categories', user.id, body.name),
              type: body.type,
              description: body.description ?? null,
              icon_id: await saveIcon(trx, user.id, null, body, await image?.save(trx, user.id)),
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          return row.id;
        }),
      // a replay (200) wrote nothing, so it keeps no image either
      (result) => result.status === 201,
    );
  },

  updateCategory: async (ctx: HandlerContext<'updateCategory'>) => {
    const image = await iconImageFrom(ctx.files, ctx.services.storage);
    const replacedImages = new Set<string>();
    const result = await keepingImage(
      image,
      () =>
        categories.update(ctx, async (trx, category, columns) => {
          const { body, user } = ctx;
          if (body.name !== undefined) await requireFreeName(trx, user.id, body.name, category.id);
          await trx
            .updateTable('categories')
            .set({
              ...columns,
              name: body.name,
              type: body.type,
              description: body.description,
              icon_id: await saveIcon(trx, user.id, category.icon_id, body, await image?.save(trx, user.id), replacedImages),
            })
            .where('id', '=', category.id)
            .execute();
        }),
      () => true,
    );
    await removeStoredFiles(ctx.services.storage, replacedImages, ctx.log);
    return result;
  },

  deleteCategory: (ctx: HandlerContext<'deleteCategory'>) => categories.remove(ctx),

  seedDefaultCategories: async (ctx: HandlerContext<'seedDefaultCategories'>) => {
    const { user, db } = ctx;
    const defaults = defaultCategories(seedLanguage(ctx.request.headers['accept-language']));
    const ids = await db.transaction().execute((trx) => insertMissingDefaults(trx, user.id, defaults, ctx.services.now()));
    const rows = ids.length > 0 ? await selectCategories(db, user.id).where('categories.id', 'in', ids).orderBy('categories.id').execute() : [];
    return created(
      { created: rows.length, skipped: defaults.length - rows.length, categories: rows.map(toCategory) },
      'Default categories created successfully',
    );
  },
} satisfies Partial<Handlers>;

// ---------------------------------------------------------------- unique names and seeding

// lockCategoryNames (db/category-names.ts) serialises the caller's category-name checks with the
// writes that follow them, so two simultaneous requests cannot both take one name (no unique
// index can say "ignoring case among live rows of either type" and still allow tombstones to
// keep their names). Imports creating categories by name take the same lock.

/** 422 on `name` when another live category of the caller has this name, ignoring case. */
async function requireFreeName(trx: Transaction<Database>, userId: number, name: string, exceptId?: number): Promise<void> {
  await lockCategoryNames(trx, userId);
  const clash = await trx
    .selectFrom('categories')
    .select('id')
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])))
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
    .executeTakeFirst();
  if (clash) throw invalidField('name', 'A category with this name already exists.');
}

/**
 * Creates the defaults whose names none of the caller's live categories has (ignoring case
 * and accents) and returns their ids; a second call therefore creates nothing.
 */
async function insertMissingDefaults(trx: Transaction<Database>, userId: number, defaults: DefaultCategory[], now: Date): Promise<number[]> {
  await lockCategoryNames(trx, userId);
  const live = await trx.selectFrom('categories').select('name').where('user_id', '=', userId).where('deleted_at', 'is', null).execute();
  const taken = new Set(live.map((row) => nameKey(row.name)));
  const ids: number[] = [];
  for (const category of defaults) {
    if (taken.has(nameKey(category.name))) continue;
    taken.add(nameKey(category.name));
    const row = await trx
      .insertInto('categories')
      .values({ user_id: userId, ...category, slug: await uniqueSlug(trx, 'categories', userId, category.name), updated_at: now, last_synced_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return ids;
}

// ---------------------------------------------------------------- uploaded icon images

const ICON_IMAGE_TYPES = ['image/png', 'image/jpeg'];
const ICON_IMAGE_MAX_BYTES = 1024 * 1024;

/** An uploaded icon image, checked from its bytes; stored before the write, removed unless the write keeps it. */
class IconImage {
  private key: string | undefined;

  constructor(
    private readonly file: UploadedFile,
    private readonly type: SniffedType,
    private readonly storage: FileStorage,
  ) {}

  /**
   * Stores the blob, once. Called before the write's transaction, never inside it: the store may
   * be the database itself, and the embedded one serves one transaction at a time.
   */
  async store(): Promise<void> {
    this.key ??= await this.storage.put('icons', this.file.data, this.type.extension, this.type.mime);
  }

  /** The blob's `files` row (however often the write is retried); returns the row id. */
  async save(trx: Transaction<Database>, userId: number): Promise<number> {
    if (!this.key) throw new Error('an icon image is stored before it is saved');
    const row = await trx
      .insertInto('files')
      .values({
        user_id: userId,
        model: 'icon',
        transaction_id: null,
        path: this.key,
        original_name: this.file.filename || null,
        mime_type: this.type.mime,
        size: this.file.data.length,
        type: 'image',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Removes the stored blob: the write that would have referenced it did not happen. */
  async discard(): Promise<void> {
    if (this.key) await this.storage.delete(this.key);
    this.key = undefined;
  }
}

/** The `icon` file of a multipart request; 422 on `icon` unless it is a PNG or JPEG of at most 1 MB. */
async function iconImageFrom(files: UploadedFiles, storage: FileStorage): Promise<IconImage | undefined> {
  const file = files.icon?.[0];
  if (!file) return undefined;
  const type = await sniffUpload(file.data);
  if (!type || !ICON_IMAGE_TYPES.includes(type.mime)) throw invalidField('icon', 'The icon must be a PNG or JPEG image.');
  if (file.data.length > ICON_IMAGE_MAX_BYTES) throw invalidField('icon', 'The icon may not be larger than 1 MB.');
  return new IconImage(file, type, storage);
}

/** Runs a write that may store `image`; the blob is removed unless the write kept it. */
async function keepingImage<R>(image: IconImage | undefined, write: () => Promise<R>, kept: (result: R) => boolean): Promise<R> {
  await image?.store();
  try {
    const result = await write();
    if (!kept(result)) await image?.discard();
    return result;
  } catch (error) {
    await image?.discard();
    throw error;
  }
}
