// 005 imports: the CSV pipeline (file_imports + failed_imports) and the analyze/review/confirm
// pipeline (import_sessions + import_suggestions).
//
// Non-obvious choices:
// - Suggestions are rows (import_suggestions), not a jsonb array on the session: confirm must be
//   idempotent per (session, index), and a row gives that a unique key and a status to lock:
//   `update import_suggestions set status = 'confirmed' ... where status = 'pending'` claims an
//   index exactly once; transaction_id (and fee_transaction_id) record what it created.
//   suggestion_index is the zero-based position the API calls `index`.
// - Suggestion fields keep what was extracted: names (wallet, party, category) as text, `date`
//   as the raw text (CSV keeps it), amounts as numeric. `duplicate` is the match object or null.
// - failed_imports keep every raw CSV value as text plus the reason; a fixed row is kept with
//   resolved_at and the transaction it produced, so the fix endpoint can report per row.
// - Uploaded files are rows of `files` (model 'import'); file_id is set null when the blob row
//   goes (imports delete the upload after processing).
import { sql, type Kysely } from 'kysely';
import { oneOf, ownedFk, withId, withOwnerKey, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('file_imports')
    .$call(withId)
    .$call(withUser)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('file_id', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('num_rows', 'integer', (c) => c.notNull().defaultTo(-1))
    .addColumn('error', 'text')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'file_imports'))
    .addCheckConstraint('file_imports_status_check', oneOf('status', ['pending', 'processing', 'completed', 'failed']))
    .addCheckConstraint('file_imports_progress_check', sql`progress >= 0`)
    .addCheckConstraint('file_imports_num_rows_check', sql`num_rows >= -1`)
    .execute();
  await ownedFk(db, 'file_imports', 'file_id', 'files', 'set null');
  await db.schema
    .createIndex('file_imports_user_created_idx')
    .on('file_imports')
    .columns(['user_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('failed_imports')
    .$call(withId)
    .$call(withUser)
    .addColumn('file_import_id', 'bigint', (c) => c.notNull())
    .addColumn('row_number', 'integer')
    .addColumn('amount', 'text')
    .addColumn('currency', 'text')
    .addColumn('type', 'text')
    .addColumn('party', 'text')
    .addColumn('wallet', 'text')
    .addColumn('category', 'text')
    .addColumn('description', 'text')
    .addColumn('date', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'timestamptz')
    .addColumn('transaction_id', 'bigint')
    .$call(withTimestamps)
    .execute();
  await ownedFk(db, 'failed_imports', 'file_import_id', 'file_imports', 'cascade');
  await ownedFk(db, 'failed_imports', 'transaction_id', 'transactions', 'set null');
  await db.schema
    .createIndex('failed_imports_file_import_idx')
    .on('failed_imports')
    .columns(['file_import_id', 'id'])
    .execute();
  await db.schema.createIndex('failed_imports_user_id_idx').on('failed_imports').column('user_id').execute();

  await db.schema
    .createTable('import_sessions')
    .$call(withId)
    .$call(withUser)
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('document_type', 'text')
    .addColumn('processor', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('analyzing'))
    .addColumn('file_id', 'bigint')
    .addColumn('metadata', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('confirmed_at', 'timestamptz')
    .$call(withTimestamps)
    .$call((tb) => withOwnerKey(tb, 'import_sessions'))
    .addCheckConstraint(
      'import_sessions_status_check',
      oneOf('status', ['analyzing', 'extracting', 'enriching', 'checking', 'ready', 'confirmed', 'failed']),
    )
    .addCheckConstraint(
      'import_sessions_document_type_check',
      oneOf('document_type', ['bank_statement', 'receipt', 'invoice', 'pay_stub', 'utility_bill']),
    )
    .execute();
  await ownedFk(db, 'import_sessions', 'file_id', 'files', 'set null');
  await db.schema
    .createIndex('import_sessions_user_status_idx')
    .on('import_sessions')
    .columns(['user_id', 'status'])
    .execute();
  await db.schema
    .createIndex('import_sessions_user_created_idx')
    .on('import_sessions')
    .columns(['user_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('import_suggestions')
    .$call(withId)
    .$call(withUser)
    .addColumn('import_session_id', 'bigint', (c) => c.notNull())
    .addColumn('suggestion_index', 'integer', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)')
    .addColumn('currency', 'text')
    .addColumn('type', 'text')
    .addColumn('party', 'text')
    .addColumn('wallet', 'text')
    .addColumn('category', 'text')
    .addColumn('description', 'text')
    .addColumn('date', 'text')
    .addColumn('confidence', 'numeric(5, 4)', (c) => c.notNull().defaultTo(1))
    .addColumn('document_type', 'text')
    .addColumn('fee', 'numeric(19, 4)')
    .addColumn('tax', 'numeric(19, 4)')
    .addColumn('account', 'text')
    .addColumn('reference', 'text')
    .addColumn('duplicate', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('transaction_id', 'bigint')
    .addColumn('fee_transaction_id', 'bigint')
    .addColumn('error', 'text')
    .addColumn('confirmed_at', 'timestamptz')
    .$call(withTimestamps)
    .addUniqueConstraint('import_suggestions_session_index_key', ['import_session_id', 'suggestion_index'])
    .addCheckConstraint('import_suggestions_index_check', sql`suggestion_index >= 0`)
    .addCheckConstraint('import_suggestions_type_check', oneOf('type', ['income', 'expense']))
    .addCheckConstraint('import_suggestions_status_check', oneOf('status', ['pending', 'confirmed', 'failed']))
    .addCheckConstraint('import_suggestions_confidence_check', sql`confidence between 0 and 1`)
    .execute();
  await ownedFk(db, 'import_suggestions', 'import_session_id', 'import_sessions', 'cascade');
  await ownedFk(db, 'import_suggestions', 'transaction_id', 'transactions', 'set null');
  await ownedFk(db, 'import_suggestions', 'fee_transaction_id', 'transactions', 'set null');
  await db.schema.createIndex('import_suggestions_user_id_idx').on('import_suggestions').column('user_id').execute();
  for (const column of ['transaction_id', 'fee_transaction_id']) {
    await db.schema
      .createIndex(`import_suggestions_${column}_idx`)
      .on('import_suggestions')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
  await db.schema
    .createIndex('failed_imports_transaction_id_idx')
    .on('failed_imports')
    .column('transaction_id')
    .where(sql.ref('transaction_id'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['import_suggestions', 'import_sessions', 'failed_imports', 'file_imports']) {
    await db.schema.dropTable(table).execute();
  }
}
