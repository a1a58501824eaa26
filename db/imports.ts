// Legacy CSV imports in the database: file_imports (one per upload, with its progress) and
// failed_imports (the rows that could not be imported; a fixed row stays with resolved_at and
// the transaction it produced, and leaves every list and count).
import type { Kysely, Selectable, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database, FailedImportsTable, FileImportsTable, FileImportStatus } from './schema.js';

export type FileImportRow = Selectable<FileImportsTable> & { failed_imports_count: number | string };
export type FailedImportRow = Selectable<FailedImportsTable>;

/** Every column of file_imports plus the live count of its unresolved failed rows. */
export function selectFileImports(db: Kysely<Database>, userId: number): SelectQueryBuilder<any, any, FileImportRow> {
  return db
    .selectFrom('file_imports')
    .selectAll('file_imports')
    .select((eb) =>
      eb
        .selectFrom('failed_imports')
        .select(eb.fn.countAll<number>().as('count'))
        .whereRef('failed_imports.file_import_id', '=', 'file_imports.id')
        .where('failed_imports.resolved_at', 'is', null)
        .as('failed_imports_count'),
    )
    .where('file_imports.user_id', '=', userId) as unknown as SelectQueryBuilder<any, any, FileImportRow>;
}

export function findFileImport(db: Kysely<Database>, userId: number, id: number): Promise<FileImportRow | undefined> {
  return selectFileImports(db, userId).where('file_imports.id', '=', id).executeTakeFirst();
}

export interface NewFileImport {
  userId: number;
  name: string;
  fileType: string;
  /** The stored upload, a `files` row of model 'import'. */
  file: { path: string; mimeType: string; size: number };
  now: Date;
}

/** The upload's file row and its import (status pending, rows not counted); returns the import's id. */
export async function insertFileImport(trx: Transaction<Database>, input: NewFileImport): Promise<number> {
  const file = await trx
    .insertInto('files')
    .values({
      user_id: input.userId,
      model: 'import',
      path: input.file.path,
      original_name: input.name,
      mime_type: input.file.mimeType,
      size: input.file.size,
      type: 'document',
      created_at: input.now,
      updated_at: input.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const row = await trx
    .insertInto('file_imports')
    .values({ user_id: input.userId, name: input.name, file_type: input.fileType, file_id: file.id, created_at: input.now, updated_at: input.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type LockedImport = Awaited<ReturnType<typeof lockImport>>;

/**
 * The import, locked for this transaction, unless another worker holds it (SKIP LOCKED) or it
 * is finished. Only the holder of this lock imports rows or moves `progress`.
 */
export function lockImport(trx: Transaction<Database>, id: number) {
  return trx
    .selectFrom('file_imports')
    .selectAll()
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'processing'])
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** Imports not finished (left by a lost nudge or a stopped worker), oldest first. */
export async function unfinishedImportIds(db: Kysely<Database>, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('file_imports')
    .select('id')
    .where('status', 'in', ['pending', 'processing'])
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function updateImport(
  trx: Kysely<Database>,
  id: number,
  changes: { status?: FileImportStatus; progress?: number; num_rows?: number; error?: string | null; file_id?: null },
  now: Date,
): Promise<void> {
  await trx
    .updateTable('file_imports')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The stored upload of an import (path of its files row), when it still exists. */
export async function importUpload(db: Kysely<Database>, fileId: number | null): Promise<{ id: number; path: string } | undefined> {
  if (fileId === null) return undefined;
  return db.selectFrom('files').select(['id', 'path']).where('id', '=', fileId).executeTakeFirst();
}

/** A failed row: its raw cells as the file had them, and why it failed. */
export type NewFailedRow = Pick<FailedImportsTable, 'amount' | 'currency' | 'type' | 'party' | 'wallet' | 'category' | 'description' | 'date' | 'reason'> & {
  rowNumber: number;
};

export async function insertFailedRows(trx: Transaction<Database>, userId: number, importId: number, rows: NewFailedRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('failed_imports')
    .values(
      rows.map(({ rowNumber, ...values }) => ({
        user_id: userId,
        file_import_id: importId,
        row_number: rowNumber,
        ...values,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

/** The import's unresolved failed rows, in file order. */
export function selectOpenFailedRows(db: Kysely<Database>, userId: number, importId: number): SelectQueryBuilder<Database, 'failed_imports', FailedImportRow> {
  return db
    .selectFrom('failed_imports')
    .selectAll()
    .where('user_id', '=', userId)
    .where('file_import_id', '=', importId)
    .where('resolved_at', 'is', null);
}

/** The user's failed rows with these ids, locked for a fix (any import: the caller checks). */
export function lockFailedRows(trx: Transaction<Database>, userId: number, ids: number[]): Promise<FailedImportRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return trx.selectFrom('failed_imports').selectAll().where('user_id', '=', userId).where('id', 'in', ids).orderBy('id').forUpdate().execute();
}

export async function resolveFailedRows(trx: Transaction<Database>, ids: number[], transactionId: number, now: Date): Promise<void> {
  await trx.updateTable('failed_imports').set({ resolved_at: now, transaction_id: transactionId, updated_at: now }).where('id', 'in', ids).execute();
}

/** The new reason of the import's rows that are still failed (rows of other imports are left alone). */
export async function setFailedReason(db: Kysely<Database>, userId: number, importId: number, ids: number[], reason: string, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('failed_imports')
    .set({ reason, updated_at: now })
    .where('user_id', '=', userId)
    .where('file_import_id', '=', importId)
    .where('id', 'in', ids)
    .where('resolved_at', 'is', null)
    .execute();
}
