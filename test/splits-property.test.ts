// Property (issue 44): after random creates of split and unsplit incomes and expenses, refunds,
// re-splits, unsplits and deletes (all over HTTP), every budget's gross, refunds and net spent
// (from the summary as GET /budgets reads it, and from the raw rows) and every category and
// party statistic of GET /stats equals a plain sum over the lines computed here with
// decimal.js; the summary tables equal their recount. Seeded: a failure prints its seed, and
// PROPERTY_SEED replays it. A bounded number of rounds keeps it to seconds per database.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { budgetSpending } from '../db/budget-spending.js';
import { currentWindow } from '../domain/budget-periods.js';
import { Decimal } from '../domain/money.js';
import { refundShares } from '../domain/splits.js';
import { budgetSummaryOffRecount } from './helpers/budget-summary-invariant.js';
import { Rng } from './helpers/fuzz-values.js';
import { startApp } from './helpers/harness.js';
import { summaryOffRecount } from './helpers/stats-summary-invariant.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const clock = new Date('2026-03-15T12:00:00Z');
const api = await startApp(t, { now: () => clock });
const fx = ledgerFixtures(api);
const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));
t.comment(`PROPERTY_SEED=${seed}`);

function generator(seed: number) {
  const rng = new Rng(seed);
  const next = () => rng.next();
  return {
    int: (below: number) => Math.floor(next() * below),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    /** An amount with up to 4 decimals, as a JSON number from its exact text. */
    amount: () => Number(`${Math.floor(next() * 80)}.${String(Math.floor(next() * 10000)).padStart(4, '0')}`) || 0.0001,
  };
}
const random = generator(seed);

interface Line {
  amount: number;
  category: number | null;
  party: number | null;
}
interface Modelled {
  id: number;
  type: 'income' | 'expense';
  amount: number;
  wallet: number;
  group: number | null;
  party: number | null;
  links: number[];
  lines: Line[];
  deleted: boolean;
  refundOf: number | null;
}

