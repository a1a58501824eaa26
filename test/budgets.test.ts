// Budgets over HTTP: CRUD on the synced-resource flow, targets, progress on a small ledger, and
// the window's transactions. Closing windows: budget-periods-close.test.ts; alerts:
// budget-alerts.test.ts.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

let clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 });
const fx = ledgerFixtures(api);
const owner = await api.newUser();
const stranger = await api.newUser();
const device = randomUUID();
const clientId = () => `${device}:${randomUUID()}`;

const base = { name: 'Groceries', amount: 500, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01' };

async function createBudget(token: string, body: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/api/v1/budgets', { token, body: { ...base, ...body } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

async function countBudgets(userId: number) {
  const row = await api.db.selectFrom('budgets').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function transaction(token: string, body: Record<string, unknown>) {
  const res = await api.request('POST', '/api/v1/transactions', { token, body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.id as number;
}

t.test('create: defaults, targets in order, progress, show', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const category = await fx.category(owner.user.id);
  const group = await fx.group(owner.user.id);
  const res = await api.request('POST', '/api/v1/budgets', {
    token: owner.token,
    body: {
      ...base,
      description: 'Food',
      targets: [
        { type: 'wallet', id: wallet },
        { type: 'group', id: group },
        { type: 'category', id: category },
        { type: 'category', id: category },
      ],
    },
  });
  t.equal(res.status, 201);
  t.equal(res.body.message, 'Budget created successfully');
  t.match(res.body.data, {
    name: 'Groceries',
    slug: 'groceries',
    description: 'Food',
    amount: 500,
    currency: 'USD',
    period_type: 'monthly',
    start_date: '2026-01-01',
    end_date: null,
    rollover_enabled: false,
    threshold_percent: 80,
    forecast_alerts_enabled: true,
    is_active: true,
    owner_id: owner.user.id,
    owner_type: 'App\\Models\\User', // the reference's value
    user_id: owner.user.id,
  });
  t.same(
    res.body.data.targets.map((target: { type: string; id: number }) => [target.type, target.id]),
    [
      ['category', category],
      ['group', group],
      ['wallet', wallet],
    ],
    'categories, then groups, then wallets; duplicates collapse',
  );
  t.ok(res.body.data.targets.every((target: { name: string }) => typeof target.name === 'string' && target.name.length > 0));
  t.match(res.body.data.progress, { period_start: '2026-03-01', period_end: '2026-03-31', limit: 500, net_spent: 0, status: 'on_track', partial: false });

  const shown = await api.request('GET', `/api/v1/budgets/${res.body.data.id}`, { token: owner.token });
  t.equal(shown.status, 200);
  t.same(shown.body.data, res.body.data);
});

t.test('a repeated client_id returns the existing budget and writes nothing', async (t) => {
  const id = clientId();
  const first = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'Once', client_id: id } });
  t.equal(first.status, 201);
  t.equal(first.body.data.client_generated_id, id);
  const before = await countBudgets(owner.user.id);
  const again = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'Twice?', client_id: id } });
  t.equal(again.status, 200);
  t.equal(again.body.data.id, first.body.data.id);
  t.equal(again.body.data.name, 'Once');
  t.equal(await countBudgets(owner.user.id), before);
});

t.test('bad input is 422 keyed by field and writes nothing', async (t) => {
  const theirWallet = await fx.wallet(stranger.user.id);
  const theirCategory = await fx.category(stranger.user.id);
  const theirGroup = await fx.group(stranger.user.id);
  const myCategory = await fx.category(owner.user.id);
  const before = await countBudgets(owner.user.id);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: undefined }, 'name'],
    [{ name: '' }, 'name'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 1.23456 }, 'amount'],
    [{ currency: 'usd' }, 'currency'],
    [{ currency: 'US' }, 'currency'],
    [{ period_type: 'daily' }, 'period_type'],
    [{ start_date: 'soon' }, 'start_date'],
    [{ period_type: 'custom' }, 'end_date'],
    [{ period_type: 'custom', end_date: null }, 'end_date'],
    [{ end_date: '2025-12-31' }, 'end_date'],
    [{ threshold_percent: 0 }, 'threshold_percent'],
    [{ client_id: 'nope' }, 'client_id'],
    [{ targets: [{ type: 'tag', id: 1 }] }, 'targets.0.type'],
    [{ targets: [{ type: 'wallet', id: theirWallet }] }, 'targets.0.id'],
    [{ targets: [{ type: 'category', id: myCategory }, { type: 'category', id: theirCategory }] }, 'targets.1.id'],
    [{ targets: [{ type: 'group', id: theirGroup }] }, 'targets.0.id'],
    [{ targets: [{ type: 'wallet', id: 99999999 }] }, 'targets.0.id'],
    [{ targets: [{ type: 'wallet', id: 9223372036854775807 }] }, 'targets.0.id'],
    [{ start_date: '0000-01-01' }, 'start_date'],
    [{ start_date: '9999-12-31' }, 'start_date'],
    [{ period_type: 'weekly', start_date: '9999-12-30' }, 'start_date'],
    [{ period_type: 'custom', end_date: '9999-12-31' }, 'end_date'],
  ];
  for (const [changes, field] of cases) {
    const res = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, ...changes } });
    t.equal(res.status, 422, JSON.stringify(changes));
    t.ok(res.body.errors?.[field], `errors.${field} for ${JSON.stringify(changes)}: ${JSON.stringify(res.body.errors)}`);
  }
  t.notOk(
    (await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, targets: [{ type: 'category', id: myCategory }, { type: 'category', id: theirCategory }] } })).body.errors['targets.0.id'],
    'only the bad target is named',
  );
  t.equal(await countBudgets(owner.user.id), before);
});

