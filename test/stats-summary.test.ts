// The per-day statistics summary (migration 021) after every kind of write: after each step
// its rows equal a from-scratch recount over the raw rows, and the statistics read from it
// equal the same statistics computed from the raw rows, for windows around "today" (split at
// now), in the past, and filtered by wallet.
import t, { type Test } from 'tap';
import { sql } from 'kysely';
import { Decimal } from '../domain/money.js';
import { dayIn, statsRange } from '../domain/stats-periods.js';
import * as sums from '../db/statistics.js';
import { spanPlan, yearPlan } from '../db/statistics-span.js';
import { dailyDigest, dailyDigestRead, rawDailyDigest, rawDailyDigestRead } from '../db/statistics-daily.js';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { startApp } from './helpers/harness.js';
import { summaryOffRecount } from './helpers/stats-summary-invariant.js';
import { summaryWrites } from './helpers/summary-writes.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const NOW = new Date('2026-11-19T12:00:00Z');
const api = await startApp(t, { now: () => NOW });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const userId: number = owner.user.id;
let zone = 'UTC';

const { post, put, importCsv } = summaryWrites(api, owner.token);
const create = (body: Record<string, unknown>) => post('/api/v1/transactions', { wallet_id: usd, datetime: '2026-11-10T10:00:00Z', ...body });

/** Sums keyed and added up so the summary's and the raw rows' shapes compare (exact decimals). */
function normalised<T extends sums.CurrencySum>(rows: T[], keyOf: (row: T) => string) {
  const totals = new Map<string, { total: Decimal; count: number }>();
  for (const row of rows) {
    const key = `${keyOf(row)}|${row.type}|${row.currency}`;
    const entry = totals.get(key) ?? { total: new Decimal(0), count: 0 };
    totals.set(key, { total: entry.total.plus(row.total), count: entry.count + row.count });
  }
  return [...totals].filter(([, v]) => v.count !== 0).map(([k, v]) => `${k} ${v.total.toFixed(4)} ${v.count}`).sort();
}

/** Each list of an answer as sorted JSON lines: the rows of a read come in no set order. */
const canonical = (answer: object) => Object.fromEntries(Object.entries(answer).map(([key, rows]) => [key, (rows as unknown[]).map((row) => JSON.stringify(row)).sort()]));

