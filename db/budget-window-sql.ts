// The SQL of a budget window's counted transactions (see db/budget-spending.ts for the rule;
// a split expense counted through its categories counts its lines in them, migration 046),
// as fragments over a Scope: from the raw rows (the reference, and what lists the counted
// transactions), and per wallet from the per-day summary of migration 023.
import { sql, type RawBuilder } from 'kysely';
import type { LiveTargets } from './budget-spending.js';

/**
 * What a window's SQL needs, as SQL expressions: the owner, the instants bounding the local
 * days, the live target ids (bigint[] each). One budget binds them as parameters (scopeOf);
 * many budgets at once take them from a row per budget (progressOfBudgets).
 */
export interface Scope {
  userId: number;
  from: RawBuilder<Date>;
  before: RawBuilder<Date>;
  walletIds: RawBuilder<unknown>;
  groupIds: RawBuilder<unknown>;
  categoryIds: RawBuilder<unknown>;
}

export function boundScope(userId: number, from: Date, before: Date, targets: LiveTargets): Scope {
  return {
    userId,
    from: sql<Date>`${from}::timestamptz`,
    before: sql<Date>`${before}::timestamptz`,
    walletIds: sql`${targets.walletIds}::bigint[]`,
    groupIds: sql`${targets.groupIds}::bigint[]`,
    categoryIds: sql`${targets.categoryIds}::bigint[]`,
  };
}

/**
 * `alias` is a transaction the budget counts: a live expense in the window matching a live
 * target, any when there is none. (With bound parameters PostgreSQL folds the cardinality
 * tests at planning, so an absent kind of target costs nothing per row.)
 */
export function countedExpense(alias: string, scope: Scope): RawBuilder<boolean> {
  const t = sql.table(alias);
  const { walletIds, groupIds, categoryIds } = scope;
  return sql<boolean>`(${t}.user_id = ${scope.userId}
    and ${t}.type = 'expense'
    and ${t}.deleted_at is null
    and ${t}.transfer_id is null
    and ${t}.datetime >= ${scope.from}
    and ${t}.datetime < ${scope.before}
    and (cardinality(${walletIds}) + cardinality(${groupIds}) + cardinality(${categoryIds}) = 0
      or ${t}.wallet_id = any(${walletIds})
      or ${t}.group_id = any(${groupIds})
      or (cardinality(${categoryIds}) > 0 and exists (select 1 from transaction_categories tc
        where tc.transaction_id = ${t}.id and tc.category_id = any(${categoryIds})))))`;
}

/** `alias` (a counted expense) counts whole: the budget has no target, or its wallet or group is one. */
function countsWhole(alias: string, scope: Scope): RawBuilder<boolean> {
  const t = sql.table(alias);
  const { walletIds, groupIds, categoryIds } = scope;
  return sql<boolean>`(cardinality(${walletIds}) + cardinality(${groupIds}) + cardinality(${categoryIds}) = 0
    or ${t}.wallet_id = any(${walletIds}) or ${t}.group_id = any(${groupIds}))`;
}

const isSplit = (alias: string) => sql<boolean>`exists (select 1 from transaction_splits split where split.transaction_id = ${sql.table(alias)}.id)`;

/**
 * What the counted expense `alias` counts in the budget: its amount, or, when it is split and
 * counted only through its categories, the sum of its lines in the targeted categories (046).
 */
export function countedAmount(alias: string, scope: Scope): RawBuilder<string> {
  const t = sql.table(alias);
  return sql<string>`(case when ${countsWhole(alias, scope)} or not ${isSplit(alias)} then ${t}.amount
    else (select coalesce(sum(split.amount), 0) from transaction_splits split
           where split.transaction_id = ${t}.id and split.category_id = any(${scope.categoryIds})) end)`;
}

/**
 * What the refund `refund` of the counted expense `expense` counts: all of it, or, when the
 * expense is split and counted only through its categories, the shares of its lines in the
 * targeted categories. Shares are in proportion to the lines, rounded to 4 decimals, the last
 * line taking what remains (domain/splits.ts refundShares computes the same).
 */
export function countedRefund(refund: string, expense: string, scope: Scope): RawBuilder<string> {
  const [r, t] = [sql.table(refund), sql.table(expense)];
  const share = sql`round(${r}.amount * split.amount / ${t}.amount, 4)`;
  return sql<string>`(case when ${countsWhole(expense, scope)} or not ${isSplit(expense)} then ${r}.amount
    else (select coalesce(sum(line.share), 0) from (
            select split.category_id,
                   case when split.position = max(split.position) over () then ${r}.amount - (sum(${share}) over () - ${share}) else ${share} end as share
              from transaction_splits split where split.transaction_id = ${t}.id) line
           where line.category_id = any(${scope.categoryIds})) end)`;
}

