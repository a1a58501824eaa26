// Budget alerts: a transaction write that moves a budget across its threshold, into forecast
// breach or over its limit creates one notification and one budget_alert reminder per budget,
// kind and window, with the real numbers; a rolled back write alerts nothing; an alert that
// fails never fails the write. Deleting or unmarking a refund and the recurring-transactions
// job alert too, and a write that alerted nudges e-mail delivery once after it committed.
import { sql } from 'kysely';
import t from 'tap';
import { alertBudgetsAfterWrite, withBudgetAlerts } from '../db/budget-alerts.js';
import { createTransactionEntry } from '../handlers/shared/transaction-writes.js';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import type { AppServices } from '../server/services.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

let clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 });
const fx = ledgerFixtures(api);
// No job runner in tests: a recording fake stands in for it to see the delivery nudges.
const nudges: string[] = [];
api.app.services.jobs.attach({ send: async (name) => void nudges.push(name) });

async function newLedger() {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '100000' });
  const spend = async (amount: number, datetime: string, body: Record<string, unknown> = {}) => {
    const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet, datetime, ...body } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data.id as number;
  };
  const budget = async (body: Record<string, unknown> = {}) => {
    const res = await api.request('POST', '/api/v1/budgets', {
      token: user.token,
      body: { name: 'Groceries', amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', forecast_alerts_enabled: false, ...body },
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data as { id: number };
  };
  const alerts = () =>
    api.db
      .selectFrom('notifications')
      .innerJoin('reminders', 'reminders.id', 'notifications.reminder_id')
      .select(['notifications.type', 'notifications.title', 'notifications.body', 'notifications.data', 'reminders.type as reminder_type', 'reminders.budget_id', 'reminders.status', 'reminders.source'])
      .where('notifications.user_id', '=', user.user.id)
      .orderBy('notifications.id')
      .execute();
  const emails = () => api.db.selectFrom('emails').select(['subject', 'kind']).where('user_id', '=', user.user.id).orderBy('id').execute();
  return { user, wallet, spend, budget, alerts, emails };
}

/** An expense of 300 and one of 150 in Food, and a refund of 250 of the first: 200 of 500 spent. */
async function refundedLedger() {
  const ledger = await newLedger();
  const food = await fx.category(ledger.user.user.id);
  const groceries = await ledger.budget({ targets: [{ type: 'category', id: food }] });
  const expense = await ledger.spend(300, '2026-03-02T10:00:00Z', { categories: [food] });
  // the income itself is in no category: only its original expense ties it to the budget
  const refund = await ledger.spend(250, '2026-03-03T10:00:00Z', { type: 'income' });
  const marked = await api.request('POST', `/api/v1/transactions/${refund}/refund`, { token: ledger.user.token, body: { original_transaction_id: expense } });
  if (marked.status !== 200) throw new Error(JSON.stringify(marked.body));
  await ledger.spend(150, '2026-03-04T10:00:00Z', { categories: [food] });
  return { ...ledger, groceries, refund };
}

t.test('crossing the threshold alerts once per kind and window, with the numbers', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { spend, budget, alerts } = await newLedger();
  const groceries = await budget();
  await spend(300, '2026-03-02T10:00:00Z');
  t.same(await alerts(), [], '60% is on track');

  await spend(125, '2026-03-05T10:00:00Z');
  const [threshold, ...rest] = await alerts();
  t.same(rest, []);
  t.match(threshold, {
    type: 'alert',
    title: 'Budget near limit: Groceries',
    reminder_type: 'budget_alert',
    budget_id: groceries.id,
    status: 'completed',
    source: 'threshold',
    data: { budget_id: groceries.id, kind: 'threshold', period_start: '2026-03-01', period_end: '2026-03-31' },
  });
  t.match(threshold.body, 'Groceries: 85% used — 425.00 of 500.00 USD');

  await spend(10, '2026-03-06T10:00:00Z');
  t.equal((await alerts()).length, 1, 'still near the limit in the same window: no second alert');

  await spend(100, '2026-03-07T10:00:00Z');
  const afterOver = await alerts();
  t.equal(afterOver.length, 2, 'going over is a new kind');
  t.match(afterOver[1], { title: 'Budget exceeded: Groceries', data: { kind: 'over_budget', period_start: '2026-03-01' } });
  t.match(afterOver[1].body, '107% used — 535.00 of 500.00 USD');
  t.match(afterOver[1].body, '35.00 USD over');
  await spend(1, '2026-03-08T10:00:00Z');
  t.equal((await alerts()).length, 2);

  clock = new Date('2026-04-02T12:00:00Z');
  await spend(450, '2026-04-02T10:00:00Z');
  const april = await alerts();
  t.equal(april.length, 3, 'a new window alerts again');
  t.match(april[2], { data: { kind: 'threshold', period_start: '2026-04-01', period_end: '2026-04-30' } });
  t.match(april[2].body, '90% used — 450.00 of 500.00 USD');

  const rows = await api.db.selectFrom('budget_alerts').select(['kind', 'period_start', 'notification_id', 'reminder_id']).where('budget_id', '=', groceries.id).orderBy('id').execute();
  t.same(rows.map((r) => [r.kind, r.period_start]), [['threshold', '2026-03-01'], ['over_budget', '2026-03-01'], ['threshold', '2026-04-01']]);
  t.ok(rows.every((r) => r.notification_id !== null && r.reminder_id !== null));
});

t.test('a write past the threshold and the limit at once records both, and notifies the excess alone', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { spend, budget, alerts } = await newLedger();
  const groceries = await budget();
  await spend(60, '2026-03-02T10:00:00Z');
  t.same(await alerts(), [], '12% is on track');
  await spend(455, '2026-03-03T10:00:00Z');
  const [exceeded, ...rest] = await alerts();
  t.same(rest, [], 'one notification for one write');
  t.match(exceeded, { title: 'Budget exceeded: Groceries', data: { budget_id: groceries.id, kind: 'over_budget' } });
  t.match(exceeded.body, '103% used — 515.00 of 500.00 USD');
  const rows = await api.db.selectFrom('budget_alerts').select(['kind', 'notification_id']).where('budget_id', '=', groceries.id).orderBy('id').execute();
  t.same(rows.map((r) => [r.kind, r.notification_id === null]), [['threshold', true], ['over_budget', false]], 'the threshold is recorded too, without a notification of its own');
  await spend(5, '2026-03-04T10:00:00Z');
  t.equal((await alerts()).length, 1, 'nothing more in this window');
});