/** The statistics the summary answers equal those recomputed from the raw rows. */
async function summaryAgreesWithRows(t: Test, step: string) {
  t.same(await summaryOffRecount(api, userId, zone), [], `${step}: summary rows equal the recount`);
  t.ok(await sums.summaryKeptIn(api.db, userId, zone), `${step}: kept in ${zone}`);
  const today = dayIn(NOW, zone);
  for (const [label, request, walletIds] of [
    ['last 30 days', {}, undefined],
    ['all time', { preset: 'all_time' as const }, undefined],
    ['past month', { startDate: '2026-10-01', endDate: '2026-10-31' }, undefined],
    ['around today, one wallet', { startDate: '2026-11-01', endDate: '2026-11-30' }, [usd]],
    // months less their other days (spanPlan): October less its 1st and 2nd, November less the days to come
    ['mid-month to today', { startDate: '2026-10-03', endDate: '2026-11-19' }, undefined],
    ['a month less its first day', { startDate: '2026-11-02', endDate: '2026-11-30' }, [usd]],
    // whole years from the yearly rollups (yearPlan): 2025, and 2026 less the days to come
    ['across years', { startDate: '2024-12-15', endDate: '2026-11-19' }, undefined],
  ] as const) {
    const range = statsRange(request, NOW, zone)!;
    const window = { userId, from: range.from, before: range.before, walletIds: walletIds ? [...walletIds] : undefined };
    const days = { first: range.previousStartDay, last: range.endDay };
    // a daily trend reads the days (byDay), other reads the rollups and the weekday counts
    const digests: Array<Awaited<ReturnType<typeof dailyDigest>>> = [];
    for (const byDay of [true, false]) {
      const options = { startDay: range.startDay, byDay };
      const [digest, rawDigest] = [
        await dailyDigest(api.db, window, days, zone, NOW, today, options),
        await rawDailyDigest(api.db, window, days, zone, NOW, options),
      ];
      const of = `${step}, ${label}${byDay ? ', by day' : ''}`;
      t.same(normalised(digest.totals, (s) => `${s.current}|${s.past}`), normalised(rawDigest.totals, (s) => `${s.current}|${s.past}`), `${of}: daily totals`);
      t.same(normalised(digest.months, (s) => `${s.current}|${s.month}`), normalised(rawDigest.months, (s) => `${s.current}|${s.month}`), `${of}: months`);
      t.same(normalised(digest.days, (s) => `${s.current}|${s.day}`), normalised(rawDigest.days, (s) => `${s.current}|${s.day}`), `${of}: days`);
      t.same(normalised(digest.wallets, (s) => `${s.walletId}|${s.walletName}`), normalised(rawDigest.wallets, (s) => `${s.walletId}|${s.walletName}`), `${of}: wallets`);
      const weekdays = (d: typeof digest) => d.weekdays.map((w) => `${w.weekday} ${w.count}`).sort();
      t.same(weekdays(digest), weekdays(rawDigest), `${of}: weekdays`);
      t.same(digest.weekdays.filter((w) => !(w.count > 0)), [], `${of}: no weekday of subtracted days alone`);
      digests.push(digest);
    }
    const summary = await sums.dimensionSums(api.db, window, { first: range.startDay, last: range.endDay }, today);
    const raw = await sums.rawDimensionSums(api.db, window);
    const named = (s: sums.NamedSum) => `${s.id}|${s.name}|${s.slug}`;
    t.same(normalised(summary.categories, named), normalised(raw.categories, named), `${step}, ${label}: categories`);
    t.same(normalised(summary.parties, named), normalised(raw.parties, named), `${step}, ${label}: parties`);
    t.same(normalised(summary.intents, (s) => s.intent), normalised(raw.intents, (s) => s.intent), `${step}, ${label}: intents`);
    const stored = [...digests.flatMap((d) => [...d.totals, ...d.months, ...d.days, ...d.wallets]), ...summary.categories, ...summary.parties, ...summary.intents];
    t.same(stored.filter((row) => !(row.count > 0)), [], `${step}, ${label}: no group of subtracted days alone`);
    const largest = (rows: sums.LargestRow[]) => rows.map((r) => `${r.id} ${r.type} ${r.currency} ${new Decimal(r.amount).toFixed(4)} ${r.description} ${r.category}`).sort();
    const largestRows = await sums.largestPerWallet(api.db, window, { first: range.startDay, last: range.endDay }, today);
    t.same(largest(largestRows), largest(await sums.rawLargestPerWallet(api.db, window)), `${step}, ${label}: largest rows`);
    // the three reads in one statement, as GET /stats runs them, answer as each alone
    const dimensionDays = { first: range.startDay, last: range.endDay };
    const digestOptions = { startDay: range.startDay, byDay: false };
    const together = await sums.readTogether(api.db, [
      dailyDigestRead(window, days, zone, NOW, today, digestOptions),
      sums.dimensionSumsRead(window, dimensionDays, today),
      sums.largestPerWalletRead(window, dimensionDays, today),
    ]);
    t.same(canonical(together[0]), canonical(digests[1]), `${step}, ${label}: the digest read with the others`);
    t.same(canonical(together[1]), canonical(summary), `${step}, ${label}: the dimension sums read with the others`);
    t.same(await sums.largestOrRaw(api.db, window, together[2]), largestRows, `${step}, ${label}: the largest rows read with the others`);
    const rawTogether = await sums.readTogether(api.db, [rawDailyDigestRead(window, days, zone, NOW, digestOptions), sums.rawDimensionSumsRead(window)]);
    t.same(canonical(rawTogether[0]), canonical(await rawDailyDigest(api.db, window, days, zone, NOW, digestOptions)), `${step}, ${label}: the raw digest read with the others`);
    t.same(canonical(rawTogether[1]), canonical(raw), `${step}, ${label}: the raw dimension sums read with the others`);
  }
  const stats = await api.request('GET', '/api/v1/stats?preset=all_time', { token: owner.token });
  t.equal(stats.status, 200, `${step}: GET /stats answers`);
}

