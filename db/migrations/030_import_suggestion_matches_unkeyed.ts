// 030 import suggestions' matches without foreign keys: `wallet_id`, `party_id` and
// `category_id` (migration 011) say which of the user's records analysis matched a row's names
// to. Their foreign keys checked each of the up to 100,000 rows an analysis stores (28 of the
// 53 ms of an INSERT of 2,000 matched suggestions, EXPLAIN ANALYZE on the bench copy) and
// locked every matched record FOR KEY SHARE, and their indexes existed only for the keys'
// ON DELETE SET NULL. They guarded nothing a live check does not: wallets, parties and
// categories are only ever soft-deleted (deleted_at), which no key sees, and the one hard
// delete, an account's, takes its sessions and their suggestions with it. Every confirm
// checks a matched id live (`liveIds` / `findLive`) and treats one that is gone as unmatched,
// so an id whose record was hard-deleted (by hand) is handled like a soft-deleted one; a GET
// of the session shows the id analysis matched, as it does for a soft-deleted record.
import { sql, type Kysely } from 'kysely';
import { ownedFk } from './helpers.js';

const MATCHES = [
  ['wallet_id', 'wallets'],
  ['party_id', 'parties'],
  ['category_id', 'categories'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [column] of MATCHES) {
    await sql`alter table import_suggestions drop constraint ${sql.id(`import_suggestions_${column}_fkey`)}`.execute(db);
    await sql`drop index ${sql.id(`import_suggestions_${column}_idx`)}`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [column, table] of MATCHES) {
    // an id whose record is gone would fail the key: it goes null, as the key's SET NULL did
    await sql`update import_suggestions s set ${sql.id(column)} = null
               where ${sql.ref(`s.${column}`)} is not null
                 and not exists (select 1 from ${sql.table(table)} r where r.id = ${sql.ref(`s.${column}`)} and r.user_id = s.user_id)`.execute(db);
    await ownedFk(db, 'import_suggestions', column, table, 'set null');
    await db.schema
      .createIndex(`import_suggestions_${column}_idx`)
      .on('import_suggestions')
      .column(column)
      .where(sql.ref(column), 'is not', null)
      .execute();
  }
}