t.test('forecast breach alerts; budgets the expense is not under stay quiet', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, spend, budget, alerts } = await newLedger();
  const food = await fx.category(user.user.id);
  const other = await fx.category(user.user.id);
  const pace = await budget({ name: 'Pace', amount: 1000, forecast_alerts_enabled: true, targets: [{ type: 'category', id: food }] });
  await budget({ name: 'Elsewhere', amount: 10, targets: [{ type: 'category', id: other }] });
  await budget({ name: 'Asleep', amount: 10, is_active: false });
  await spend(600, '2026-03-10T10:00:00Z', { categories: [food] });
  const [forecast, ...rest] = await alerts();
  t.same(rest, [], 'only the matching active budget alerts');
  t.match(forecast, { title: 'Budget forecast to breach: Pace', data: { budget_id: pace.id, kind: 'forecast' }, source: 'forecast' });
  // 600 over 15 of 31 days: 1240 projected
  t.match(forecast.body, 'at this pace 1240.00 USD will be spent by 2026-03-31');
  t.match(forecast.body, '600.00 of 1000.00 USD');

});

t.test('an update that moves an expense into a budget alerts it', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, spend, budget, alerts } = await newLedger();
  const food = await fx.category(user.user.id);
  const moved = await budget({ name: 'Food', targets: [{ type: 'category', id: food }] });
  const id = await spend(450, '2026-03-10T10:00:00Z');
  t.same(await alerts(), []);
  const res = await api.request('PUT', `/api/v1/transactions/${id}?type=expense`, { token: user.token, body: { amount: 450, updated_at: new Date(Date.now() + 60_000).toISOString(), categories: [food] } });
  t.equal(res.status, 200, JSON.stringify(res.body));
  t.match(await alerts(), [{ data: { budget_id: moved.id, kind: 'threshold' } }]);
});

t.test('a rolled back write alerts nothing; a failing alert never fails the write', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, wallet, budget, alerts } = await newLedger();
  const euros = await budget({ name: 'Euros', currency: 'EUR', amount: 10 });
  const services = api.app.services;
  const entry = { type: 'expense' as const, amount: '50.0000', walletId: wallet, datetime: new Date('2026-03-10T10:00:00Z') };

  await t.rejects(
    api.db.transaction().execute(async (trx) => {
      const id = await createTransactionEntry(trx, user.user.id, entry, clock);
      await alertBudgetsAfterWrite(trx, services, user.user.id, id);
      const kinds = (await trx.selectFrom('budget_alerts').select('kind').where('budget_id', '=', euros.id).orderBy('id').execute()).map((row) => row.kind);
      t.same(kinds, ['threshold', 'over_budget'], 'alerted inside the write');
      throw new Error('the write fails later');
    }),
  );
  t.same(await alerts(), [], 'rolled back with the write');

  // A rates service that breaks the database transaction (a failing SQL statement) and throws.
  const brokenRates: AppServices['rates'] = {
    rate: async (db: any) => {
      await sql`select 1 / 0`.execute(db);
      return undefined;
    },
    rates: (...args) => services.rates.rates(...args),
    withoutProvider: () => brokenRates,
  };
  const broken = { ...services, rates: brokenRates } as AppServices;
  const errors: unknown[] = [];
  const log = { error: (entry: unknown) => errors.push(entry) } as any;
  const id = await api.db.transaction().execute(async (trx) => {
    const made = await createTransactionEntry(trx, user.user.id, entry, clock);
    await alertBudgetsAfterWrite(trx, broken, user.user.id, made, log);
    await trx.updateTable('transactions').set({ description: 'still writable' }).where('id', '=', made).execute();
    return made;
  });
  const saved = await api.db.selectFrom('transactions').select('description').where('id', '=', id).executeTakeFirst();
  t.equal(saved?.description, 'still writable', 'the write committed');
  t.equal(errors.length, 1, 'the failure was logged');
  t.same(await alerts(), []);
});