await post('/api/v1/configurations', { key: 'wallets-allow-negative-balance', type: 'bool', value: true });
const usd = await fx.mainWallet(userId);
const savings = (await post('/api/v1/wallets', { name: 'Savings', type: 'bank', currency: 'USD', balance: 1000 })).id as number;
const euro = (await post('/api/v1/wallets', { name: 'Euro', type: 'bank', currency: 'EUR', balance: 1000 })).id as number;
const [food, rent, salary] = [await fx.category(userId), await fx.category(userId), await fx.category(userId, 'income')];
const [grocer, landlord] = [await fx.party(userId), await fx.party(userId)];

t.test('creates, with categories, parties and intents, on past, current and future days', async (t) => {
  await create({ type: 'expense', amount: 12.5, categories: [rent, food], party_id: grocer });
  await create({ type: 'expense', amount: 7, datetime: '2026-11-19T08:00:00Z', categories: [food] }); // today, before now
  await create({ type: 'expense', amount: 3, datetime: '2026-11-19T20:00:00Z' }); // today, after now
  await create({ type: 'expense', amount: 4, datetime: '2026-11-25T10:00:00Z', party_id: landlord }); // a later day
  await create({ type: 'income', amount: 1000, datetime: '2026-10-15T10:00:00Z', categories: [salary], intent: 'loan_received' });
  await create({ type: 'expense', amount: 30, wallet_id: euro, datetime: '2026-11-18T23:30:00Z', categories: [food] });
  // other years (the yearly rollups), and a day to come in this year (subtracted from its year row)
  await create({ type: 'expense', amount: 8.25, datetime: '2025-03-04T10:00:00Z', categories: [food], party_id: grocer });
  await create({ type: 'income', amount: 40, datetime: '2024-12-20T10:00:00Z', categories: [salary] });
  await create({ type: 'expense', amount: 6, datetime: '2026-12-24T10:00:00Z', categories: [rent] });
  await summaryAgreesWithRows(t, 'creates');
});

t.test('edits of amount, date, wallet, type, categories, party and intent', async (t) => {
  const id = (await create({ type: 'expense', amount: 20, categories: [food], party_id: grocer })).id as number;
  await put(id, { amount: 25.75 });
  await summaryAgreesWithRows(t, 'amount');
  await put(id, { datetime: '2026-09-02T10:00:00Z' });
  await summaryAgreesWithRows(t, 'date');
  await put(id, { wallet_id: savings });
  await summaryAgreesWithRows(t, 'wallet');
  await put(id, { categories: [rent, food] });
  await summaryAgreesWithRows(t, 'first category');
  await put(id, { categories: [] });
  await summaryAgreesWithRows(t, 'no category');
  await put(id, { party_id: landlord });
  await put(id, { party_id: null });
  await summaryAgreesWithRows(t, 'party');
  await put(id, { intent: 'gift' });
  await summaryAgreesWithRows(t, 'intent');
  await put(id, { type: 'income' });
  await summaryAgreesWithRows(t, 'type');
  // a link added or removed on its own (not through an edit) moves the first category too
  await api.db.insertInto('transaction_categories').values({ user_id: userId, transaction_id: id, category_id: salary }).execute();
  await summaryAgreesWithRows(t, 'link added');
  await api.db.deleteFrom('transaction_categories').where('transaction_id', '=', id).execute();
  await summaryAgreesWithRows(t, 'link removed');
});