const user = await api.newUser();
const userId: number = user.user.id;
const wallets = [await fx.wallet(userId, { balance: '100000' }), await fx.wallet(userId, { balance: '100000' })];
const categories = [await fx.category(userId), await fx.category(userId), await fx.category(userId), await fx.category(userId)];
const parties = [await fx.party(userId), await fx.party(userId), await fx.party(userId)];
const group = await fx.group(userId);
const targetSets: Array<{ categories: number[]; groups: number[]; wallets: number[] }> = [
  { categories: [categories[0]], groups: [], wallets: [] },
  { categories: [categories[0], categories[1]], groups: [], wallets: [] },
  { categories: [], groups: [group], wallets: [] },
  { categories: [], groups: [], wallets: [wallets[1]] },
  { categories: [], groups: [], wallets: [] },
  { categories: [categories[2]], groups: [], wallets: [wallets[0]] },
];
const budgets: Array<{ id: number; targets: (typeof targetSets)[number] }> = [];
for (const [index, targets] of targetSets.entries()) {
  const body = {
    name: `Budget ${index}`,
    amount: 1000,
    currency: 'USD',
    period_type: 'monthly',
    start_date: '2026-01-01',
    targets: [
      ...targets.categories.map((id) => ({ type: 'category', id })),
      ...targets.groups.map((id) => ({ type: 'group', id })),
      ...targets.wallets.map((id) => ({ type: 'wallet', id })),
    ],
  };
  const res = await api.request('POST', '/api/v1/budgets', { token: user.token, body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  budgets.push({ id: res.body.data.id, targets });
}

const model = new Map<number, Modelled>();
const sum = (amounts: Array<number | string | Decimal>) => amounts.reduce<Decimal>((acc, amount) => acc.plus(String(amount)), new Decimal(0));

function randomLines(): Line[] {
  return Array.from({ length: 1 + random.int(4) }, () => ({
    amount: random.amount(),
    category: random.chance(0.8) ? random.pick(categories) : null,
    party: random.chance(0.4) ? random.pick(parties) : null,
  }));
}
const linesBody = (lines: Line[]) => lines.map((line) => ({ amount: line.amount, category_id: line.category, party_id: line.party }));
const lineCategories = (lines: Line[]) => [...new Set(lines.flatMap((line) => (line.category === null ? [] : [line.category])))];
const exactAmount = (lines: Line[]) => Number(sum(lines.map((line) => line.amount)).toFixed());

async function createRandom(): Promise<void> {
  const split = random.chance(0.5);
  const lines = split ? randomLines() : [];
  const links = split ? lineCategories(lines) : [...new Set(Array.from({ length: random.int(3) }, () => random.pick(categories)))];
  const entry = {
    type: random.chance(0.8) ? ('expense' as const) : ('income' as const),
    amount: split ? exactAmount(lines) : random.amount(),
    wallet: random.pick(wallets),
    group: random.chance(0.3) ? group : null,
    party: random.chance(0.5) ? random.pick(parties) : null,
  };
  const body = {
    client_id: `${randomUUID()}:${randomUUID()}`,
    type: entry.type,
    amount: entry.amount,
    wallet_id: entry.wallet,
    group_id: entry.group,
    party_id: entry.party,
    datetime: `2026-03-${String(1 + random.int(14)).padStart(2, '0')}T${String(random.int(24)).padStart(2, '0')}:00:00Z`,
    ...(split ? { splits: linesBody(lines) } : { categories: links }),
  };
  const res = await api.request('POST', '/api/v1/transactions', { token: user.token, body });
  if (res.status !== 201) throw new Error(`create: ${JSON.stringify(res.body)} (seed ${seed})`);
  model.set(res.body.data.id, { id: res.body.data.id, ...entry, links, lines, deleted: false, refundOf: null });
}

const live = (pick: (m: Modelled) => boolean) => [...model.values()].filter((m) => !m.deleted && pick(m));

async function refundRandom(): Promise<void> {
  const expenses = live((m) => m.type === 'expense');
  if (expenses.length === 0) return;
  const original = random.pick(expenses);
  const amount = Math.min(original.amount, random.amount());
  const res = await api.request('POST', '/api/v1/transactions', {
    token: user.token,
    body: { type: 'income', amount, wallet_id: original.wallet, datetime: '2026-03-14T20:00:00Z' },
  });
  const marked = await api.request('POST', `/api/v1/transactions/${res.body.data.id}/refund`, { token: user.token, body: { original_transaction_id: original.id } });
  if (marked.status !== 200) throw new Error(`refund: ${JSON.stringify(marked.body)} (seed ${seed})`);
  model.set(res.body.data.id, { id: res.body.data.id, type: 'income', amount, wallet: original.wallet, group: null, party: null, links: [], lines: [], deleted: false, refundOf: original.id });
}

async function changeRandom(): Promise<void> {
  const candidates = live((m) => m.refundOf === null);
  if (candidates.length === 0) return;
  const target = random.pick(candidates);
  const choice = random.int(3);
  if (choice === 0) {
    const lines = randomLines();
    const res = await api.request('PUT', `/api/v1/transactions/${target.id}`, { token: user.token, body: { amount: exactAmount(lines), splits: linesBody(lines) } });
    if (res.status !== 200) throw new Error(`re-split: ${JSON.stringify(res.body)} (seed ${seed})`);
    Object.assign(target, { lines, amount: exactAmount(lines), links: lineCategories(lines) });
  } else if (choice === 1) {
    const res = await api.request('PUT', `/api/v1/transactions/${target.id}`, { token: user.token, body: { splits: null } });
    if (res.status !== 200) throw new Error(`unsplit: ${JSON.stringify(res.body)} (seed ${seed})`);
    target.lines = [];
  } else {
    const res = await api.request('DELETE', `/api/v1/transactions/${target.id}`, { token: user.token });
    if (res.status !== 200) throw new Error(`delete: ${JSON.stringify(res.body)} (seed ${seed})`);
    target.deleted = true;
  }
}

/** What each budget must show: gross, refunds and net, summed over the model's lines. */
function expectedBudget(targets: (typeof targetSets)[number]) {
  const none = targets.categories.length + targets.groups.length + targets.wallets.length === 0;
  const whole = (m: Modelled) => none || targets.wallets.includes(m.wallet) || (m.group !== null && targets.groups.includes(m.group));
  const targeted = (category: number | null) => category !== null && targets.categories.includes(category);
  const counted = (m: Modelled) => m.type === 'expense' && !m.deleted && (whole(m) || m.links.some(targeted));
  const countedOf = (m: Modelled) => (whole(m) || m.lines.length === 0 ? new Decimal(String(m.amount)) : sum(m.lines.filter((line) => targeted(line.category)).map((line) => line.amount)));
  const gross = sum(live(counted).map(countedOf));
  const refunds = sum(
    live((m) => m.refundOf !== null && counted(model.get(m.refundOf)!)).map((refund) => {
      const original = model.get(refund.refundOf!)!;
      if (whole(original) || original.lines.length === 0) return new Decimal(String(refund.amount));
      const shares = refundShares(String(refund.amount), original.lines.map((line) => String(line.amount)));
      return sum(shares.filter((_, index) => targeted(original.lines[index].category)));
    }),
  );
  return { gross, refunds, net: Decimal.max(0, gross.minus(refunds)) };
}

/** Expense statistics per category and per party (id 0: none): amount and transactions. */
function expectedStats() {
  const categories = new Map<number, { amount: Decimal; count: number }>();
  const parties = new Map<number, { amount: Decimal; count: number }>();
  const add = (into: typeof categories, key: number, amount: Decimal, counted: boolean) => {
    const row = into.get(key) ?? { amount: new Decimal(0), count: 0 };
    into.set(key, { amount: row.amount.plus(amount), count: row.count + (counted ? 1 : 0) });
  };
  for (const m of live((m) => m.type === 'expense')) {
    if (m.lines.length === 0) {
      add(categories, m.links.length ? Math.min(...m.links) : 0, new Decimal(String(m.amount)), true);
      add(parties, m.party ?? 0, new Decimal(String(m.amount)), true);
      continue;
    }
    const seenCategories = new Set<number>();
    const seenParties = new Set<number>();
    for (const line of m.lines) {
      const category = line.category ?? 0;
      const party = line.party ?? m.party ?? 0;
      add(categories, category, new Decimal(String(line.amount)), !seenCategories.has(category));
      add(parties, party, new Decimal(String(line.amount)), !seenParties.has(party));
      seenCategories.add(category);
      seenParties.add(party);
    }
  }
  const shown = (map: typeof categories) => [...map.entries()].map(([id, row]) => [id, Number(row.amount.toFixed(4)), row.count]).sort((a, b) => a[0] - b[0]);
  return { categories: shown(categories), parties: shown(parties) };
}

const money = (value: Decimal) => Number(value.toFixed(4));

t.test('every budget and category statistic equals the plain sum over the lines', async (t) => {
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 7; i++) await createRandom();
    for (let i = 0; i < 2; i++) await refundRandom();
    for (let i = 0; i < 3; i++) await changeRandom();

    const listed = await api.request('GET', '/api/v1/budgets?limit=100', { token: user.token });
    const rows = await api.db.selectFrom('budgets').selectAll().where('user_id', '=', userId).execute();
    for (const budget of budgets) {
      const expected = expectedBudget(budget.targets);
      const progress = listed.body.data.data.find((row: { id: number }) => row.id === budget.id).progress;
      t.same(
        { gross: progress.gross_spent, refunds: progress.refunds, net: progress.net_spent },
        { gross: money(expected.gross), refunds: money(expected.refunds), net: money(expected.net) },
        `round ${round}: budget ${JSON.stringify(budget.targets)} from the summary (seed ${seed})`,
      );
      const row = rows.find((r) => r.id === budget.id)!;
      const [raw] = await budgetSpending(api.db, row, currentWindow(row, '2026-03-15'), 'UTC', 'raw');
      t.same(
        { gross: new Decimal(raw?.gross ?? 0).toFixed(4), refunds: new Decimal(raw?.refunds ?? 0).toFixed(4) },
        { gross: expected.gross.toFixed(4), refunds: expected.refunds.toFixed(4) },
        `round ${round}: budget ${JSON.stringify(budget.targets)} from the rows (seed ${seed})`,
      );
    }

    const stats = (await api.request('GET', '/api/v1/stats?start_date=2026-03-01&end_date=2026-03-15', { token: user.token })).body.data;
    const expected = expectedStats();
    const shown = (items: Array<{ id: number | null; amount: number; transaction_count: number }>) =>
      items.map((item) => [item.id ?? 0, item.amount, item.transaction_count]).sort((a, b) => a[0] - b[0]);
    t.same(shown(stats.charts.category_spending), expected.categories, `round ${round}: category statistics (seed ${seed})`);
    t.same(shown(stats.charts.party_spending), expected.parties, `round ${round}: party statistics (seed ${seed})`);

    t.same(await summaryOffRecount(api, userId, 'UTC'), [], `round ${round}: the statistics summary equals its recount (seed ${seed})`);
    t.same(await budgetSummaryOffRecount(api, userId, 'UTC'), [], `round ${round}: the budget summary equals its recount (seed ${seed})`);
  }
});

t.test('a time zone change rebuilds the summaries with the lines', async (t) => {
  const res = await api.request('POST', '/api/v1/configurations', { token: user.token, body: { key: 'timezone', type: 'string', value: 'Asia/Tokyo' } });
  t.equal(res.status, 201, JSON.stringify(res.body));
  t.same(await summaryOffRecount(api, userId, 'Asia/Tokyo'), []);
  t.same(await budgetSummaryOffRecount(api, userId, 'Asia/Tokyo'), []);
});
