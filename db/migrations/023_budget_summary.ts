// 023 budget summary: a budget's window reads per-day sums instead of every expense in it (a
// yearly budget at 1,000,000 rows read ~270,000 expenses; 50 monthly budgets ~1.3M rows).
//
// Only what budgets count is summed: live expenses that are not transfer legs.
//   budget_day_sums     per user, LOCAL day (the zone 021 keeps statistics in), wallet and
//                       group (0 = none), with category_id 0 for every expense and one more row
//                       per linked category; sum(amount) and count.
//   budget_multi_links  the expenses linked to 2+ categories, one row per link (few: the
//                       bench's 1 in 20 categorised rows). A budget targeting several categories
//                       sums their category rows and subtracts, per such expense, (number of
//                       its targeted categories - 1) × amount: each expense counts once, exactly.
// A refund's own rows are few; budgets read them raw, over a partial index made here.
//
// Maintained like 021, by statement-level triggers with transition tables in the write's own
// database transaction: on transactions (old contribution out, new in, with the current links;
// a new row has no links yet), on transaction_categories (each added/removed link with its
// current transaction; the multi-link rows of the affected expenses recomputed), on
// configurations after 021's trigger (named to sort after it) when 021 moved the user's
// statistics to another zone: the user's rows are rebuilt in it and the zone recorded in
// budget_sum_zones, which the reader checks; on users (delete): the account's rows go.
import { sql, type Kysely } from 'kysely';

const NEW_USERS = `(select distinct user_id from new_rows)`;
const OLD_USERS = `(select distinct user_id from old_rows)`;
const BOTH_USERS = `(select user_id from new_rows union select user_id from old_rows)`;
const COUNTED = (t: string) => `${t}.deleted_at is null and ${t}.transfer_id is null and ${t}.type = 'expense'`;

/** Each of `users`' summary zone, once per statement; users that are gone are left out. */
const zones = (users: string) => `(select u.user_id, budget_sum_zone(u.user_id) as zone from ${users} u
  where exists (select 1 from users where users.id = u.user_id))`;

/** Signed budget_day_sums rows of transaction rows `rows` (alias t): category 0, and each current link unless `noLinks`. */
function contributions(rows: string, sign: number, users: string, where = 'true', noLinks = false): string {
  const key = `t.user_id, (t.datetime at time zone z.zone)::date as day, t.wallet_id, coalesce(t.group_id, 0) as group_id`;
  const from = `from ${rows} t join ${zones(users)} z on z.user_id = t.user_id`;
  const zero = `select ${key}, 0::bigint as category_id, ${sign} * t.amount as total, ${sign}::bigint as count ${from} where ${COUNTED('t')} and (${where})`;
  if (noLinks) return zero;
  return `${zero} union all
    select ${key}, l.category_id, ${sign} * t.amount, ${sign}::bigint ${from}
      join transaction_categories l on l.transaction_id = t.id where ${COUNTED('t')} and (${where})`;
}

/** Signed budget_day_sums rows of link rows `links` with their current transaction. */
function linkContributions(links: string, sign: number, users: string): string {
  return `select t.user_id, (t.datetime at time zone z.zone)::date as day, t.wallet_id, coalesce(t.group_id, 0) as group_id,
                 l.category_id, ${sign} * t.amount as total, ${sign}::bigint as count
            from ${links} l join transactions t on t.id = l.transaction_id join ${zones(users)} z on z.user_id = t.user_id
           where ${COUNTED('t')}`;
}

/** Adds `changes` to budget_day_sums in key order, then drops the rows of `users` whose count fell to 0. */
function applyChanges(changes: string, users: string): string {
  return `insert into budget_day_sums as s (user_id, category_id, day, wallet_id, group_id, total, count)
    select user_id, category_id, day, wallet_id, group_id, sum(total), sum(count) from (${changes}) c
     group by 1, 2, 3, 4, 5 having sum(count) <> 0 or sum(total) <> 0
     order by 1, 2, 3, 4, 5
    on conflict (user_id, category_id, day, wallet_id, group_id)
    do update set total = s.total + excluded.total, count = s.count + excluded.count;
    delete from budget_day_sums where count = 0 and user_id in (select user_id from ${users} u);`;
}