t.test('a zero budget is accepted; a threshold above 100 is capped at 100', async (t) => {
  const zero = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'No takeaway', amount: 0, threshold_percent: 250 } });
  t.equal(zero.status, 201, JSON.stringify(zero.body));
  t.match(zero.body.data, { amount: 0, threshold_percent: 100 });
  const url = `/api/v1/budgets/${zero.body.data.id}`;
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.threshold_percent, 100, 'stored capped');
  const raised = await api.request('PUT', url, { token: owner.token, body: { threshold_percent: 101 } });
  t.equal(raised.status, 200);
  t.equal(raised.body.data.threshold_percent, 100);
  const lowered = await api.request('PUT', url, { token: owner.token, body: { threshold_percent: 60, amount: 0 } });
  t.equal(lowered.body.data.threshold_percent, 60, 'values up to 100 are kept as sent');
});

t.test("the reference's owner: the caller is accepted, anyone else is 422 on owner.id and writes nothing", async (t) => {
  const mine = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'Owned', owner: { type: 'user', id: owner.user.id } } });
  t.equal(mine.status, 201, JSON.stringify(mine.body));
  t.match(mine.body.data, { owner_id: owner.user.id, owner_type: 'App\\Models\\User' });
  const before = await countBudgets(owner.user.id);
  const theirs = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'Not mine', owner: { type: 'user', id: stranger.user.id } } });
  t.equal(theirs.status, 422);
  t.same(Object.keys(theirs.body.errors), ['owner.id']);
  t.equal(await countBudgets(owner.user.id), before);
  // a target named only by its client id (the reference drops it silently) is refused
  const unnamed = await api.request('POST', '/api/v1/budgets', { token: owner.token, body: { ...base, name: 'Unnamed', targets: [{ type: 'category', client_generated_id: `${randomUUID()}:${randomUUID()}` }] } });
  t.equal(unnamed.status, 422);
  t.ok(unnamed.body.errors['targets.0.id'], JSON.stringify(unnamed.body.errors));
  const moved = await api.request('PUT', `/api/v1/budgets/${mine.body.data.id}`, { token: owner.token, body: { owner: { type: 'user', id: stranger.user.id } } });
  t.equal(moved.status, 422);
  t.same(Object.keys(moved.body.errors), ['owner.id']);
});

t.test("another user's budget is 404 everywhere; no token is 401", async (t) => {
  const mine = await createBudget(owner.token, { name: 'Private', rollover_enabled: true });
  const url = `/api/v1/budgets/${mine.id}`;
  const calls: Array<[string, string, unknown?]> = [
    ['GET', url],
    ['PUT', url, { name: 'Taken over' }],
    ['DELETE', url],
    ['GET', `${url}/progress`],
    ['GET', `${url}/transactions`],
    ['POST', `${url}/close-period`],
  ];
  for (const [method, path, body] of calls) {
    const res = await api.request(method, path, { token: stranger.token, body });
    t.equal(res.status, 404, `${method} ${path} by another user`);
    t.equal(res.body.message, 'Budget not found.');
  }
  t.equal((await api.request('GET', '/api/v1/budgets/99999999', { token: owner.token })).status, 404);
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.name, 'Private', 'unchanged');
  const theirs = await api.request('GET', '/api/v1/budgets?limit=100', { token: stranger.token });
  t.notOk(theirs.body.data.data.some((b: { id: number }) => b.id === mine.id));
  const states = await api.request('GET', `/api/v1/budget-period-states?budget_id=${mine.id}`, { token: stranger.token });
  t.same(states.body.data.data, []);

  for (const [method, path, body] of [...calls, ['GET', '/api/v1/budgets'], ['POST', '/api/v1/budgets', base], ['GET', '/api/v1/budget-period-states']] as Array<
    [string, string, unknown?]
  >) {
    t.equal((await api.request(method, path, { body })).status, 401, `${method} ${path} without a token`);
  }
});

