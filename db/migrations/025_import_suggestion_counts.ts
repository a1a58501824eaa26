// 025 import suggestion counts: a session's `total_suggestions`, `duplicates_found` and
// `progress` were counted over its suggestions on every read, ~50 ms at 100,000 suggestions,
// and a client polls the session while it is analysed and confirmed (at 100 ms, a good part of
// a core of the database, competing with the job it watches).
//
// import_suggestion_counts holds deltas of those counts, one row per statement that changed
// them, written by statement triggers with transition tables on import_suggestions: a session
// has a few hundred rows at most, summed on read. Rows are only ever inserted (never updated), so
// concurrent writers of a session never wait on each other here; and there is deliberately no
// foreign key to import_sessions: its check would lock the session row (FOR KEY SHARE), which
// a whole-session confirm holds FOR UPDATE while a small confirm of the same session holds a
// suggestion the batch waits for. Deltas are written only for sessions that still exist, and a
// session's rows go when its suggestions are deleted with it.
import { sql, type Kysely } from 'kysely';

const changes = (rows: string, sign: string) => `
  select import_session_id, user_id, ${sign}::bigint as total,
         ${sign} * (duplicate is not null)::int as duplicates, ${sign} * (status = 'confirmed')::int as imported
    from ${rows}`;

const insertDelta = (rows: string) => `
  insert into import_suggestion_counts (import_session_id, user_id, total, duplicates, imported)
  select c.import_session_id, c.user_id, sum(c.total), sum(c.duplicates), sum(c.imported)
    from (${rows}) c join import_sessions s on s.id = c.import_session_id
   group by c.import_session_id, c.user_id
  having sum(c.total) <> 0 or sum(c.duplicates) <> 0 or sum(c.imported) <> 0;`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_suggestion_counts')
    .addColumn('import_session_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('duplicates', 'bigint', (c) => c.notNull())
    .addColumn('imported', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('import_suggestion_counts_session_idx').on('import_suggestion_counts').column('import_session_id').execute();
  await sql`create function import_suggestion_counts_after_change() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(insertDelta(changes('new_rows', '1')))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(insertDelta(changes('old_rows', '-1')))}
        -- the session itself deleted (its suggestions cascade): its counts go too
        delete from import_suggestion_counts c
         where c.import_session_id in (select import_session_id from old_rows)
           and not exists (select 1 from import_sessions s where s.id = c.import_session_id);
      else
        ${sql.raw(insertDelta(`${changes('new_rows', '1')} union all ${changes('old_rows', '-1')}`))}
      end if;
      return null;
    end
  $$`.execute(db);
  await sql`create trigger import_suggestions_counts_insert after insert on import_suggestions
    referencing new table as new_rows for each statement execute function import_suggestion_counts_after_change()`.execute(db);
  await sql`create trigger import_suggestions_counts_update after update on import_suggestions
    referencing old table as old_rows new table as new_rows for each statement execute function import_suggestion_counts_after_change()`.execute(db);
  await sql`create trigger import_suggestions_counts_delete after delete on import_suggestions
    referencing old table as old_rows for each statement execute function import_suggestion_counts_after_change()`.execute(db);
  await sql.raw(insertDelta(changes('import_suggestions', '1'))).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`import_suggestions_counts_${event}`)} on import_suggestions`.execute(db);
  await sql`drop function import_suggestion_counts_after_change()`.execute(db);
  await db.schema.dropTable('import_suggestion_counts').execute();
}
