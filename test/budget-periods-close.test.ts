// Closing budget windows: close-period over HTTP, the period-state feed, and the scheduled job
// that closes every ended window of rollover budgets (controllable clock, run twice, two
// workers at once).
import t from 'tap';
import { closeBudgetPeriodsJob, closeEndedWindows } from '../jobs/close-budget-periods.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

let clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 });
const fx = ledgerFixtures(api);
const services = api.app.services;
const silent = { info() {}, error() {}, warn() {}, debug() {} } as any;

async function newLedger(zone?: string) {
  const user = await api.newUser();
  if (zone) await fx.setTimeZone(user.user.id, zone);
  const wallet = await fx.wallet(user.user.id, { balance: '100000' });
  const spend = async (amount: number, datetime: string) => {
    const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet, datetime } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  };
  const budget = async (body: Record<string, unknown> = {}) => {
    const res = await api.request('POST', '/api/v1/budgets', {
      token: user.token,
      body: { name: 'Monthly', amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', rollover_enabled: true, ...body },
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data as { id: number };
  };
  return { user, wallet, spend, budget };
}

const statesOf = (budgetId: number) =>
  api.db.selectFrom('budget_period_states').selectAll().where('budget_id', '=', budgetId).orderBy('period_start').execute();
const chain = async (budgetId: number) =>
  (await statesOf(budgetId)).map((s) => [s.period_start, s.period_end, s.net_spent, s.rollover_in, s.rollover_out]);

t.test('close-period: 422 without rollover; a snapshot; closing again updates the one row', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, spend, budget } = await newLedger();
  const plain = await budget({ name: 'No rollover', rollover_enabled: false });
  const refused = await api.request('POST', `/api/v1/budgets/${plain.id}/close-period`, { token: user.token });
  t.equal(refused.status, 422);
  t.ok(refused.body.errors.rollover_enabled);
  t.same(await statesOf(plain.id), []);

  const rolling = await budget({ start_date: '2026-03-01' });
  await spend(300, '2026-03-05T10:00:00Z');
  const closed = await api.request('POST', `/api/v1/budgets/${rolling.id}/close-period`, { token: user.token });
  t.equal(closed.status, 200);
  t.match(closed.body.data, {
    budget_id: rolling.id,
    period_start: '2026-03-01',
    period_end: '2026-03-31',
    net_spent: 300,
    rollover_in: 0,
    rollover_out: 200,
    closed_at: clock.toISOString(),
    client_generated_id: null,
  });

  clock = new Date('2026-03-20T12:00:00Z');
  await spend(50, '2026-03-18T10:00:00Z');
  const again = await api.request('POST', `/api/v1/budgets/${rolling.id}/close-period`, { token: user.token });
  t.equal(again.body.data.id, closed.body.data.id, 'the same window keeps its one row');
  t.match(again.body.data, { net_spent: 350, rollover_out: 150, closed_at: clock.toISOString() });
  t.equal((await statesOf(rolling.id)).length, 1);
});