t.test('update: fields, targets replaced as a set, rules on the resulting budget', async (t) => {
  const wallet = await fx.wallet(owner.user.id);
  const category = await fx.category(owner.user.id);
  const group = await fx.group(owner.user.id);
  const made = await createBudget(owner.token, { name: 'Fun', targets: [{ type: 'category', id: category }, { type: 'wallet', id: wallet }] });
  const url = `/api/v1/budgets/${made.id}`;

  const renamed = await api.request('PUT', url, { token: owner.token, body: { name: 'Leisure', amount: 250.5, threshold_percent: 90, description: null } });
  t.equal(renamed.status, 200);
  t.match(renamed.body.data, { name: 'Leisure', slug: 'fun', amount: 250.5, threshold_percent: 90, description: null });
  t.equal(renamed.body.data.targets.length, 2, 'targets absent: kept');
  t.equal(renamed.body.data.progress.limit, 250.5);

  const regrouped = await api.request('PUT', url, { token: owner.token, body: { targets: [{ type: 'group', id: group }] } });
  t.same(regrouped.body.data.targets.map((x: { type: string; id: number }) => [x.type, x.id]), [['group', group]], 'the whole set is replaced');
  const cleared = await api.request('PUT', url, { token: owner.token, body: { targets: [] } });
  t.same(cleared.body.data.targets, [], '[] removes every target');

  const custom = await api.request('PUT', url, { token: owner.token, body: { period_type: 'custom' } });
  t.equal(custom.status, 422);
  t.ok(custom.body.errors.end_date, 'a custom budget needs an end date');
  const backwards = await api.request('PUT', url, { token: owner.token, body: { start_date: '2026-05-01', end_date: '2026-04-30' } });
  t.ok(backwards.body.errors.end_date);
  const farAway = await api.request('PUT', url, { token: owner.token, body: { end_date: '9999-12-31' } });
  t.equal(farAway.status, 422, 'a date the window arithmetic cannot hold is refused, not stored');
  t.ok(farAway.body.errors?.end_date);
  const foreign = await api.request('PUT', url, { token: owner.token, body: { targets: [{ type: 'wallet', id: await fx.wallet(stranger.user.id) }] } });
  t.equal(foreign.status, 422);
  t.ok(foreign.body.errors['targets.0.id']);
  const ok = await api.request('PUT', url, { token: owner.token, body: { period_type: 'custom', start_date: '2026-03-10', end_date: '2026-03-20' } });
  t.equal(ok.status, 200);
  t.match(ok.body.data.progress, { period_start: '2026-03-10', period_end: '2026-03-20' });
  const early = await api.request('PUT', url, { token: owner.token, body: { name: 'x', updated_at: '2000-01-01T00:00:00Z' } });
  t.ok(early.body.errors.updated_at);
  t.equal((await api.request('GET', url, { token: owner.token })).body.data.name, 'Leisure');
});

