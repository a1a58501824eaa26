// The figures behind GET /admin/metrics: system-wide counts over all users, each one SQL
// aggregate (never rows counted in JS). Transactions count when live and dated in the period.
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { bucketKeys, startOfUtcDay, startOfUtcMonth, zeroFilled, type Granularity, type MetricsPeriod } from '../domain/metric-buckets.js';
import type { Database } from './schema.js';

export interface RankingRow {
  label: string;
  value: number;
}

/** to_char patterns giving the keys of domain/metric-buckets.ts. */
const BUCKET_FORMAT: Record<Granularity, string> = { day: 'YYYY-MM-DD', week: 'IYYY-"W"IW', month: 'YYYY-MM' };

function bucketOf(column: string, granularity: Granularity) {
  return sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', ${BUCKET_FORMAT[granularity]})`;
}

const asNumber = (value: unknown) => Number(value ?? 0);

export async function userFigures(db: Kysely<Database>, period: MetricsPeriod, now: Date, granularity: Granularity) {
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.countAll<number>().filterWhere('created_at', '>=', startOfUtcDay(now)).as('today'),
      eb.fn.countAll<number>().filterWhere('created_at', '>=', startOfUtcMonth(now)).as('month'),
      eb.fn
        .countAll<number>()
        .filterWhere((w) => w.and([w('created_at', '>=', period.start), w('created_at', '<=', period.end)]))
        .as('period'),
    ])
    .executeTakeFirstOrThrow();
  const buckets = await db
    .selectFrom('users')
    .select((eb) => [bucketOf('created_at', granularity).as('bucket'), eb.fn.countAll<number>().as('count')])
    .where('created_at', '>=', period.start)
    .where('created_at', '<=', period.end)
    .groupBy('bucket')
    .execute();
  return {
    total: asNumber(row.total),
    registeredToday: asNumber(row.today),
    registeredThisMonth: asNumber(row.month),
    newUsers: asNumber(row.period),
    series: zeroFilled(bucketKeys(period, granularity), buckets),
  };
}

/** Live transactions dated in the period. */
function inPeriod(period: MetricsPeriod) {
  return (eb: ExpressionBuilder<Database, 'transactions'>): Expression<SqlBool> =>
    eb.and([eb('transactions.deleted_at', 'is', null), eb('transactions.datetime', '>=', period.start), eb('transactions.datetime', '<=', period.end)]);
}

export async function transactionFigures(db: Kysely<Database>, period: MetricsPeriod, granularity: Granularity) {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => [
      eb.fn.countAll<number>().as('total'),
      eb.fn.countAll<number>().filterWhere('type', '=', 'income').as('income'),
      eb.fn.countAll<number>().filterWhere('type', '=', 'expense').as('expense'),
    ])
    .where(inPeriod(period))
    .executeTakeFirstOrThrow();
  const buckets = await db
    .selectFrom('transactions')
    .select((eb) => [bucketOf('transactions.datetime', granularity).as('bucket'), eb.fn.countAll<number>().as('count')])
    .where(inPeriod(period))
    .groupBy('bucket')
    .execute();
  return {
    total: asNumber(row.total),
    income: asNumber(row.income),
    expense: asNumber(row.expense),
    series: zeroFilled(bucketKeys(period, granularity), buckets),
  };
}

/** The users with the most transactions in the period (none without any), "First Last" or the e-mail. */
export async function mostActiveUsers(db: Kysely<Database>, period: MetricsPeriod, limit = 8): Promise<RankingRow[]> {
  const rows = await db
    .selectFrom('transactions')
    .innerJoin('users', 'users.id', 'transactions.user_id')
    .select((eb) => [
      sql<string>`coalesce(nullif(trim(users.first_name || ' ' || coalesce(users.last_name, '')), ''), users.email)`.as('label'),
      eb.fn.countAll<number>().as('value'),
    ])
    .where(inPeriod(period))
    .groupBy(['users.id', 'users.first_name', 'users.last_name', 'users.email'])
    .orderBy('value', 'desc')
    .orderBy('users.id', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ label: row.label, value: asNumber(row.value) }));
}

/** Live rows of each feature's table, all time; features nobody uses are left out. */
export async function featureUsage(db: Kysely<Database>): Promise<RankingRow[]> {
  // The reference also counts holdings; this service keeps none (no holdings table).
  const features = [
    ['Transactions', 'transactions'],
    ['Wallets', 'wallets'],
    ['Categories', 'categories'],
    ['Parties', 'parties'],
    ['Budgets', 'budgets'],
  ] as const;
  const counts = await Promise.all(
    features.map(async ([label, table]) => {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      return { label, value: asNumber(row.count) };
    }),
  );
  return counts.filter((row) => row.value > 0).sort((a, b) => b.value - a.value);
}

/** How many users set each value of a configuration entry (country, default-lang...), top first. */
export async function configurationRanking(db: Kysely<Database>, key: string, limit = 12): Promise<RankingRow[]> {
  const value = sql<string>`configurations.value #>> '{}'`;
  const rows = await db
    .selectFrom('configurations')
    .select((eb) => [value.as('label'), eb.fn.count<number>('user_id').distinct().as('value')])
    .where('key', '=', key)
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`coalesce(trim(configurations.value #>> '{}'), '') <> ''`)
    .groupBy(value)
    .orderBy('value', 'desc')
    .orderBy('label', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ label: row.label, value: asNumber(row.value) }));
}

export async function liveWalletCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('wallets')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return asNumber(row.count);
}