t.test('the period-state feed: own live budgets only, budget filter, sync parameters', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, budget } = await newLedger();
  const a = await budget({ name: 'A', start_date: '2026-03-01' });
  const b = await budget({ name: 'B', start_date: '2026-03-01' });
  const since = clock.toISOString();
  for (const id of [a.id, b.id]) t.equal((await api.request('POST', `/api/v1/budgets/${id}/close-period`, { token: user.token })).status, 200);

  const all = await api.request('GET', '/api/v1/budget-period-states', { token: user.token });
  t.equal(all.status, 200);
  t.same(all.body.data.data.map((s: { budget_id: number }) => s.budget_id), [a.id, b.id]);
  t.match(all.body.data, { total: 2, current_page: 1 });
  const newest = all.body.data.data.map((s: { last_synced_at: string }) => s.last_synced_at).sort().at(-1);
  t.equal(all.body.data.last_sync, newest, 'last_sync: the newest change stamp among the rows');
  const onlyB = await api.request('GET', `/api/v1/budget-period-states?budget_id=${b.id}`, { token: user.token });
  t.same(onlyB.body.data.data.map((s: { budget_id: number }) => s.budget_id), [b.id]);
  const paged = await api.request('GET', '/api/v1/budget-period-states?limit=1&page=2', { token: user.token });
  t.match(paged.body.data, { total: 2, last_page: 2 });
  t.equal(paged.body.data.data[0].budget_id, b.id);
  t.equal((await api.request('GET', '/api/v1/budget-period-states?no_client_id=true', { token: user.token })).body.data.total, 2, 'server-made rows have no client id');

  // the database stamps changes, so "since then" is the feed's own cursor, not the test clock
  const before = await api.request('GET', `/api/v1/budget-period-states?synced_since=${encodeURIComponent(since)}`, { token: user.token });
  clock = new Date('2026-03-16T12:00:00Z');
  await api.request('POST', `/api/v1/budgets/${a.id}/close-period`, { token: user.token });
  const feed = await api.request('GET', `/api/v1/budget-period-states?cursor=${before.body.data.next_cursor}`, { token: user.token });
  t.same(feed.body.data.data.map((s: { budget_id: number }) => s.budget_id), [a.id], 'only what changed since');
  const fromStart = await api.request('GET', `/api/v1/budget-period-states?synced_since=${encodeURIComponent(since)}`, { token: user.token });
  t.same(fromStart.body.data.data.map((s: { budget_id: number }) => s.budget_id), [b.id, a.id], 'ordered by their change stamps');
  t.equal((await api.request('GET', '/api/v1/budget-period-states?synced_since=never', { token: user.token })).status, 422);
  t.equal((await api.request('GET', '/api/v1/budget-period-states?budget_id=0', { token: user.token })).status, 422);
  const huge = await api.request('GET', '/api/v1/budget-period-states?budget_id=99999999999999999999', { token: user.token });
  t.equal(huge.status, 422, 'an id past 2^53 − 1 is refused like any out-of-range value');

  t.equal((await api.request('DELETE', `/api/v1/budgets/${a.id}`, { token: user.token })).status, 200);
  const afterDelete = await api.request('GET', '/api/v1/budget-period-states', { token: user.token });
  t.same(afterDelete.body.data.data.map((s: { budget_id: number }) => s.budget_id), [b.id], "a deleted budget's states are not listed");
});

t.test('the job closes every ended window in order, chaining rollover; a rerun changes nothing', async (t) => {
  clock = new Date('2026-01-10T12:00:00Z');
  const { user, spend, budget } = await newLedger();
  const rolling = await budget();
  const deficit = await budget({ name: 'Deficit', amount: 100 });
  const inactive = await budget({ name: 'Inactive', is_active: false });
  const plain = await budget({ name: 'Plain', rollover_enabled: false });
  await spend(300, '2026-01-20T10:00:00Z');
  await spend(600, '2026-02-10T10:00:00Z');
  await spend(100, '2026-03-03T10:00:00Z');

  clock = new Date('2026-04-02T06:00:00Z');
  await closeBudgetPeriodsJob.run({ db: api.db, services, log: silent }, {});
  t.same(await chain(rolling.id), [
    ['2026-01-01', '2026-01-31', '300.0000', '0.0000', '200.0000'],
    ['2026-02-01', '2026-02-28', '600.0000', '200.0000', '100.0000'],
    ['2026-03-01', '2026-03-31', '100.0000', '100.0000', '500.0000'],
  ]);
  // amount 100: Jan 100 − 300 → −200, floored at −100; Feb 0 − 600 → floored; Mar 0 − 100 = −100
  t.same(await chain(deficit.id), [
    ['2026-01-01', '2026-01-31', '300.0000', '0.0000', '-100.0000'],
    ['2026-02-01', '2026-02-28', '600.0000', '-100.0000', '-100.0000'],
    ['2026-03-01', '2026-03-31', '100.0000', '-100.0000', '-100.0000'],
  ]);
  t.same(await statesOf(inactive.id), [], 'inactive budgets are not auto-closed');
  t.same(await statesOf(plain.id), [], 'budgets without rollover are not closed');

  const progress = await api.request('GET', `/api/v1/budgets/${rolling.id}/progress`, { token: user.token });
  t.match(progress.body.data, { period_start: '2026-04-01', rollover_in: 500, effective_limit: 1000 }, "April receives March's rollover_out");

  const before = await statesOf(rolling.id);
  clock = new Date('2026-04-02T07:00:00Z');
  t.equal(await closeEndedWindows(api.db, services), 0, 'a second run closes nothing');
  t.same(await statesOf(rolling.id), before, 'and changes nothing');
});

t.test('two workers at once close each window exactly once, with the same numbers', async (t) => {
  clock = new Date('2026-01-05T12:00:00Z');
  const { spend, budget } = await newLedger();
  const budgets = await Promise.all([1, 2, 3].map((n) => budget({ name: `Worker ${n}`, period_type: 'weekly', start_date: '2026-01-05' })));
  await spend(120, '2026-01-06T10:00:00Z');
  await spend(1500, '2026-01-14T10:00:00Z');
  clock = new Date('2026-02-03T12:00:00Z');
  await Promise.all([closeEndedWindows(api.db, services), closeEndedWindows(api.db, services)]);
  for (const b of budgets) {
    const states = await chain(b.id);
    t.same(states.map((s) => s[0]), ['2026-01-05', '2026-01-12', '2026-01-19', '2026-01-26'], 'four ended weeks, each once');
    t.same(states.map((s) => s[4]), ['380.0000', '-500.0000', '0.0000', '500.0000'], 'each week received the one before it');
  }
});