t.test('deleting a refund that pushes a budget over its threshold alerts once and nudges e-mail delivery', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, groceries, refund, alerts, emails } = await refundedLedger();
  t.same(await alerts(), [], '40% used');
  nudges.length = 0;

  const res = await api.request('DELETE', `/api/v1/transactions/${refund}`, { token: user.token });
  t.equal(res.status, 200);
  const [threshold, ...rest] = await alerts();
  t.same(rest, []);
  t.match(threshold, { title: 'Budget near limit: Groceries', data: { budget_id: groceries.id, kind: 'threshold', period_start: '2026-03-01' } });
  t.match(threshold.body, '90% used — 450.00 of 500.00 USD');
  t.match(await emails(), [{ subject: 'Budget near limit: Groceries', kind: 'notification' }], 'the alert e-mail is in the outbox');
  t.same(nudges, [DELIVER_EMAILS_JOB], 'delivery nudged once, after the commit');
});

t.test('unmarking a refund that pushes a budget over its threshold alerts once', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, groceries, refund, alerts, emails } = await refundedLedger();
  nudges.length = 0;
  const unmark = () => api.request('DELETE', `/api/v1/transactions/${refund}/refund`, { token: user.token });

  t.equal((await unmark()).status, 200);
  t.match(await alerts(), [{ data: { budget_id: groceries.id, kind: 'threshold' } }]);
  t.equal((await alerts()).length, 1);
  t.same(nudges, [DELIVER_EMAILS_JOB]);

  t.equal((await unmark()).status, 200, 'unmarking again changes nothing');
  const mark = await api.request('POST', `/api/v1/transactions/${refund}/refund`, { token: user.token, body: {} });
  t.equal(mark.status, 200);
  t.equal((await unmark()).status, 200);
  t.equal((await alerts()).length, 1, 'one alert per budget, kind and window');
  t.equal((await emails()).length, 1);
  t.same(nudges, [DELIVER_EMAILS_JOB], 'writes that alerted nothing nudge nothing');
});

t.test('re-marking a refund for another expense alerts the budgets of the one it refunded before', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, spend, groceries, refund, alerts } = await refundedLedger();
  const elsewhere = await spend(10, '2026-03-05T10:00:00Z');
  nudges.length = 0;
  const remark = await api.request('POST', `/api/v1/transactions/${refund}/refund`, { token: user.token, body: { original_transaction_id: elsewhere } });
  t.equal(remark.status, 200);
  t.match(await alerts(), [{ data: { budget_id: groceries.id, kind: 'threshold' } }]);
  t.equal((await alerts()).length, 1);
  t.same(nudges, [DELIVER_EMAILS_JOB]);
});

t.test('a recurring expense materialised by the job that crosses the threshold alerts once', async (t) => {
  clock = new Date('2026-03-10T10:00:00Z');
  const { user, wallet, budget, alerts, emails } = await newLedger();
  const rent = await budget({ name: 'Rent', amount: 100 });
  const template = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'expense', amount: 30, wallet_id: wallet, datetime: '2026-03-10T09:00:00Z', is_recurring: true, recurrence_period: 'daily' },
  });
  t.equal(template.status, 201);
  t.same(await alerts(), [], '30% used');
  nudges.length = 0;

  clock = new Date('2026-03-12T12:00:00Z');
  t.equal(await materialiseDueOccurrences(api.db, api.app.services, clock), 2, 'Mar 11 and 12');
  t.match(await alerts(), [{ title: 'Budget near limit: Rent', data: { budget_id: rent.id, kind: 'threshold' } }]);
  t.match((await alerts())[0].body, '90% used — 90.00 of 100.00 USD');
  t.equal((await emails()).length, 1);
  t.same(nudges, [DELIVER_EMAILS_JOB], 'the job nudges delivery after its writes');

  t.equal(await materialiseDueOccurrences(api.db, api.app.services, clock), 0, 'a rerun creates nothing');
  t.equal((await alerts()).length, 1, 'and alerts nothing again');
  t.same(nudges, [DELIVER_EMAILS_JOB]);
});

t.test('a write that fails after alerting nudges nothing', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, wallet, budget, alerts } = await newLedger();
  await budget({ amount: 10 });
  nudges.length = 0;
  await t.rejects(
    withBudgetAlerts(api.app.services, undefined, (alert) =>
      api.db.transaction().execute(async (trx) => {
        const id = await createTransactionEntry(trx, user.user.id, { type: 'expense', amount: '50.0000', walletId: wallet, datetime: new Date('2026-03-10T10:00:00Z') }, clock);
        await alert(trx, user.user.id, id);
        throw new Error('the write fails later');
      }),
    ),
  );
  t.same(await alerts(), []);
  t.same(nudges, []);
});
