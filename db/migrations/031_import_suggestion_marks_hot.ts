// 031 an import's confirm marks its suggestions in place: the confirm sets each imported
// suggestion's status and `transaction_id` (db/import-confirm-runs.ts markBatchImported), 100,000
// rows for a 100,000-row file. That UPDATE paid for the `transaction_id` foreign key's check,
// which locks every transaction the batch has just inserted (16 to 23 of ~40 ms per 2,000,
// EXPLAIN ANALYZE on the bench copy), and for a new entry in every index of the table, because
// the indexed `transaction_id` changed and the pages were full.
//
// The key guarded nothing the confirm does not: it writes the id of the transaction it has
// just inserted, in the same database transaction, and transactions are never deleted but by
// an account's deletion, which takes the sessions and their suggestions with it (every other
// deletion is soft: deleted_at). Its index served only the key's ON DELETE SET NULL. Without
// both, and with pages filled to 40 % (a suggestion's new version, ~20 bytes longer, fits beside
// the old one on its page; at 50 % about one row in seven did not), the mark is a HOT update:
// no index is touched. The table holds transient rows (a session's suggestions), so the space
// is cheap. `fee_transaction_id` keeps its key: the bulk mark leaves
// it null and a fee is written one suggestion at a time.
import { sql, type Kysely } from 'kysely';
import { ownedFk } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table import_suggestions drop constraint import_suggestions_transaction_id_fkey`.execute(db);
  await sql`drop index import_suggestions_transaction_id_idx`.execute(db);
  await sql`alter table import_suggestions set (fillfactor = 40)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table import_suggestions reset (fillfactor)`.execute(db);
  // an id whose transaction is gone would fail the key: it goes null, as the key's SET NULL did
  await sql`update import_suggestions s set transaction_id = null
             where s.transaction_id is not null
               and not exists (select 1 from transactions t where t.id = s.transaction_id and t.user_id = s.user_id)`.execute(db);
  await ownedFk(db, 'import_suggestions', 'transaction_id', 'transactions', 'set null');
  await db.schema.createIndex('import_suggestions_transaction_id_idx').on('import_suggestions').column('transaction_id').where(sql.ref('transaction_id'), 'is not', null).execute();
}