t.test('soft delete and restore', async (t) => {
  const id = (await create({ type: 'expense', amount: 40, categories: [food], party_id: grocer })).id as number;
  t.equal((await api.request('DELETE', `/api/v1/transactions/${id}`, { token: owner.token })).status, 200);
  await summaryAgreesWithRows(t, 'soft delete');
  // restoring is a sync-level write (deleted_at cleared); the triggers see any write path alike
  await api.db.updateTable('transactions').set({ deleted_at: null }).where('id', '=', id).execute();
  await summaryAgreesWithRows(t, 'restore');
});

t.test('transfers stay out; refunds, imports and recurring occurrences count', async (t) => {
  await post('/api/v1/transfer', { amount: 50, from_wallet_id: usd, to_wallet_id: savings, datetime: '2026-11-12T10:00:00Z' });
  await summaryAgreesWithRows(t, 'transfer');
  const expense = (await create({ type: 'expense', amount: 60, categories: [food] })).id as number;
  const income = (await create({ type: 'income', amount: 60, datetime: '2026-11-13T10:00:00Z' })).id as number;
  await post(`/api/v1/transactions/${income}/refund`, { original_transaction_id: expense });
  await summaryAgreesWithRows(t, 'refund');

  await importCsv(t, userId);
  await summaryAgreesWithRows(t, 'import');

  await create({ type: 'expense', amount: 9, datetime: '2026-11-14T10:00:00Z', is_recurring: true, recurrence_period: 'daily', categories: [rent] });
  // the first occurrence is the next after now (the 20th); three are due by the 22nd
  t.equal(await materialiseDueOccurrences(api.db, api.app.services, new Date('2026-11-22T12:00:00Z')), 3, 'occurrences were made');
  await summaryAgreesWithRows(t, 'recurring');
});