t.test('delete, tombstones, slug reuse, the active filter', async (t) => {
  const user = await api.newUser();
  const since = new Date(clock.getTime() - 1000).toISOString();
  const doomed = await createBudget(user.token, { name: 'Rent', client_id: clientId() });
  const inactive = await createBudget(user.token, { name: 'Old plan', is_active: false });
  const del = await api.request('DELETE', `/api/v1/budgets/${doomed.id}`, { token: user.token });
  t.equal(del.status, 200);
  t.same(del.body, { success: true, message: 'Budget deleted successfully', data: null });
  t.equal((await api.request('GET', `/api/v1/budgets/${doomed.id}`, { token: user.token })).status, 404);
  t.equal((await api.request('DELETE', `/api/v1/budgets/${doomed.id}`, { token: user.token })).status, 404);

  const again = await api.request('POST', '/api/v1/budgets', { token: user.token, body: { ...base, name: 'Rent' } });
  t.equal(again.status, 201, "a deleted budget's name can be used again");
  const twin = await createBudget(user.token, { name: 'Rent' });
  t.not(twin.slug, again.body.data.slug, 'slugs stay unique among live budgets');

  const live = await api.request('GET', '/api/v1/budgets?limit=100', { token: user.token });
  t.same(live.body.data.data.map((b: { id: number }) => b.id), [inactive.id, again.body.data.id, twin.id], 'oldest first; no tombstone');
  t.ok(live.body.data.data.every((b: { progress: { status: string } }) => b.progress.status === 'on_track'), 'each listed budget has its progress');
  const active = await api.request('GET', '/api/v1/budgets?active=true', { token: user.token });
  t.same(active.body.data.data.map((b: { id: number }) => b.id), [again.body.data.id, twin.id]);
  const inactiveOnly = await api.request('GET', '/api/v1/budgets?active=false', { token: user.token });
  t.same(inactiveOnly.body.data.data.map((b: { id: number }) => b.id), [inactive.id]);
  const noClient = await api.request('GET', '/api/v1/budgets?no_client_id=true', { token: user.token });
  t.notOk(noClient.body.data.data.some((b: { id: number }) => b.id === doomed.id));

  const feed = await api.request('GET', `/api/v1/budgets?limit=100&synced_since=${encodeURIComponent(since)}`, { token: user.token });
  const tombstone = feed.body.data.data.find((b: { id: number }) => b.id === doomed.id);
  t.ok(tombstone?.deleted_at, 'the deleted budget comes back with deleted_at');
  const replay = await api.request('POST', '/api/v1/budgets', { token: user.token, body: { ...base, name: 'Rent', client_id: doomed.client_generated_id } });
  t.equal(replay.status, 200);
  t.equal(replay.body.data.id, doomed.id, 'a replay after deletion finds the tombstone');
  const bad = await api.request('GET', '/api/v1/budgets?synced_since=yesterday', { token: user.token });
  t.equal(bad.status, 422);
  t.ok(bad.body.errors.synced_since);
});

t.test('progress on a small ledger: refunds subtract, transfers and other targets never count', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '5000' });
  const savings = await fx.wallet(user.user.id, { balance: '0' });
  const euros = await fx.wallet(user.user.id, { balance: '1000', currency: 'EUR' });
  const unknown = await fx.wallet(user.user.id, { balance: '1000', currency: 'ZZZ' });
  const food = await fx.category(user.user.id);
  const other = await fx.category(user.user.id);
  await api.db
    .insertInto('configurations')
    .values({ user_id: user.user.id, key: 'manual-exchange-rates', type: 'string', value: JSON.stringify('{"EUR-USD": 1.1}') })
    .execute();

  const food1 = await transaction(user.token, { type: 'expense', amount: 200, wallet_id: wallet, datetime: '2026-03-05T10:00:00Z', categories: [food] });
  await transaction(user.token, { type: 'expense', amount: 150, wallet_id: wallet, datetime: '2026-03-10T10:00:00Z', categories: [food, other] });
  await transaction(user.token, { type: 'expense', amount: 999, wallet_id: wallet, datetime: '2026-03-11T10:00:00Z', categories: [other] });
  await transaction(user.token, { type: 'expense', amount: 77, wallet_id: wallet, datetime: '2026-02-27T10:00:00Z', categories: [food] });
  const refund = await transaction(user.token, { type: 'income', amount: 50, wallet_id: wallet, datetime: '2026-03-12T10:00:00Z', categories: [] });
  const marked = await api.request('POST', `/api/v1/transactions/${refund}/refund`, { token: user.token, body: { original_transaction_id: food1 } });
  t.equal(marked.status, 200);
  const transfer = await fx.transfer(user.user.id, wallet, savings, '100');
  await api.db.updateTable('transactions').set({ datetime: new Date('2026-03-13T10:00:00Z') }).where('transfer_id', '=', transfer.transferId).execute();

  // Food: 200 + 150 − 50 = 300 of 500; 15 of 31 days gone, so 300 / 15 × 31 = 620 projected.
  const food500 = await createBudget(user.token, { name: 'Food', targets: [{ type: 'category', id: food }] });
  const progress = await api.request('GET', `/api/v1/budgets/${food500.id}/progress`, { token: user.token });
  t.equal(progress.status, 200);
  t.same(progress.body.data, {
    period_start: '2026-03-01',
    period_end: '2026-03-31',
    limit: 500,
    gross_spent: 350,
    refunds: 50,
    net_spent: 300,
    rollover_in: 0,
    effective_limit: 500,
    remaining: 200,
    projected_spend: 620,
    percent_used: 60,
    // the reference's snapshot flags, on the wire: 60% is under the 80% threshold
    is_threshold_crossed: false,
    is_forecast_breach: true,
    status: 'forecast_breach',
    partial: false,
    unconverted_currencies: [],
  });
  const shown = await api.request('GET', `/api/v1/budgets/${food500.id}`, { token: user.token });
  t.same(shown.body.data.progress, progress.body.data, 'the budget carries the same progress');

  // Everything: 200 + 150 + 999 − 50, plus 100 EUR at the manual 1.1; the ZZZ expense has no rate.
  await transaction(user.token, { type: 'expense', amount: 100, wallet_id: euros, datetime: '2026-03-14T10:00:00Z' });
  await transaction(user.token, { type: 'expense', amount: 5, wallet_id: unknown, datetime: '2026-03-14T10:00:00Z' });
  const all = await createBudget(user.token, { name: 'All', amount: 2000, forecast_alerts_enabled: false });
  t.match(all.progress, { gross_spent: 1459, refunds: 50, net_spent: 1409, percent_used: 70, status: 'on_track', partial: true, unconverted_currencies: ['ZZZ'] });
  const byWallet = await createBudget(user.token, { name: 'Savings wallet', targets: [{ type: 'wallet', id: savings }] });
  t.equal(byWallet.progress.gross_spent, 0, 'the transfer leg into savings is never spending');

  const listed = await api.request('GET', `/api/v1/budgets/${food500.id}/transactions`, { token: user.token });
  t.equal(listed.status, 200);
  t.match(listed.body.data, { period_start: '2026-03-01', period_end: '2026-03-31', total: 3, current_page: 1 });
  t.same(
    listed.body.data.data.map((row: { amount: number; type: string; amount_in_budget_currency: string }) => [row.type, row.amount, row.amount_in_budget_currency]),
    [
      ['income', 50, '50.0000'],
      ['expense', 150, '150.0000'],
      ['expense', 200, '200.0000'],
    ],
    'newest first: the refund and the two counted expenses',
  );
  const allListed = await api.request('GET', `/api/v1/budgets/${all.id}/transactions?limit=2&page=1`, { token: user.token });
  t.match(allListed.body.data, { total: 6, per_page: 2, last_page: 3 });
  const euroRow = allListed.body.data.data.find((row: { wallet_id: number }) => row.wallet_id === euros);
  t.equal(euroRow.amount_in_budget_currency, '110.0000', 'converted with the manual rate');
  t.equal(allListed.body.data.data.find((row: { wallet_id: number }) => row.wallet_id === unknown).amount_in_budget_currency, null, 'no rate: null');
  const page3 = await api.request('GET', `/api/v1/budgets/${all.id}/transactions?limit=2&page=3`, { token: user.token });
  t.equal(page3.body.data.data.length, 2);
  t.equal(page3.body.data.data[1].amount, 200, 'the oldest counted row is last');
});