t.test("windows end in the user's time zone; an early close is redone once the window ends", async (t) => {
  clock = new Date('2026-03-10T12:00:00Z');
  const auckland = await newLedger('Pacific/Auckland');
  const utc = await newLedger();
  const far = await auckland.budget({ start_date: '2026-03-01' });
  const near = await utc.budget({ start_date: '2026-03-01' });
  await utc.spend(100, '2026-03-05T10:00:00Z');
  const early = await api.request('POST', `/api/v1/budgets/${near.id}/close-period`, { token: utc.user.token });
  t.match(early.body.data, { period_start: '2026-03-01', net_spent: 100 });
  await utc.spend(50, '2026-03-20T10:00:00Z');

  clock = new Date('2026-03-31T12:00:00Z'); // 1 April, 01:00 in Auckland; still 31 March in UTC
  await closeEndedWindows(api.db, services);
  t.same((await chain(far.id)).map((s) => s[0]), ['2026-03-01'], "March has ended in Auckland");
  t.same(await chain(near.id), [['2026-03-01', '2026-03-31', '100.0000', '0.0000', '400.0000']], 'not yet in UTC: the early close stays');

  clock = new Date('2026-04-01T00:30:00Z');
  await closeEndedWindows(api.db, services);
  t.same(await chain(near.id), [['2026-03-01', '2026-03-31', '150.0000', '0.0000', '350.0000']], 'closed again with its final numbers');
  const [state] = await statesOf(near.id);
  t.equal(state.closed_at?.toISOString(), clock.toISOString());
  const closedAt = clock.toISOString();
  clock = new Date('2026-04-01T03:00:00Z');
  await closeEndedWindows(api.db, services);
  t.equal((await statesOf(near.id))[0].updated_at.toISOString(), closedAt, 'and then left alone');
});

t.test('a close-period of the new window before the job ran still lets the job close the window that ended', async (t) => {
  clock = new Date('2026-03-10T12:00:00Z');
  const { user, spend, budget } = await newLedger();
  const monthly = await budget({ start_date: '2026-02-01' });
  await spend(100, '2026-02-10T10:00:00Z');
  await spend(300, '2026-03-05T10:00:00Z');

  // 1 April 00:02: a client closes "the current window" (April) before the hourly job has run
  clock = new Date('2026-04-01T00:02:00Z');
  const early = await api.request('POST', `/api/v1/budgets/${monthly.id}/close-period`, { token: user.token });
  t.match(early.body.data, { period_start: '2026-04-01', net_spent: 0, rollover_in: 600, rollover_out: 1100 }, 'closing April first closes the windows that ended');

  clock = new Date('2026-04-01T00:05:00Z');
  await closeEndedWindows(api.db, services);
  t.equal((await chain(monthly.id)).length, 3, 'February, March and April, each once');
  t.same(
    (await chain(monthly.id)).slice(0, 2),
    [
      ['2026-02-01', '2026-02-28', '100.0000', '0.0000', '400.0000'],
      ['2026-03-01', '2026-03-31', '300.0000', '400.0000', '600.0000'],
    ],
    'February and March are closed in order although April was closed first',
  );
  const progress = await api.request('GET', `/api/v1/budgets/${monthly.id}/progress`, { token: user.token });
  t.match(progress.body.data, { period_start: '2026-04-01', rollover_in: 600, effective_limit: 1100 }, "April receives March's rollover_out");
});

t.test('a snapshot keeps every decimal of large amounts (no float on the way to the row)', async (t) => {
  clock = new Date('2026-03-15T12:00:00Z');
  const { user, spend, budget } = await newLedger();
  await api.db.updateTable('wallets').set({ balance: '90000000000000.0000' }).where('user_id', '=', user.user.id).execute();
  const big = await budget({ name: 'Big', amount: 50000000000000, start_date: '2026-03-01' });
  await spend(12345678901234.5, '2026-03-05T10:00:00Z');
  await spend(0.0671, '2026-03-06T10:00:00Z');
  const closed = await api.request('POST', `/api/v1/budgets/${big.id}/close-period`, { token: user.token });
  t.equal(closed.status, 200);
  t.same(await chain(big.id), [['2026-03-01', '2026-03-31', '12345678901234.5671', '0.0000', '37654321098765.4329']]);
});