/** Recomputes the budget_multi_links rows of the transactions `ids` (a relation of id) of `users`. */
function refreshMultiLinks(ids: string, users: string): string {
  return `delete from budget_multi_links where transaction_id in (select id from ${ids} i);
    insert into budget_multi_links (user_id, category_id, day, transaction_id, wallet_id, group_id, amount)
    select user_id, category_id, day, transaction_id, wallet_id, group_id, amount from (
      select t.user_id, l.category_id, (t.datetime at time zone z.zone)::date as day, t.id as transaction_id, t.wallet_id,
             coalesce(t.group_id, 0) as group_id, t.amount, count(*) over (partition by t.id) as links
        from transactions t join transaction_categories l on l.transaction_id = t.id join ${zones(users)} z on z.user_id = t.user_id
       where t.id in (select id from ${ids} i) and ${COUNTED('t')}
    ) m where links > 1
    order by 1, 2, 3, 4;`;
}

async function createStatementTriggers(db: Kysely<any>, table: string, name: string, fn: string): Promise<void> {
  for (const [event, referencing] of [
    ['insert', 'new table as new_rows'],
    ['update', 'old table as old_rows new table as new_rows'],
    ['delete', 'old table as old_rows'],
  ]) {
    await sql`create trigger ${sql.id(`${table}_${name}_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(referencing)} for each statement execute function ${sql.id(fn)}()`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table budget_day_sums (
    user_id bigint not null, category_id bigint not null, day date not null, wallet_id bigint not null, group_id bigint not null,
    total numeric not null, count bigint not null,
    primary key (user_id, category_id, day, wallet_id, group_id))`.execute(db);
  await sql`create index budget_day_sums_empty_idx on budget_day_sums (user_id) where count = 0`.execute(db);
  await sql`create table budget_multi_links (
    user_id bigint not null, category_id bigint not null, day date not null, transaction_id bigint not null,
    wallet_id bigint not null, group_id bigint not null, amount numeric not null,
    primary key (user_id, category_id, day, transaction_id))`.execute(db);
  await sql`create index budget_multi_links_transaction_idx on budget_multi_links (transaction_id)`.execute(db);
  await sql`create table budget_sum_zones (user_id bigint primary key, zone text not null)`.execute(db);
  await sql`create function budget_sum_zone(uid bigint) returns text language sql stable as $$
    select coalesce((select z.zone from budget_sum_zones z where z.user_id = uid), 'UTC')
  $$`.execute(db);
  // refunds in a window, read raw: few rows, found without scanning the window's incomes
  await sql`create index transactions_user_refunds_idx on transactions (user_id, datetime) include (refund_of_transaction_id, wallet_id, amount)
    where is_refund and type = 'income' and deleted_at is null and transfer_id is null`.execute(db);

  const allOf = (uids: string) => `(select unnest(${uids}) as user_id)`;
  await sql`create function budget_sums_rebuild(uids bigint[]) returns void language plpgsql as $$
    begin
      -- the writers' lock order: their wallets first
      perform 1 from wallets w where w.user_id = any(uids) order by w.id for no key update;
      delete from budget_day_sums where user_id = any(uids);
      delete from budget_multi_links where user_id = any(uids);
      insert into budget_day_sums (user_id, category_id, day, wallet_id, group_id, total, count)
      select user_id, category_id, day, wallet_id, group_id, sum(total), sum(count)
        from (${sql.raw(contributions('transactions', 1, allOf('uids'), 't.user_id = any(uids)'))}) c
       group by 1, 2, 3, 4, 5
       order by 1, 2, 3, 4, 5; -- stored in key order: a window's rows share pages
      ${sql.raw(refreshMultiLinks(`(select id from transactions where user_id = any(uids))`, allOf('uids')))}
    end
  $$`.execute(db);

  // ---- transactions ----------------------------------------------------------------------------
  const summarised = ['user_id', 'datetime', 'wallet_id', 'type', 'group_id', 'amount', 'deleted_at is null', 'transfer_id is null'];
  const tuple = (alias: string) => `(${summarised.map((column) => `${alias}.${column}`).join(', ')})`;
  const changed = `(select n.id from new_rows n join old_rows o on o.id = n.id where ${tuple('n')} is distinct from ${tuple('o')})`;
  await sql`create function budget_sums_after_transactions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        -- a new transaction has no links yet (they reference it)
        ${sql.raw(applyChanges(contributions('new_rows', 1, NEW_USERS, 'true', true), NEW_USERS))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(contributions('old_rows', -1, OLD_USERS), OLD_USERS))}
        delete from budget_multi_links where transaction_id in (select id from old_rows);
      else
        ${sql.raw(applyChanges(`${contributions('new_rows', 1, BOTH_USERS, `t.id in ${changed}`)} union all ${contributions('old_rows', -1, BOTH_USERS, `t.id in ${changed}`)}`, BOTH_USERS))}
        ${sql.raw(refreshMultiLinks(changed, BOTH_USERS))}
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'transactions', 'budget_sums', 'budget_sums_after_transactions');

  // ---- transaction_categories ------------------------------------------------------------------
  const linked = (rows: string) => `(select distinct transaction_id as id from ${rows})`;
  await sql`create function budget_sums_after_transaction_categories() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${sql.raw(applyChanges(linkContributions('new_rows', 1, NEW_USERS), NEW_USERS))}
        ${sql.raw(refreshMultiLinks(linked('new_rows'), NEW_USERS))}
      elsif tg_op = 'DELETE' then
        ${sql.raw(applyChanges(linkContributions('old_rows', -1, OLD_USERS), OLD_USERS))}
        ${sql.raw(refreshMultiLinks(linked('old_rows'), OLD_USERS))}
      else
        ${sql.raw(applyChanges(`${linkContributions('new_rows', 1, BOTH_USERS)} union all ${linkContributions('old_rows', -1, BOTH_USERS)}`, BOTH_USERS))}
        ${sql.raw(refreshMultiLinks(`(select transaction_id as id from new_rows union select transaction_id from old_rows)`, BOTH_USERS))}
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'transaction_categories', 'budget_sums', 'budget_sums_after_transaction_categories');

  // ---- configurations: after 021's trigger (trigger names sort: "stats" < "zone") --------------
  const moved = (rows: string) => `
    select array_agg(u.user_id) from (select distinct user_id from (${rows}) x) u
     where exists (select 1 from users where users.id = u.user_id) and stats_time_zone(u.user_id) <> budget_sum_zone(u.user_id)`;
  const timeZoneRows = (rows: string) => `select user_id from ${rows} x where x.key = 'timezone'`;
  await sql`create function budget_sums_after_configurations() returns trigger language plpgsql as $$
    declare uids bigint[];
    begin
      if tg_op = 'INSERT' then
        uids := (${sql.raw(moved(timeZoneRows('new_rows')))});
      elsif tg_op = 'DELETE' then
        uids := (${sql.raw(moved(timeZoneRows('old_rows')))});
      else
        uids := (${sql.raw(moved(`${timeZoneRows('new_rows')} union ${timeZoneRows('old_rows')}`))});
      end if;
      if uids is not null then
        delete from budget_sum_zones where user_id = any(uids);
        insert into budget_sum_zones (user_id, zone)
          select u.id, stats_time_zone(u.id) from unnest(uids) as u(id) where stats_time_zone(u.id) <> 'UTC';
        perform budget_sums_rebuild(uids);
      end if;
      return null;
    end
  $$`.execute(db);
  await createStatementTriggers(db, 'configurations', 'zone_budget_sums', 'budget_sums_after_configurations');

  // ---- users: an account's rows go with it -----------------------------------------------------
  await sql`create function budget_sums_after_users() returns trigger language plpgsql as $$
    begin
      delete from budget_day_sums where user_id in (select id from old_rows);
      delete from budget_multi_links where user_id in (select id from old_rows);
      delete from budget_sum_zones where user_id in (select id from old_rows);
      return null;
    end
  $$`.execute(db);
  await sql`create trigger users_budget_sums_delete after delete on users
    referencing old table as old_rows for each statement execute function budget_sums_after_users()`.execute(db);

  // backfill (INSERT ... SELECT: transactions are only read, no sync stamp moves)
  await sql`insert into budget_sum_zones (user_id, zone) select user_id, zone from stats_sum_zones where zone <> 'UTC'`.execute(db);
  await sql`select budget_sums_rebuild(array(select id from users))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    await sql`drop trigger ${sql.id(`transactions_budget_sums_${event}`)} on transactions`.execute(db);
    await sql`drop trigger ${sql.id(`transaction_categories_budget_sums_${event}`)} on transaction_categories`.execute(db);
    await sql`drop trigger ${sql.id(`configurations_zone_budget_sums_${event}`)} on configurations`.execute(db);
  }
  await sql`drop trigger users_budget_sums_delete on users`.execute(db);
  for (const fn of ['budget_sums_after_transactions', 'budget_sums_after_transaction_categories', 'budget_sums_after_configurations', 'budget_sums_after_users']) {
    await sql`drop function ${sql.id(fn)}()`.execute(db);
  }
  await sql`drop function budget_sums_rebuild(bigint[])`.execute(db);
  await sql`drop index transactions_user_refunds_idx`.execute(db);
  await sql`drop function budget_sum_zone(bigint)`.execute(db);
  for (const table of ['budget_sum_zones', 'budget_multi_links', 'budget_day_sums']) await db.schema.dropTable(table).execute();
}