t.test("23:30 on the month's last day in the user's zone counts in that month, though it is the next day in UTC", async (t) => {
  const user = await api.newUser();
  await fx.setTimeZone(user.user.id, 'America/New_York'); // UTC−5 in January
  const wallet = await fx.wallet(user.user.id, { balance: '5000' });
  const late = await transaction(user.token, { type: 'expense', amount: 40, wallet_id: wallet, datetime: '2026-02-01T04:30:00Z' }); // 31 Jan 23:30 local
  await transaction(user.token, { type: 'expense', amount: 7, wallet_id: wallet, datetime: '2026-02-01T05:00:00Z' }); // 1 Feb 00:00 local
  const saved = clock;
  t.teardown(() => {
    clock = saved;
  });
  clock = new Date('2026-02-01T03:00:00Z'); // 31 Jan 22:00 local
  const january = await createBudget(user.token, { name: 'January' });
  t.match(january.progress, { period_start: '2026-01-01', period_end: '2026-01-31', gross_spent: 40 });
  const listed = await api.request('GET', `/api/v1/budgets/${january.id}/transactions`, { token: user.token });
  t.same(listed.body.data.data.map((row: { id: number }) => row.id), [late]);
  clock = new Date('2026-02-01T06:00:00Z'); // 1 Feb 01:00 local
  const february = await api.request('GET', `/api/v1/budgets/${january.id}/progress`, { token: user.token });
  t.match(february.body.data, { period_start: '2026-02-01', period_end: '2026-02-28', gross_spent: 7 });
});

t.test('a stored time zone the runtime does not know reads as UTC', async (t) => {
  const user = await api.newUser();
  await fx.setTimeZone(user.user.id, 'Mars/Base');
  const made = await createBudget(user.token, { name: 'Mars' });
  t.match(made.progress, { period_start: '2026-03-01', period_end: '2026-03-31' });
  t.equal((await api.request('GET', `/api/v1/budgets/${made.id}/transactions`, { token: user.token })).status, 200);
});
