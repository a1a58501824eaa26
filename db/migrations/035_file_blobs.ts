// 035 uploaded bytes kept in the database (STORAGE_URL=database): the store every process of a
// deployment reaches with nothing more to run, and the database's backup holds the files too.
// A file is a row of `file_blobs` and its bytes in 1 MiB rows of `file_blob_chunks`, so a
// download streams chunk by chunk instead of holding a whole file (up to the upload limit) in
// memory; rows are keyed by the storage key that `files.path` and the outreach images name.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_blobs')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('file_blob_chunks')
    .addColumn('key', 'text', (c) => c.notNull().references('file_blobs.key').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_blob_chunks_pkey', ['key', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('file_blob_chunks').execute();
  await db.schema.dropTable('file_blobs').execute();
}
