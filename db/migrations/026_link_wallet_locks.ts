// 026 link wallet locks: a statement on transaction_categories locks the wallets of the
// transactions it touches (in id order, as moveBalances and 022's triggers lock them) before
// any summary trigger runs. Triggers of one event fire in name order, and 023's budget summary
// trigger (`transaction_categories_budget_sums_*`) upserts its rows before 022's, which took the
// wallet locks: two edits of links in one wallet could each hold a summary row the other's
// next statement needed while waiting for the wallet the other held (a deadlock, 500, seen on
// PostgreSQL in test/transaction-list-totals.test.ts). This trigger's name sorts first.
import { sql, type Kysely } from 'kysely';

const EVENTS = [
  ['insert', 'new table as new_rows', 'select transaction_id from new_rows'],
  ['update', 'old table as old_rows new table as new_rows', 'select transaction_id from old_rows union select transaction_id from new_rows'],
  ['delete', 'old table as old_rows', 'select transaction_id from old_rows'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [event, transition, linked] of EVENTS) {
    await sql
      .raw(
        `create function transaction_categories_lock_wallets_${event}() returns trigger language plpgsql as $$
    begin
      perform 1 from wallets w
       where w.id in (select t.wallet_id from transactions t where t.id in (${linked}))
       order by w.id for no key update;
      return null;
    end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger transaction_categories_0_lock_wallets_${event} after ${event} on transaction_categories
     referencing ${transition} for each statement execute function transaction_categories_lock_wallets_${event}()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [event] of EVENTS) {
    await sql.raw(`drop trigger transaction_categories_0_lock_wallets_${event} on transaction_categories`).execute(db);
    await sql.raw(`drop function transaction_categories_lock_wallets_${event}()`).execute(db);
  }
}
