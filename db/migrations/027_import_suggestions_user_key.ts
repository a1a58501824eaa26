// 027 import suggestions without their own user key: a suggestion's `user_id` is already bound
// by the session's key, (import_session_id, user_id) -> import_sessions (id, user_id) ON DELETE
// CASCADE, and the session's user by its own key to users: the separate foreign key to users
// and the index on user_id that served it checked and stored the same thing again for every
// row. An import session stores 100,000 suggestions and its confirm rewrites them all (marking
// them imported is not a HOT update: it sets the indexed transaction_id), so each row paid one
// more foreign-key check and two more index entries: 70 → 50 ms of database CPU to store
// 6,000 suggestions, 60 → 40 ms to mark 6,000 imported (rolled-back statements, backend CPU
// from /proc). Deleting an account still deletes its suggestions, through
// its sessions. No query reads suggestions by user alone (every one names a session).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table import_suggestions drop constraint import_suggestions_user_id_fkey`.execute(db);
  await sql`drop index import_suggestions_user_id_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table import_suggestions add constraint import_suggestions_user_id_fkey foreign key (user_id) references users (id) on delete cascade`.execute(db);
  await sql`create index import_suggestions_user_id_idx on import_suggestions (user_id)`.execute(db);
}
