// 013 statistics index: the statistics read a user's live rows of a date window (sums per day,
// per category/party/intent, the largest rows). 002's (user_id, datetime) index made each of
// them a bitmap heap scan (EXPLAIN ANALYZE at 1,000,000 rows: ~27,000 heap rows per 30-day
// window, the largest part of GET /stats); this partial index carries every column they read,
// so each is an index-only scan.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index transactions_user_live_window_idx
    on transactions (user_id, datetime)
    include (type, amount, wallet_id, transfer_id, party_id, intent, id)
    where deleted_at is null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists transactions_user_live_window_idx`.execute(db);
}
