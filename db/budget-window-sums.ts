// The statements that sum many budget windows at once (db/budget-spending.ts holds the rule
// and the callers): a row per window goes in as JSON, a row per window and wallet currency
// comes out, from migration 023's per-day summary or from the raw rows; the rollovers of the
// windows that roll over come out of the same statement as rows of their own.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { previousWindow } from '../domain/budget-periods.js';
import type { BudgetInWindow } from './budget-spending.js';
import { perWalletSql, summaryPerWalletSql, type Scope } from './budget-window-sql.js';
import type { Database } from './schema.js';

/** A window of spendingOfWindows as its statement reads it (JSON, a row per item). */
export interface WindowRow {
  item: number;
  first_day: string;
  last_day: string;
  from_at: string;
  before_at: string;
  wallet_ids: number[];
  group_ids: number[];
  category_ids: number[];
}

/** A row of the spending statements: an item's sums in one currency, or (currency null) its rollover_in. */
export interface SumRow {
  item: number;
  currency: string | null;
  gross: string | null;
  refunds: string | null;
  rollover: string | null;
}

const WINDOW_COLUMNS = sql`b(item int, first_day date, last_day date, from_at timestamptz, before_at timestamptz, wallet_ids bigint[], group_ids bigint[], category_ids bigint[])`;
const windowScope = (userId: number): Scope => ({
  userId,
  from: sql<Date>`b.from_at`,
  before: sql<Date>`b.before_at`,
  walletIds: sql`b.wallet_ids`,
  groupIds: sql`b.group_ids`,
  categoryIds: sql`b.category_ids`,
});

/**
 * The sums from migration 023's summary, or undefined when it is not kept in `timeZone` (a zone
 * PostgreSQL does not know, or one that changed since the caller read it). Checked once, in the
 * statement's own snapshot: a statement holding the raw branch as well (a one-time filter in
 * each of the 50 lateral subqueries) cost twice the planning and a budget_sum_zone call per
 * branch and window.
 */
export async function summedFromSummary(
  db: Kysely<Database>,
  userId: number,
  rows: WindowRow[],
  timeZone: string,
  rolling: RollingRow[],
): Promise<SumRow[] | undefined> {
  const { rows: sums } = await sql<SumRow>`
    with summary as materialized (select budget_sum_zone(${userId}) = ${timeZone} as kept)
    select b.item, w.currency, sum(s.gross)::text as gross, sum(s.refunds)::text as refunds, null::text as rollover
    from summary
    cross join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as ${WINDOW_COLUMNS}
    cross join lateral (${summaryPerWalletSql(windowScope(userId), { first: sql`b.first_day`, last: sql`b.last_day` })}) s
    join wallets w on w.id = s.wallet_id
    where summary.kept
    group by b.item, w.currency
    union all
    select -1, null, null, null, null from summary where not summary.kept
    ${rolloverBranch(userId, rolling)}
    order by 1, 2`.execute(db);
  return sums.some((row) => row.item === -1) ? undefined : sums;
}

/** The sums from the raw rows, each window scanned over the (user_id, type, datetime) index. */
export async function summedFromRows(db: Kysely<Database>, userId: number, rows: WindowRow[], rolling: RollingRow[]): Promise<SumRow[]> {
  const { rows: sums } = await sql<SumRow>`
    select b.item, w.currency, sum(s.gross)::text as gross, sum(s.refunds)::text as refunds, null::text as rollover
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as ${WINDOW_COLUMNS}
    cross join lateral (${perWalletSql(windowScope(userId))}) s
    join wallets w on w.id = s.wallet_id
    group by b.item, w.currency
    ${rolloverBranch(userId, rolling)}
    order by 1, 2`.execute(db);
  return sums;
}

/** An item whose rollover_in is read: rollover enabled and a window before this one. */
export interface RollingRow {
  item: number;
  budget_id: number;
  window_start: string;
}

export function rollingOf(items: BudgetInWindow[]): RollingRow[] {
  return items.flatMap(({ budget, window }, index) =>
    budget.rollover_enabled && previousWindow(budget, window) !== null ? [{ item: index, budget_id: budget.id, window_start: window.start }] : [],
  );
}

/** Rows (item, null, null, null, rollover) of the rolling items that have a closed window before theirs. */
function rolloverRowsSql(userId: number, rolling: RollingRow[]): RawBuilder<unknown> {
  return sql`
    select b.item, null as currency, null as gross, null as refunds, s.rollover_out::text as rollover
    from jsonb_to_recordset(${JSON.stringify(rolling)}::jsonb) as b(item int, budget_id bigint, window_start date)
    cross join lateral (
      select p.rollover_out from budget_period_states p
      where p.budget_id = b.budget_id and p.user_id = ${userId} and p.period_end < b.window_start
        and p.closed_at is not null and p.deleted_at is null
      order by p.period_end desc
      limit 1
    ) s`;
}

/** The rollover rows as a last branch of a spending statement (nothing when no item rolls over). */
function rolloverBranch(userId: number, rolling: RollingRow[]): RawBuilder<unknown> {
  return rolling.length === 0 ? sql`` : sql`union all ${rolloverRowsSql(userId, rolling)}`;
}

/** The rollover rows alone (rolloversIn). */
export async function readRollovers(db: Kysely<Database>, userId: number, rolling: RollingRow[]): Promise<SumRow[]> {
  return (await sql<SumRow>`${rolloverRowsSql(userId, rolling)}`.execute(db)).rows;
}