t.test('a time zone change rebuilds the user\'s rows without touching a transaction', async (t) => {
  const stamps = () => api.db.selectFrom('transactions').select(sql<string>`max(last_synced_at)::text`.as('last')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  const before = await stamps();
  await post('/api/v1/configurations', { key: 'timezone', type: 'string', value: 'Pacific/Kiritimati' }); // UTC+14
  zone = 'Pacific/Kiritimati';
  await summaryAgreesWithRows(t, 'UTC+14');
  await post('/api/v1/configurations', { key: 'timezone', type: 'string', value: 'America/New_York' });
  zone = 'America/New_York';
  await summaryAgreesWithRows(t, 'New York');
  await create({ type: 'expense', amount: 5, datetime: '2026-11-19T02:00:00Z', categories: [food] }); // the 18th in New York
  await summaryAgreesWithRows(t, 'a write in New York');
  t.equal((await api.request('DELETE', '/api/v1/configurations/timezone', { token: owner.token })).status, 200);
  zone = 'UTC';
  await summaryAgreesWithRows(t, 'back to UTC');
  t.same((await stamps()).last > before.last, true, 'only the new write moved a sync stamp');
  const created = await api.db.selectFrom('transactions').select(sql<string>`max(last_synced_at)::text`.as('last')).where('user_id', '=', userId).where('amount', '=', '5').executeTakeFirstOrThrow();
  t.equal((await stamps()).last, created.last, 'the newest stamp is that write\'s: the rebuilds moved none');
});

t.test('account deletion leaves no summary rows', async (t) => {
  const leaving = await api.newUser();
  const wallet = await fx.mainWallet(leaving.user.id);
  const category = await fx.category(leaving.user.id);
  const res = await api.request('POST', '/api/v1/transactions', { token: leaving.token, body: { type: 'income', amount: 5, wallet_id: wallet, categories: [category] } });
  t.equal(res.status, 201);
  const rowsOf = async () => {
    let n = 0;
    for (const table of ['stats_day_sums', 'stats_category_day_sums', 'stats_party_day_sums', 'stats_month_sums', 'stats_category_month_sums', 'stats_party_month_sums',
      'stats_year_sums', 'stats_category_year_sums', 'stats_party_year_sums', 'stats_weekday_year_sums']) {
      n += Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where user_id = ${leaving.user.id}`.execute(api.db)).rows[0].n);
    }
    return n;
  };
  t.equal(await rowsOf(), 10, 'a day, a month and a year row in each summary, and a weekday row');
  t.equal((await api.request('DELETE', '/api/v1/account', { token: leaving.token, body: { confirm_delete: true } })).status, 200);
  t.equal(await rowsOf(), 0);
  await summaryAgreesWithRows(t, 'another account deleted');
});

t.test('GET /stats reads the summary for a dense ledger only', async (t) => {
  t.equal(await sums.summaryPays(api.db, userId, 'UTC'), false, 'a few transactions a day: the rows');
  const dense = await api.newUser();
  const wallet = await fx.mainWallet(dense.user.id);
  // 150 expenses of 1.01 on one day, and the wallet's totals as the ledger keeps them
  await sql`insert into transactions (user_id, wallet_id, type, amount, datetime, updated_at, last_synced_at)
    select ${dense.user.id}, ${wallet}, 'expense', 1.01, timestamptz '2026-11-10 08:00:00+00' + n * interval '1 minute', now(), now()
    from generate_series(1, 150) n`.execute(api.db);
  t.equal(await sums.summaryPays(api.db, dense.user.id, 'UTC'), true, '150 a day: the summary');
  t.equal(await sums.summaryPays(api.db, dense.user.id, 'Asia/Tokyo'), false, 'not in a zone it is not kept in');
  t.same(await summaryOffRecount(api, dense.user.id, 'UTC'), []);
  const res = await api.request('GET', '/api/v1/stats?start_date=2026-11-01&end_date=2026-11-19', { token: dense.token });
  t.equal(res.status, 200);
  t.match(res.body.data.overview, { total_expenses: 151.5 });
  t.match(res.body.data.activity, { transaction_count: 150, busiest_day: 'Tuesday' });
  t.match(res.body.data.top_categories.expenses, [{ id: null, amount: 151.5, transaction_count: 150 }]);
});

t.test('spanPlan reads a partial month from its month row when its other days are fewer', async (t) => {
  const range = (first: string, last: string) => ({ first, last });
  t.same(spanPlan(range('2026-10-27', '2026-11-26'), '2026-11-26'), {
    months: range('2026-11-01', '2026-11-01'),
    plus: [range('2026-10-27', '2026-10-31')],
    minus: [range('2026-11-27', '2026-11-30')],
  }, '30 days: the days of October, November less the days to come');
  t.same(spanPlan(range('2026-01-01', '2026-03-31'), '2026-11-26'), { months: range('2026-01-01', '2026-03-01'), plus: [], minus: [] }, 'whole months');
  t.same(spanPlan(range('2026-11-16', '2026-11-19'), '2026-11-19'), { plus: [range('2026-11-16', '2026-11-19')], minus: [] }, 'a few days: the days');
  t.same(spanPlan(range('2026-10-03', '2026-10-31'), '2026-11-19'), { months: range('2026-10-01', '2026-10-01'), plus: [], minus: [range('2026-10-01', '2026-10-02')] }, 'October less its first two days');
  t.same(spanPlan(range('2026-11-01', '2026-11-15')), { plus: [range('2026-11-01', '2026-11-15')], minus: [] }, 'half a month, no today: the days');
  t.same(spanPlan(range('2026-11-01', '2026-11-15'), '2026-11-15'), { months: range('2026-11-01', '2026-11-01'), plus: [], minus: [range('2026-11-16', '2026-11-30')] }, 'the current month less the days to come');
});

t.test('yearPlan reads whole years, and the current year less the days to come, from the yearly rollups', async (t) => {
  const range = (first: string, last: string) => ({ first, last });
  t.same(yearPlan(range('2000-01-01', '2026-11-26'), '2026-11-26'), { years: range('2000-01-01', '2026-01-01'), minus: [range('2026-11-27', '2026-12-31')], rest: [] }, 'all time: year rows only');
  t.same(yearPlan(range('2024-03-15', '2026-06-10'), '2026-11-26'), {
    years: range('2025-01-01', '2025-01-01'),
    minus: [],
    rest: [range('2024-03-15', '2024-12-31'), range('2026-01-01', '2026-06-10')],
  }, 'whole years between partial ones');
  t.same(yearPlan(range('2025-01-01', '2025-12-31'), '2026-11-26'), { years: range('2025-01-01', '2025-01-01'), minus: [], rest: [] }, 'a whole year');
  t.same(yearPlan(range('2026-08-26', '2026-11-26'), '2026-11-26'), { minus: [], rest: [range('2026-08-26', '2026-11-26')] }, 'no whole year: as spanPlan says');
  t.same(yearPlan(range('2026-01-01', '2026-11-26')), { minus: [], rest: [range('2026-01-01', '2026-11-26')] }, 'no today: a partial year is not a year row');
});

t.test('statsSetup checks the asked wallets and reads their balances with the settings', async (t) => {
  const asked = await sums.statsSetup(api.db, userId, { walletIds: [usd, euro, 999_999_999], balances: true });
  t.equal(asked.missingWallets, 1, 'the id of no wallet of the user');
  t.equal((await sums.statsSetup(api.db, userId, { walletIds: [usd, euro] })).missingWallets, 0);
  const sorted = (rows: Array<{ currency: string; total: string }>) => [...rows].sort((a, b) => a.currency.localeCompare(b.currency));
  t.same(sorted(asked.balances), sorted(await sums.balancesPerCurrency(api.db, userId, [usd, euro])), 'the asked wallets\' balances, exact strings as balancesPerCurrency');
  const all = await sums.statsSetup(api.db, userId, { balances: true });
  t.same(sorted(all.balances), sorted(await sums.balancesPerCurrency(api.db, userId)), 'every live wallet without a filter');
  t.ok(all.balances.every((row) => typeof row.total === 'string'), 'sums stay decimal strings');
  t.same((await sums.statsSetup(api.db, userId)).balances, [], 'none unless asked for');
});

t.test('reads run together keep exact sums (JSON carries them as text)', async (t) => {
  const rich = await api.newUser();
  const wallet = await fx.mainWallet(rich.user.id);
  // 19 digits: a JSON number (a double) would come back as 123456789012345.67
  await sql`insert into transactions (user_id, wallet_id, type, amount, datetime, updated_at, last_synced_at)
    values (${rich.user.id}, ${wallet}, 'income', 123456789012345.6789, timestamptz '2026-11-10 08:00:00+00', now(), now())`.execute(api.db);
  const range = statsRange({ startDate: '2026-11-01', endDate: '2026-11-19' }, NOW, 'UTC')!;
  const window = { userId: rich.user.id, from: range.from, before: range.before };
  const [days, today] = [{ first: range.startDay, last: range.endDay }, dayIn(NOW, 'UTC')];
  const [digest, dimensions, largest] = await sums.readTogether(api.db, [
    dailyDigestRead(window, { first: range.previousStartDay, last: range.endDay }, 'UTC', NOW, today, { startDay: range.startDay, byDay: false }),
    sums.dimensionSumsRead(window, days, today),
    sums.largestPerWalletRead(window, days, today),
  ]);
  const exact = '123456789012345.6789';
  t.same(digest.totals.map((s) => s.total), [exact], 'the digest total');
  t.same(dimensions.categories.map((s) => s.total), [exact], 'the category sum');
  t.same((await sums.largestOrRaw(api.db, window, largest)).map((row) => [row.amount, row.datetime.toISOString()]), [[exact, '2026-11-10T08:00:00.000Z']], 'the largest row and its instant');
});
