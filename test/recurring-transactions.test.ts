// The job that materialises recurring transactions, with a controllable clock.
import t from 'tap';
import { materialiseDueOccurrences } from '../jobs/recurring-transactions.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

let clock = new Date('2026-01-01T10:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 }); // the clock moves months
const fx = ledgerFixtures(api);
const owner = await api.newUser();

async function recurringExpense(walletId: number, body: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/api/v1/transactions', {
    token: owner.token,
    body: { type: 'expense', amount: 12.5, wallet_id: walletId, datetime: '2026-01-01T09:00:00Z', is_recurring: true, recurrence_period: 'daily', ...body },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: number; recurring_rules: { next_scheduled_at: string } };
}

const occurrencesOf = (templateId: number) =>
  api.db.selectFrom('transactions').selectAll().where('recurring_parent_id', '=', templateId).orderBy('datetime').execute();
const balanceOf = async (walletId: number) =>
  (await api.db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance;

t.test('each due occurrence becomes one transaction dated on it; reruns create nothing', async (t) => {
  clock = new Date('2026-01-01T10:00:00Z');
  const wallet = await fx.wallet(owner.user.id, { balance: '100' });
  const category = await fx.category(owner.user.id);
  const template = await recurringExpense(wallet, { categories: [category], description: 'Coffee' });
  t.equal(template.recurring_rules.next_scheduled_at, '2026-01-02T09:00:00.000Z');
  t.equal(await balanceOf(wallet), '87.5000');

  clock = new Date('2026-01-04T12:00:00Z');
  t.equal(await materialiseDueOccurrences(api.db, api.app.services, clock), 3, 'Jan 2, 3 and 4 were missed and are caught up');
  const made = await occurrencesOf(template.id);
  t.same(made.map((row) => row.datetime.toISOString()), ['2026-01-02T09:00:00.000Z', '2026-01-03T09:00:00.000Z', '2026-01-04T09:00:00.000Z']);
  t.ok(made.every((row) => row.amount === '12.5000' && row.type === 'expense' && row.description === 'Coffee' && row.wallet_id === wallet));
  const links = await api.db.selectFrom('transaction_categories').select('category_id').where('transaction_id', 'in', made.map((r) => r.id)).execute();
  t.same(links.map((l) => l.category_id), [category, category, category], 'categories are copied');
  t.equal(await balanceOf(wallet), '50.0000', 'each occurrence moved the balance');
  const rule = await api.db.selectFrom('recurring_rules').selectAll().where('transaction_id', '=', template.id).executeTakeFirstOrThrow();
  t.equal(rule.next_scheduled_at.toISOString(), '2026-01-05T09:00:00.000Z', 'advanced from the last occurrence');

  t.equal(await materialiseDueOccurrences(api.db, api.app.services, clock), 0, 'a second run at the same time creates nothing');
  t.equal((await occurrencesOf(template.id)).length, 3);

  const listed = await api.request('GET', '/api/v1/transactions?limit=100', { token: owner.token });
  t.equal(listed.body.data.data.filter((tx: { description: string }) => tx.description === 'Coffee').length, 4, 'the occurrences are ordinary transactions');
});

t.test('two workers running at once create each occurrence exactly once', async (t) => {
  clock = new Date('2026-02-01T10:00:00Z');
  const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
  const templates = await Promise.all([1, 2, 3].map(() => recurringExpense(wallet, { datetime: '2026-02-01T09:00:00Z' })));
  clock = new Date('2026-02-11T10:00:00Z');
  // Rules of the other tests are due too; only this test's templates are counted.
  await Promise.all([materialiseDueOccurrences(api.db, api.app.services, clock), materialiseDueOccurrences(api.db, api.app.services, clock)]);
  for (const template of templates) {
    const made = await occurrencesOf(template.id);
    t.equal(made.length, 10, '10 days, each once');
    t.equal(new Set(made.map((row) => row.datetime.toISOString())).size, 10);
  }
  t.equal(await balanceOf(wallet), '587.5000', '1000 − 3 × 12.5 − 30 × 12.5');
});

t.test('an end date stops the rule; a deleted template stops it too', async (t) => {
  clock = new Date('2026-03-01T10:00:00Z');
  const wallet = await fx.wallet(owner.user.id, { balance: '1000' });
  const ending = await recurringExpense(wallet, { datetime: '2026-03-01T09:00:00Z', recurrence_ends_at: '2026-03-03T12:00:00Z' });
  const deleted = await recurringExpense(wallet, { datetime: '2026-03-01T09:00:00Z' });
  t.equal((await api.request('DELETE', `/api/v1/transactions/${deleted.id}`, { token: owner.token })).status, 200);
  clock = new Date('2026-03-10T10:00:00Z');
  await materialiseDueOccurrences(api.db, api.app.services, clock);
  t.same((await occurrencesOf(ending.id)).map((r) => r.datetime.toISOString()), ['2026-03-02T09:00:00.000Z', '2026-03-03T09:00:00.000Z']);
  t.equal((await occurrencesOf(deleted.id)).length, 0);
  await materialiseDueOccurrences(api.db, api.app.services, new Date('2026-04-01T00:00:00Z'));
  t.equal((await occurrencesOf(ending.id)).length, 2, 'nothing more after the end, ever');
});

t.test('a scheduled expense is recorded even when it overdraws the wallet', async (t) => {
  clock = new Date('2026-05-01T10:00:00Z');
  const wallet = await fx.wallet(owner.user.id, { balance: '20' });
  const template = await recurringExpense(wallet, { datetime: '2026-05-01T09:00:00Z' });
  clock = new Date('2026-05-03T10:00:00Z');
  await materialiseDueOccurrences(api.db, api.app.services, clock);
  t.equal(await balanceOf(wallet), '-17.5000', 'what happened is recorded; an interactive write would have been refused');
  t.equal((await occurrencesOf(template.id)).length, 2);
});
