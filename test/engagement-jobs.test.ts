// The scheduled engagement producers: inactivity nudges and insights summaries. Both respect
// the notification preferences and send each message once per period (reruns, two workers).
import t from 'tap';
import { inactivityNudgesJob, sendInactivityNudges } from '../jobs/inactivity-nudges.js';
import { insightsPeriod, insightsSummaryJob, sendInsightsSummaries } from '../jobs/insights-summary.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

let clock = new Date('2026-06-01T10:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 });
const fx = ledgerFixtures(api);
const jobContext = { db: api.db, services: api.app.services, log: api.app.log };
const DAY = 86_400_000;

async function entry(
  userId: number,
  type: 'income' | 'expense',
  amount: string,
  datetime: string,
  options: { createdAt?: string; categoryId?: number; walletId?: number } = {},
) {
  const wallet = options.walletId ?? (await fx.mainWallet(userId));
  const row = await api.db
    .insertInto('transactions')
    .values({ user_id: userId, wallet_id: wallet, type, amount, datetime, created_at: options.createdAt ?? datetime, updated_at: options.createdAt ?? datetime })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (options.categoryId) await api.db.insertInto('transaction_categories').values({ transaction_id: row.id, category_id: options.categoryId, user_id: userId }).execute();
  return row.id;
}
const notificationsOf = (userId: number, type: 'alert' | 'system') =>
  api.db.selectFrom('notifications').selectAll().where('user_id', '=', userId).where('type', '=', type).orderBy('id').execute();
const emailsOf = (userId: number) => api.db.selectFrom('emails').selectAll().where('user_id', '=', userId).orderBy('id').execute();
async function setting(userId: number, key: string, value: unknown, type: 'string' | 'bool' = 'string') {
  await api.db.insertInto('configurations').values({ user_id: userId, key, value: JSON.stringify(value), type }).execute();
}
async function preferences(token: string, body: Record<string, unknown>) {
  const res = await api.request('PUT', '/api/v1/notifications/preferences', { token, body });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
}
const ago = (days: number) => new Date(clock.getTime() - days * DAY).toISOString();

t.test('inactivity: a nudge per tier and stretch, never twice', async (t) => {
  clock = new Date('2026-06-01T10:00:00Z');
  const quiet = await api.newUser();
  const busy = await api.newUser();
  const gone = await api.newUser();
  const never = await api.newUser();
  await entry(quiet.user.id, 'expense', '10', ago(20), { createdAt: ago(8) }); // recorded 8 days ago
  await entry(busy.user.id, 'expense', '10', ago(30), { createdAt: ago(2) });
  await entry(gone.user.id, 'expense', '10', ago(70));

  await inactivityNudgesJob.run(jobContext, {});
  await inactivityNudgesJob.run(jobContext, {});
  const nudges = await notificationsOf(quiet.user.id, 'alert');
  t.equal(nudges.length, 1, 'once, however often the job runs');
  t.match(nudges[0], { title: /quiet|One week|check-in/i, body: /^8 days since your last transaction/, data: { type: 'inactivity', days_inactive: 8 } });
  t.equal((await emailsOf(quiet.user.id)).filter((m) => m.subject === nudges[0].title).length, 1, 'and one e-mail');
  for (const other of [busy, gone, never]) t.equal((await notificationsOf(other.user.id, 'alert')).length, 0, 'active, gone over 60 days, or never started: no nudge');

  clock = new Date(clock.getTime() + 6 * DAY); // 14 days
  await sendInactivityNudges(api.db, clock);
  t.equal((await notificationsOf(quiet.user.id, 'alert')).length, 2, 'the 14-day tier');
  await sendInactivityNudges(api.db, new Date(clock.getTime() + DAY));
  t.equal((await notificationsOf(quiet.user.id, 'alert')).length, 2, 'nothing more until the 30-day tier');

  await entry(quiet.user.id, 'income', '5', clock.toISOString());
  clock = new Date(clock.getTime() + 7 * DAY);
  await sendInactivityNudges(api.db, clock);
  const after = await notificationsOf(quiet.user.id, 'alert');
  t.equal(after.length, 3, 'a new transaction starts a new stretch');
  t.match(after[2].data, { days_inactive: 7 });
});

t.test('inactivity: two workers nudge once; preferences and the opt-out hold', async (t) => {
  clock = new Date('2026-07-01T10:00:00Z');
  const twice = await api.newUser();
  const prefOff = await api.newUser();
  const optedOut = await api.newUser();
  const noEmail = await api.newUser();
  for (const user of [twice, prefOff, optedOut, noEmail]) await entry(user.user.id, 'expense', '3', ago(9));
  await preferences(prefOff.token, { types: { inactivity: false } });
  await preferences(noEmail.token, { channels: { email: false } });
  await setting(optedOut.user.id, 'inactivity-reminders-enabled', false, 'bool');

  await Promise.all([sendInactivityNudges(api.db, clock), sendInactivityNudges(api.db, clock)]);
  t.equal((await notificationsOf(twice.user.id, 'alert')).length, 1);
  t.equal((await emailsOf(twice.user.id)).length, 1);
  t.equal((await notificationsOf(prefOff.user.id, 'alert')).length, 0, 'inactivity preference off: nothing');
  t.equal((await emailsOf(prefOff.user.id)).length, 0);
  t.equal((await notificationsOf(optedOut.user.id, 'alert')).length, 0, 'inactivity-reminders-enabled false: nothing');
  t.equal((await notificationsOf(noEmail.user.id, 'alert')).length, 1);
  t.equal((await emailsOf(noEmail.user.id)).length, 0, 'e-mail channel off: in-app only');
});

t.test('insights periods', async (t) => {
  const monday = new Date('2026-06-29T08:00:00Z');
  t.match(insightsPeriod('weekly', monday, 'UTC'), { firstDay: '2026-06-22', start: new Date('2026-06-22T00:00:00Z'), end: new Date('2026-06-29T00:00:00Z'), label: 'Jun 22 - Jun 28, 2026' });
  t.match(insightsPeriod('weekly', new Date('2026-07-01T08:00:00Z'), 'UTC'), { firstDay: '2026-06-22' }, 'the same week until the next one ends');
  t.match(insightsPeriod('weekly', monday, 'Asia/Tokyo'), { start: new Date('2026-06-21T15:00:00Z'), end: new Date('2026-06-28T15:00:00Z') });
  t.match(insightsPeriod('monthly', monday, 'UTC'), { firstDay: '2026-05-01', label: 'May 2026', previous: { start: new Date('2026-04-01T00:00:00Z') } });
  t.match(insightsPeriod('monthly', new Date('2026-01-01T08:00:00Z'), 'UTC'), { firstDay: '2025-12-01', label: 'December 2025' });
});

t.test('insights: a weekly summary with the real sums, once', async (t) => {
  clock = new Date('2026-06-29T08:00:00Z');
  const user = await api.newUser();
  const food = await fx.category(user.user.id);
  await entry(user.user.id, 'income', '5000', '2026-06-22T09:00:00Z');
  await entry(user.user.id, 'expense', '1200.50', '2026-06-23T12:00:00Z', { categoryId: food });
  await entry(user.user.id, 'expense', '300', '2026-06-28T23:59:00Z');
  await entry(user.user.id, 'expense', '999', '2026-06-29T01:00:00Z'); // this week: not in the summary
  await entry(user.user.id, 'expense', '1000', '2026-06-16T10:00:00Z'); // the week before
  await Promise.all([insightsSummaryJob.run(jobContext, {}), insightsSummaryJob.run(jobContext, {})]);
  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-06-30T08:00:00Z'));
  const sent = await notificationsOf(user.user.id, 'system');
  t.equal(sent.length, 1, 'once per week, however often the job runs');
  t.equal(sent[0].title, 'Weekly Financial Insights');
  t.equal(sent[0].body, 'Your weekly insights for Jun 22 - Jun 28, 2026 are ready. Income: 5,000.00 USD, Expenses: 1,500.50 USD, Savings rate: 70.0%.');
  const { data } = sent[0];
  t.match(data, { type: 'insights', frequency: 'weekly', currency: 'USD', unconverted_currencies: [], income: 5000, expenses: 1500.5, net: 3499.5, savings_rate: 70, transaction_count: 3, expense_change_percent: 50.1 });
  t.same(data.expenses_by_category, [
    { category: (await api.db.selectFrom('categories').select('name').where('id', '=', food).executeTakeFirstOrThrow()).name, amount: 1200.5 },
    { category: 'Uncategorized', amount: 300 },
  ]);
  t.equal((await emailsOf(user.user.id)).filter((m) => m.subject === 'Weekly Financial Insights').length, 1);

  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-07-06T08:00:00Z'));
  const next = await notificationsOf(user.user.id, 'system');
  t.equal(next.length, 2, 'the next week gets its own summary');
  t.match(next[1].data, { income: 0, expenses: 999, transaction_count: 1, savings_rate: 0 });
});

t.test('insights: a split expense counts each line under its own category (issue 44)', async (t) => {
  clock = new Date('2026-06-29T08:00:00Z');
  const user = await api.newUser();
  const food = await fx.category(user.user.id);
  const home = await fx.category(user.user.id);
  const receipt = await entry(user.user.id, 'expense', '100', '2026-06-23T12:00:00Z', { categoryId: home });
  await api.db.insertInto('transaction_categories').values({ transaction_id: receipt, category_id: food, user_id: user.user.id }).execute();
  await api.db
    .insertInto('transaction_splits')
    .values([
      { transaction_id: receipt, user_id: user.user.id, position: 0, amount: '70', category_id: food },
      { transaction_id: receipt, user_id: user.user.id, position: 1, amount: '20', category_id: home },
      { transaction_id: receipt, user_id: user.user.id, position: 2, amount: '10', category_id: null },
    ])
    .execute();
  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-06-30T08:00:00Z'));
  const [sent] = await notificationsOf(user.user.id, 'system');
  const name = async (id: number) => (await api.db.selectFrom('categories').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;
  t.match(sent.data, { expenses: 100, transaction_count: 1 });
  t.same(sent.data.expenses_by_category, [
    { category: await name(food), amount: 70 },
    { category: await name(home), amount: 20 },
    { category: 'Uncategorized', amount: 10 },
  ]);
});

t.test('insights: frequency setting and preferences', async (t) => {
  clock = new Date('2026-06-01T08:00:00Z');
  const monthly = await api.newUser();
  const off = await api.newUser();
  const daily = await api.newUser();
  await setting(monthly.user.id, 'insights-frequency', 'monthly');
  await setting(daily.user.id, 'insights-frequency', 'daily');
  await preferences(off.token, { types: { insights: false } });
  await entry(monthly.user.id, 'income', '100', '2026-05-10T10:00:00Z');
  await sendInsightsSummaries(api.db, api.app.services, clock);
  const sent = await notificationsOf(monthly.user.id, 'system');
  t.equal(sent.length, 1, 'the monthly summary only, no weekly one');
  t.match(sent[0], { title: 'Monthly Financial Insights', data: { frequency: 'monthly', period_label: 'May 2026', income: 100, savings_rate: 100 } });
  t.equal((await notificationsOf(off.user.id, 'system')).length, 0, 'insights off: nothing');
  t.equal((await emailsOf(off.user.id)).length, 0);
  t.equal((await notificationsOf(daily.user.id, 'system')).length, 0, 'daily is not scheduled');
});

t.test("insights: the week is the user's week in their time zone", async (t) => {
  const tokyo = await api.newUser();
  await setting(tokyo.user.id, 'timezone', 'Asia/Tokyo');
  await entry(tokyo.user.id, 'expense', '40', '2026-06-21T16:00:00Z'); // Monday Jun 22, 01:00 in Tokyo: in
  await entry(tokyo.user.id, 'expense', '7', '2026-06-28T16:00:00Z'); // Monday Jun 29, 01:00 in Tokyo: out
  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-06-29T08:00:00Z'));
  const [sent] = await notificationsOf(tokyo.user.id, 'system');
  t.match(sent.data, { period_label: 'Jun 22 - Jun 28, 2026', expenses: 40, transaction_count: 1, period_start: '2026-06-21T15:00:00.000Z' });
});

t.test('insights: sums per currency, converted into the reporting currency with the manual rate', async (t) => {
  const user = await api.newUser();
  const id = user.user.id;
  const euros = await fx.wallet(id, { currency: 'EUR' });
  const dollars = await fx.wallet(id, { currency: 'USD' });
  await setting(id, 'default-currency', 'EUR');
  await setting(id, 'manual-exchange-rates', '{"EUR-USD": 1.25}'); // so 1 USD = 0.8 EUR
  const rent = await fx.category(id);
  await entry(id, 'income', '1000', '2026-06-22T09:00:00Z', { walletId: euros });
  await entry(id, 'income', '500', '2026-06-23T09:00:00Z', { walletId: dollars }); // 400 EUR
  await entry(id, 'expense', '300.10', '2026-06-24T09:00:00Z', { walletId: euros, categoryId: rent });
  await entry(id, 'expense', '250', '2026-06-25T09:00:00Z', { walletId: dollars, categoryId: rent }); // 200 EUR
  await entry(id, 'expense', '123.45', '2026-06-26T09:00:00Z', { walletId: dollars }); // 98.76 EUR
  await entry(id, 'expense', '100', '2026-06-17T09:00:00Z', { walletId: dollars }); // the week before: 80 EUR
  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-06-29T08:00:00Z'));
  const [sent] = await notificationsOf(id, 'system');
  // income 1400, expenses 300.10 + 200 + 98.76 = 598.86, savings (1400 - 598.86) / 1400 = 57.2%
  t.equal(sent.body, 'Your weekly insights for Jun 22 - Jun 28, 2026 are ready. Income: 1,400.00 EUR, Expenses: 598.86 EUR, Savings rate: 57.2%.');
  t.same(
    { ...sent.data, period_start: undefined, period_end: undefined },
    {
      type: 'insights',
      frequency: 'weekly',
      period_label: 'Jun 22 - Jun 28, 2026',
      period_start: undefined,
      period_end: undefined,
      currency: 'EUR',
      income: 1400,
      expenses: 598.86,
      net: 801.14,
      savings_rate: 57.2,
      transaction_count: 5,
      expense_change_percent: 648.6, // (598.86 - 80) / 80
      expenses_by_category: [
        { category: (await api.db.selectFrom('categories').select('name').where('id', '=', rent).executeTakeFirstOrThrow()).name, amount: 500.1 },
        { category: 'Uncategorized', amount: 98.76 },
      ],
      unconverted_currencies: [],
    },
  );
  const [mail] = (await emailsOf(id)).filter((m) => m.subject === 'Weekly Financial Insights');
  t.equal(mail.text_body, sent.body, 'the e-mail says the same');
});

t.test('insights: a currency without a rate is left out and named, not guessed', async (t) => {
  const user = await api.newUser();
  const id = user.user.id;
  const odd = await fx.wallet(id, { currency: 'XTS' }); // the ISO test code: no provider or stored rate
  await entry(id, 'income', '200', '2026-06-22T09:00:00Z');
  await entry(id, 'expense', '50', '2026-06-23T09:00:00Z');
  await entry(id, 'expense', '9999', '2026-06-24T09:00:00Z', { walletId: odd });
  await entry(id, 'income', '7777', '2026-06-24T10:00:00Z', { walletId: odd });
  await sendInsightsSummaries(api.db, api.app.services, new Date('2026-06-29T08:00:00Z'));
  const [sent] = await notificationsOf(id, 'system');
  t.equal(
    sent.body,
    'Your weekly insights for Jun 22 - Jun 28, 2026 are ready. Income: 200.00 USD, Expenses: 50.00 USD, Savings rate: 75.0%. ' +
      'Amounts in XTS are not included: no exchange rate.',
  );
  t.match(sent.data, { currency: 'USD', income: 200, expenses: 50, net: 150, transaction_count: 4, unconverted_currencies: ['XTS'] });
  t.same(sent.data.expenses_by_category, [{ category: 'Uncategorized', amount: 50 }], 'no category made of unconverted money');
});
