// 046 transaction splits: an income or expense divided into lines (amount, category, party,
// description) that add up to its amount. The splits belong to the transaction record (one
// sync stamp: every write of splits also updates the transaction row), so they have no sync
// columns of their own; its category links stay the split categories (what reference clients
// read and what the list's category filter and totals use).
//
// Figures: the statistics (021/024/028) and budget (023) summaries keep counting each
// transaction whole, under its first category and party (statistics) or under each linked
// category (budgets), as their triggers do. For a split transaction a CORRECTION is kept beside
// them, per transaction, in split_stat_parts and split_budget_parts: the whole-transaction rows
// taken away and one row per split category (and party) added. A correction is a function of
// the current state only (the transaction row, its links, its splits), so keeping it exact needs
// no reasoning about statement order: whenever any of them changes, the transaction's stored
// correction is taken out of the summaries and the one computed now is put in
// (split_parts_refresh). Budgets also keep budget_multi_links rows of a split transaction
// linked to several categories; its readers skip them (the corrected category rows are exact).
//
// - triggers: before any row of a transaction changes (the transaction, a link, a line) its
//   stored correction comes out of the summaries; after the statement (and after the base
//   triggers) the current one goes in: transaction_splits (any write), transactions (update:
//   the rows that have splits), transaction_categories (any write: the transactions that have
//   splits); users (delete: the account's corrections go);
// - the rebuilds that a time zone change runs (stats_sums_rebuild, budget_sums_rebuild) are
//   wrapped: the base rebuild, then the users' corrections are computed again in the new zone.
//   A later migration that re-creates those functions must keep calling the correction step.
import { sql, type Kysely } from 'kysely';
import { createStatementTriggers, ownedFk, withId, withUser } from './helpers.js';

/** The user-existence guard every summary writer uses (an account deletion wipes its rows first). */
const LIVE_USER = (alias: string) => `exists (select 1 from users where users.id = ${alias}.user_id)`;

/** Rows of the counted split transactions among `ids`, with their first category (alias t). */
const splitTransactions = (ids: string, extra: string) => `
  select t.id, t.user_id, t.wallet_id, t.type, t.amount, t.party_id, coalesce(t.group_id, 0) as group_id, t.datetime,
         coalesce((select min(tc.category_id) from transaction_categories tc where tc.transaction_id = t.id), 0) as first_category
    from transactions t
   where t.id = any(${ids}) and t.deleted_at is null and t.transfer_id is null and ${extra}
     and exists (select 1 from transaction_splits s where s.transaction_id = t.id)
     and ${LIVE_USER('t')}`;

/** Statistics correction rows of the transactions `ids` as they are now. */
const freshStatParts = (ids: string) => `
  with t as materialized (select x.*, (x.datetime at time zone stats_time_zone(x.user_id))::date as day from (${splitTransactions(ids, 'true')}) x)
  select t.id as transaction_id, t.user_id, t.day, t.wallet_id, t.type, 'category' as dimension, coalesce(s.category_id, 0) as key_id, sum(s.amount) as total, 1::bigint as count
    from t join transaction_splits s on s.transaction_id = t.id group by 1, 2, 3, 4, 5, 6, 7
  union all
  select t.id, t.user_id, t.day, t.wallet_id, t.type, 'category', t.first_category, -t.amount, -1::bigint from t
  union all
  select t.id, t.user_id, t.day, t.wallet_id, t.type, 'party', coalesce(s.party_id, t.party_id, 0), sum(s.amount), 1::bigint
    from t join transaction_splits s on s.transaction_id = t.id group by 1, 2, 3, 4, 5, 6, 7
  union all
  select t.id, t.user_id, t.day, t.wallet_id, t.type, 'party', coalesce(t.party_id, 0), -t.amount, -1::bigint from t`;

/** Budget correction rows of the transactions `ids` as they are now (expenses only). */
const freshBudgetParts = (ids: string) => `
  with t as materialized (select x.*, (x.datetime at time zone budget_sum_zone(x.user_id))::date as day from (${splitTransactions(ids, `t.type = 'expense'`)}) x)
  select t.id as transaction_id, t.user_id, s.category_id, t.day, t.wallet_id, t.group_id, sum(s.amount) as total, 1::bigint as count
    from t join transaction_splits s on s.transaction_id = t.id where s.category_id is not null group by 1, 2, 3, 4, 5, 6
  union all
  select t.id, t.user_id, l.category_id, t.day, t.wallet_id, t.group_id, -t.amount, -1::bigint
    from t join transaction_categories l on l.transaction_id = t.id`;