/** `alias` is a live refund (an income marked as one) dated in the window; its original is `t`. */
export function refundInWindow(alias: string, scope: Scope): RawBuilder<boolean> {
  const r = sql.table(alias);
  return sql<boolean>`(${r}.user_id = ${scope.userId}
    and ${r}.type = 'income'
    and ${r}.is_refund
    and ${r}.deleted_at is null
    and ${r}.transfer_id is null
    and ${r}.datetime >= ${scope.from}
    and ${r}.datetime < ${scope.before})`;
}

/** Refunds of counted expenses, both in the window, per wallet (columns wallet_id, gross, refunds). */
function refundsPerWalletSql(scope: Scope): RawBuilder<unknown> {
  return sql`
      select r.wallet_id, 0::numeric as gross, sum(${countedRefund('r', 't', scope)}) as refunds
      from transactions r
      join transactions t on t.id = r.refund_of_transaction_id
      where ${refundInWindow('r', scope)} and ${countedExpense('t', scope)}
      group by r.wallet_id`;
}

/** Counted expenses and refunds of one scope from the raw rows, per wallet (columns wallet_id, gross, refunds). */
export function perWalletSql(scope: Scope): RawBuilder<unknown> {
  return sql`
      select t.wallet_id, sum(${countedAmount('t', scope)}) as gross, 0::numeric as refunds
      from transactions t
      where ${countedExpense('t', scope)}
      group by t.wallet_id
      union all ${refundsPerWalletSql(scope)}`;
}

/** The local days of a scope, both ends inclusive (`date` expressions), for the summary. */
export interface ScopeDays {
  first: RawBuilder<string>;
  last: RawBuilder<string>;
}

/**
 * The same per wallet from migration 023's summary (kept in the zone of the scope's days):
 * every expense of a wallet or group target from the category-0 rows; those of neither from
 * the rows of the targeted categories, less (targeted links - 1) × amount for each expense
 * linked to several of them; refunds from the raw rows (few, over their own index).
 */
export function summaryPerWalletSql(scope: Scope, days: ScopeDays): RawBuilder<unknown> {
  const { walletIds, groupIds, categoryIds, userId } = scope;
  const inWindow = (alias: string) => sql`${sql.ref(`${alias}.user_id`)} = ${userId} and ${sql.ref(`${alias}.day`)} between ${days.first} and ${days.last}`;
  const neither = (alias: string) =>
    sql`not (${sql.ref(`${alias}.wallet_id`)} = any(${walletIds})) and not (${sql.ref(`${alias}.group_id`)} = any(${groupIds}))`;
  // conditions on the targets alone are one-time filters: a branch a budget does not need is not run
  const noTargets = sql`cardinality(${walletIds}) + cardinality(${groupIds}) + cardinality(${categoryIds}) = 0`;
  return sql`
      select d.wallet_id, sum(d.total) as gross, 0::numeric as refunds
      from budget_day_sums d
      where ${inWindow('d')} and d.category_id = 0
        and (${noTargets} or d.wallet_id = any(${walletIds}) or d.group_id = any(${groupIds}))
        and (${noTargets} or cardinality(${walletIds}) + cardinality(${groupIds}) > 0)
      group by d.wallet_id
      union all
      select d.wallet_id, sum(d.total), 0::numeric
      from budget_day_sums d
      where ${inWindow('d')} and d.category_id = any(${categoryIds}) and ${neither('d')} and cardinality(${categoryIds}) > 0
      group by d.wallet_id
      union all
      select m.wallet_id, -sum((m.links - 1) * m.amount), 0::numeric
      from (select x.transaction_id, x.wallet_id, x.amount, count(*) as links
              from (select distinct unnest(${categoryIds}) as id) k
              -- one index range per targeted category (a fence: flattened, the planner scanned all the user's categories)
              cross join lateral (select * from budget_multi_links x where ${inWindow('x')} and x.category_id = k.id offset 0) x
             -- a split expense's category rows are its lines' (046): nothing counted twice there
             where not exists (select 1 from transaction_splits split where split.transaction_id = x.transaction_id)
               and ${neither('x')} and cardinality(${categoryIds}) > 1
             group by 1, 2, 3 having count(*) > 1) m
      group by m.wallet_id
      union all ${refundsPerWalletSql(scope)}`;
}
