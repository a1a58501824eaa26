// Admin: system-wide metrics and user management. Only accounts with the admin role get here
// (server/routes.ts answers 403 for every other account before any handler of this tag runs).
import {
  configurationRanking,
  featureUsage,
  liveWalletCount,
  mostActiveUsers,
  transactionFigures,
  userFigures,
} from '../db/admin-metrics.js';
import { adminUserDetails, adminUserPage, findAdminUser } from '../db/admin-users.js';
import { metricsPeriod } from '../domain/metric-buckets.js';
import { closeAccount, fullName } from '../server/account-closure.js';
import { done, ok } from '../server/envelope.js';
import { notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { pageRequest } from './shared/records.js';
import { countMetric, metricGroup, rankingMetric, seriesMetric, toAdminUser, toAdminUserDetail } from './views/admin.js';

async function getAdminMetrics({ db, query, services }: HandlerContext<'getAdminMetrics'>) {
  const now = services.now();
  const granularity = query.granularity ?? 'day';
  const period = metricsPeriod(now, query.days ?? 30);
  const [users, transactions, active, features, countries, languages, currencies, wallets] = await Promise.all([
    userFigures(db, period, now, granularity),
    transactionFigures(db, period, granularity),
    mostActiveUsers(db, period),
    featureUsage(db),
    configurationRanking(db, 'country'),
    configurationRanking(db, 'default-lang'),
    configurationRanking(db, 'default-currency'),
    liveWalletCount(db),
  ]);
  const perUser = users.total === 0 ? 0 : Math.round((transactions.total * 10) / users.total) / 10;
  return ok(
    {
      period: { start: period.start.toISOString(), end: period.end.toISOString(), granularity },
      groups: [
        metricGroup('users', 'Users', [
          countMetric('total_users', 'Total users', users.total),
          countMetric('registrations_today', 'Registered today', users.registeredToday),
          countMetric('registrations_month', 'Registered this month', users.registeredThisMonth),
          countMetric('new_users', 'New users', users.newUsers),
          seriesMetric('new_users_series', 'New users over time', users.series),
        ]),
        metricGroup('transactions', 'Transactions', [
          countMetric('total_transactions', 'Transactions', transactions.total),
          countMetric('income_count', 'Income entries', transactions.income),
          countMetric('expense_count', 'Expense entries', transactions.expense),
          seriesMetric('transactions_series', 'Transactions over time', transactions.series),
        ]),
        metricGroup('engagement', 'Engagement', [
          countMetric('avg_transactions_per_user', 'Avg transactions / user', perUser, 'sum'),
          rankingMetric('most_active_users', 'Most active users', active),
          rankingMetric('most_used_features', 'Most used features', features),
        ]),
        metricGroup('demographics', 'Demographics', [
          rankingMetric('users_by_country', 'Users by country', countries),
          rankingMetric('users_by_language', 'Users by language', languages),
          rankingMetric('users_by_currency', 'Users by currency', currencies),
        ]),
        metricGroup('accounts', 'Accounts', [countMetric('total_wallets', 'Wallets', wallets)]),
      ],
    },
    'Metrics retrieved',
  );
}

async function listAdminUsers({ db, query, services }: HandlerContext<'listAdminUsers'>) {
  const page = await adminUserPage(db, { ...pageRequest(query), search: query.search, now: services.now() });
  return ok({ ...page.meta, data: page.rows.map(toAdminUser) }, 'Users retrieved');
}

async function getAdminUser({ db, params }: HandlerContext<'getAdminUser'>) {
  const user = await findAdminUser(db, params.id);
  const details = user && (await adminUserDetails(db, user.id));
  if (!user || !details) throw notFound('User');
  return ok(toAdminUserDetail(user, details), 'User retrieved');
}

/** Closes the account as DELETE /account does; an admin may close their own (spec). */
async function deleteAdminUser({ db, params, body, user: admin, services, log }: HandlerContext<'deleteAdminUser'>) {
  const user = await findAdminUser(db, params.id);
  if (!user) throw notFound('User');
  const closed = await closeAccount({ db, services, log }, user, { source: 'Admin', reason: body?.reason, deletedBy: fullName(admin) });
  if (!closed) throw notFound('User');
  return done('User deleted successfully.');
}

export const adminHandlers = { getAdminMetrics, listAdminUsers, getAdminUser, deleteAdminUser } satisfies Partial<Handlers>;