const STAT_TABLES = (dimension: 'category' | 'party') =>
  (['day', 'month', 'year'] as const).map((period) => ({ table: `stats_${dimension}_${period}_sums`, period }));

/** Upserts of `changes` (a CTE of stat part rows) into the six statistics tables, as CTEs and a last statement. */
function statUpserts(): string {
  const upserts = (['category', 'party'] as const).flatMap((dimension) =>
    STAT_TABLES(dimension).map(({ table, period }) => {
      const key = dimension === 'category' ? 'category_id' : 'party_id';
      const day = period === 'day' ? 'day' : `date_trunc('${period}', day)::date`;
      return `insert into ${table} as s (user_id, day, wallet_id, type, ${key}, total, count)
        select user_id, ${day}, wallet_id, type, key_id, sum(total), sum(count) from changes where dimension = '${dimension}'
         group by 1, 2, 3, 4, 5 having sum(count) <> 0 or sum(total) <> 0 order by 1, 2, 3, 4, 5
        on conflict (user_id, day, wallet_id, type, ${key}) do update set total = s.total + excluded.total, count = s.count + excluded.count`;
    }),
  );
  return `${upserts.slice(0, -1).map((upsert, i) => `, u${i} as (${upsert} returning 1)`).join('')} ${upserts[upserts.length - 1]}`;
}

