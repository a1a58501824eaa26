// 020 duplicate lookup: an import session flags a suggestion as a duplicate of a live
// transaction of the same user and amount within a few days. Analysis asks that of 2,000
// suggestions per query; without this index each one scanned every transaction of a week.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('transactions_user_amount_datetime_idx')
    .on('transactions')
    .columns(['user_id', 'amount', 'datetime'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_user_amount_datetime_idx').execute();
}