const STAT_COLUMNS = 'transaction_id, user_id, day, wallet_id, type, dimension, key_id, total, count';
const BUDGET_COLUMNS = 'transaction_id, user_id, category_id, day, wallet_id, group_id, total, count';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transaction_splits')
    .$call(withId)
    .addColumn('transaction_id', 'bigint', (c) => c.notNull())
    .$call(withUser)
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('amount', 'numeric(19, 4)', (c) => c.notNull())
    .addColumn('category_id', 'bigint')
    .addColumn('party_id', 'bigint')
    .addColumn('description', 'text')
    .addUniqueConstraint('transaction_splits_position_key', ['transaction_id', 'position'])
    .addCheckConstraint('transaction_splits_amount_check', sql`amount > 0`)
    .execute();
  await ownedFk(db, 'transaction_splits', 'transaction_id', 'transactions', 'cascade');
  await ownedFk(db, 'transaction_splits', 'category_id', 'categories', 'set null');
  await ownedFk(db, 'transaction_splits', 'party_id', 'parties', 'set null');
  // the foreign keys' look-ups when a category or party goes, and the figures' per-category reads
  await sql`create index transaction_splits_category_idx on transaction_splits (category_id, transaction_id) where category_id is not null`.execute(db);
  await sql`create index transaction_splits_party_idx on transaction_splits (party_id) where party_id is not null`.execute(db);

  await sql`create table split_stat_parts (
    transaction_id bigint not null, user_id bigint not null, day date not null, wallet_id bigint not null, type text not null,
    dimension text not null, key_id bigint not null, total numeric not null, count bigint not null)`.execute(db);
  await sql`create index split_stat_parts_transaction_idx on split_stat_parts (transaction_id)`.execute(db);
  await sql`create index split_stat_parts_user_idx on split_stat_parts (user_id)`.execute(db);
  await sql`create table split_budget_parts (
    transaction_id bigint not null, user_id bigint not null, category_id bigint not null, day date not null,
    wallet_id bigint not null, group_id bigint not null, total numeric not null, count bigint not null)`.execute(db);
  await sql`create index split_budget_parts_transaction_idx on split_budget_parts (transaction_id)`.execute(db);
  await sql`create index split_budget_parts_user_idx on split_budget_parts (user_id)`.execute(db);

  // Each family's stored corrections of `ids` out, and (`recompute`) the current ones in;
  // `applied` false: the stored ones are not in the summaries (that family's rebuild just replaced
  // them), so they are only forgotten. Wallets are locked first: the writers' lock order
  // (moveBalances, 026).
  const emptied = (tables: string[]) =>
    tables.map((table) => `delete from ${table} where count = 0 and user_id in (select t.user_id from transactions t where t.id = any(ids));`).join('\n');
  const lockWallets = `perform 1 from wallets w where w.id in (select t.wallet_id from transactions t where t.id = any(ids)) order by w.id for no key update;`;
  await sql`create function split_stat_parts_refresh(ids bigint[], applied boolean, recompute boolean) returns void language plpgsql as $$
    begin
      ${sql.raw(lockWallets)}
      with gone as (delete from split_stat_parts p where p.transaction_id = any(ids) returning p.*),
      fresh as (insert into split_stat_parts (${sql.raw(STAT_COLUMNS)}) select * from (${sql.raw(freshStatParts('ids'))}) f where recompute returning *),
      changes as materialized (
        select user_id, day, wallet_id, type, dimension, key_id, -total as total, -count as count from gone g where applied and ${sql.raw(LIVE_USER('g'))}
        union all select user_id, day, wallet_id, type, dimension, key_id, total, count from fresh)
      ${sql.raw(statUpserts())};
      ${sql.raw(emptied([...STAT_TABLES('category'), ...STAT_TABLES('party')].map(({ table }) => table)))}
    end
  $$`.execute(db);
  await sql`create function split_budget_parts_refresh(ids bigint[], applied boolean, recompute boolean) returns void language plpgsql as $$
    begin
      ${sql.raw(lockWallets)}
      with gone as (delete from split_budget_parts p where p.transaction_id = any(ids) returning p.*),
      fresh as (insert into split_budget_parts (${sql.raw(BUDGET_COLUMNS)}) select * from (${sql.raw(freshBudgetParts('ids'))}) f where recompute returning *)
      insert into budget_day_sums as s (user_id, category_id, day, wallet_id, group_id, total, count)
      select user_id, category_id, day, wallet_id, group_id, sum(total), sum(count) from (
        select user_id, category_id, day, wallet_id, group_id, -total as total, -count as count from gone g where applied and ${sql.raw(LIVE_USER('g'))}
        union all select user_id, category_id, day, wallet_id, group_id, total, count from fresh) c
       group by 1, 2, 3, 4, 5 having sum(count) <> 0 or sum(total) <> 0 order by 1, 2, 3, 4, 5
      on conflict (user_id, category_id, day, wallet_id, group_id) do update set total = s.total + excluded.total, count = s.count + excluded.count;
      ${sql.raw(emptied(['budget_day_sums']))}
    end
  $$`.execute(db);
  await sql`create function split_parts_refresh(ids bigint[]) returns void language plpgsql as $$
    begin
      perform split_stat_parts_refresh(ids, true, true);
      perform split_budget_parts_refresh(ids, true, true);
    end
  $$`.execute(db);

  // The stored corrections of a transaction come out of the summaries BEFORE any row of it (the
  // transaction, a link, a line) changes: the base triggers then see summary rows of their own
  // contributions only, whose count reaching 0 means their total did too (their clean-up deletes
  // such rows; a correction mixed in would be deleted with them). After the statement, and after
  // the base triggers (the names sort last), the current correction goes in.
  await sql`create function split_parts_take_out() returns trigger language plpgsql as $$
    declare tid bigint;
    begin
      if tg_table_name = 'transactions' then
        tid := old.id;
      elsif tg_op = 'INSERT' then
        tid := new.transaction_id;
      else
        tid := old.transaction_id;
      end if;
      if exists (select 1 from split_stat_parts p where p.transaction_id = tid) or exists (select 1 from split_budget_parts p where p.transaction_id = tid) then
        perform split_stat_parts_refresh(array[tid], true, false);
        perform split_budget_parts_refresh(array[tid], true, false);
      end if;
      if tg_op = 'DELETE' then return old; end if;
      return new;
    end
  $$`.execute(db);
  await sql`create trigger transactions_split_parts_out before update or delete on transactions for each row execute function split_parts_take_out()`.execute(db);
  await sql`create trigger transaction_categories_split_parts_out before insert or update or delete on transaction_categories for each row execute function split_parts_take_out()`.execute(db);
  await sql`create trigger transaction_splits_parts_out before insert or update or delete on transaction_splits for each row execute function split_parts_take_out()`.execute(db);

  // ---- triggers ---------------------------------------------------------------------------------
  await sql`create function split_parts_after_splits() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        perform split_parts_refresh(array(select distinct transaction_id from new_rows));
      elsif tg_op = 'DELETE' then
        perform split_parts_refresh(array(select distinct transaction_id from old_rows));
      else
        perform split_parts_refresh(array(select transaction_id from new_rows union select transaction_id from old_rows));
      end if;
      return null;
    end
  $$`.execute(db);
  await sql`create function split_parts_after_transactions() returns trigger language plpgsql as $$
    declare ids bigint[];
    begin
      ids := array(select n.id from new_rows n where exists (select 1 from transaction_splits s where s.transaction_id = n.id));
      if cardinality(ids) > 0 then perform split_parts_refresh(ids); end if;
      return null;
    end
  $$`.execute(db);
  await sql`create function split_parts_after_links() returns trigger language plpgsql as $$
    declare ids bigint[];
    begin
      if tg_op = 'INSERT' then
        ids := array(select distinct transaction_id from new_rows);
      elsif tg_op = 'DELETE' then
        ids := array(select distinct transaction_id from old_rows);
      else
        ids := array(select transaction_id from new_rows union select transaction_id from old_rows);
      end if;
      ids := array(select i from unnest(ids) i where exists (select 1 from transaction_splits s where s.transaction_id = i));
      if cardinality(ids) > 0 then perform split_parts_refresh(ids); end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'transaction_splits', 'transaction_splits_parts', 'split_parts_after_splits');
  await createStatementTriggers(db, 'transaction_categories', 'transaction_categories_zz_split_parts', 'split_parts_after_links');
  await sql`create trigger transactions_zz_split_parts_update after update on transactions
    referencing new table as new_rows for each statement execute function split_parts_after_transactions()`.execute(db);
  await sql`create function split_parts_after_users() returns trigger language plpgsql as $$
    begin
      delete from split_stat_parts where user_id in (select id from old_rows);
      delete from split_budget_parts where user_id in (select id from old_rows);
      return null;
    end
  $$`.execute(db);
  await sql`create trigger users_split_parts_delete after delete on users
    referencing old table as old_rows for each statement execute function split_parts_after_users()`.execute(db);

  // ---- the zone rebuilds: base, then the users' corrections again -------------------------------
  for (const [name, refresh] of [['stats_sums_rebuild', 'split_stat_parts_refresh'], ['budget_sums_rebuild', 'split_budget_parts_refresh']]) {
    await sql`alter function ${sql.id(name)}(bigint[]) rename to ${sql.id(`${name}_base`)}`.execute(db);
    await sql`create function ${sql.id(name)}(uids bigint[]) returns void language plpgsql as $$
      begin
        perform ${sql.id(`${name}_base`)}(uids);
        perform ${sql.id(refresh)}(array(select distinct s.transaction_id from transaction_splits s where s.user_id = any(uids)), false, true);
      end
    $$`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['stats_sums_rebuild', 'budget_sums_rebuild']) {
    await sql`drop function ${sql.id(name)}(bigint[])`.execute(db);
    await sql`alter function ${sql.id(`${name}_base`)}(bigint[]) rename to ${sql.id(name)}`.execute(db);
  }
  await sql`drop trigger users_split_parts_delete on users`.execute(db);
  await sql`drop trigger transactions_zz_split_parts_update on transactions`.execute(db);
  await sql`drop trigger transactions_split_parts_out on transactions`.execute(db);
  await sql`drop trigger transaction_categories_split_parts_out on transaction_categories`.execute(db);
  for (const event of ['insert', 'update', 'delete']) {
    await sql`drop trigger ${sql.id(`transaction_categories_zz_split_parts_${event}`)} on transaction_categories`.execute(db);
  }
  await db.schema.dropTable('transaction_splits').execute();
  for (const fn of ['split_parts_after_splits', 'split_parts_after_transactions', 'split_parts_after_links', 'split_parts_after_users']) {
    await sql`drop function ${sql.id(fn)}()`.execute(db);
  }
  await sql`drop function split_parts_refresh(bigint[])`.execute(db);
  await sql`drop function split_parts_take_out()`.execute(db);
  await sql`drop function split_stat_parts_refresh(bigint[], boolean, boolean)`.execute(db);
  await sql`drop function split_budget_parts_refresh(bigint[], boolean, boolean)`.execute(db);
  await db.schema.dropTable('split_budget_parts').execute();
  await db.schema.dropTable('split_stat_parts').execute();
}
