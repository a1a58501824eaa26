// Budget progress as a pure function of the window's sums, the budget's terms and "today":
// every status, the projection floor, percent edge cases, conversion, and rollover chains.
import t from 'tap';
import { currentWindow, nextWindow, type BudgetWindow } from '../../domain/budget-periods.js';
import {
  amountInBudgetCurrency,
  computeBudgetProgress,
  rolloverOut,
  type BudgetTerms,
  type CurrencySpending,
  type ProgressInput,
} from '../../domain/budget-progress.js';

const january: BudgetWindow = { start: '2026-01-01', end: '2026-01-31' };
const terms = (overrides: Partial<BudgetTerms> = {}): BudgetTerms => ({
  amount: '1000.0000',
  currency: 'USD',
  threshold_percent: 80,
  forecast_alerts_enabled: true,
  ...overrides,
});
const usd = (gross: string, refunds = '0'): CurrencySpending => ({ currency: 'USD', gross, refunds });

function progress(overrides: Partial<ProgressInput> = {}) {
  return computeBudgetProgress({
    budget: terms(),
    window: january,
    today: '2026-01-10',
    rolloverIn: '0',
    spending: [],
    rates: new Map(),
    ...overrides,
  });
}

t.test('the numbers of a plain window', async (t) => {
  const p = progress({ spending: [usd('300.5000', '50.2500')] });
  t.same(p, {
    period_start: '2026-01-01',
    period_end: '2026-01-31',
    limit: 1000,
    gross_spent: 300.5,
    refunds: 50.25,
    net_spent: 250.25,
    rollover_in: 0,
    effective_limit: 1000,
    remaining: 749.75,
    // 250.25 / 10 days × 31 days
    projected_spend: 775.775,
    percent_used: 25,
    is_threshold_crossed: false,
    is_forecast_breach: false,
    status: 'on_track',
    partial: false,
    unconverted_currencies: [],
  });
});

t.test('nothing spent', async (t) => {
  const p = progress();
  t.same([p.gross_spent, p.net_spent, p.remaining, p.percent_used, p.projected_spend, p.status], [0, 0, 1000, 0, 0, 'on_track']);
});

t.test('refunds larger than the spending leave net_spent at 0', async (t) => {
  const p = progress({ spending: [usd('40', '100')] });
  t.same([p.gross_spent, p.refunds, p.net_spent, p.remaining], [40, 100, 0, 1000]);
});

t.test('status over_budget: net above the effective limit (spending exactly the limit is not over)', async (t) => {
  t.equal(progress({ spending: [usd('1000.0001')] }).status, 'over_budget');
  const exactly = progress({ spending: [usd('1000')], today: '2026-01-31' });
  t.equal(exactly.percent_used, 100);
  t.equal(exactly.status, 'near_limit', 'the window ended: projection = net = limit, so no breach');
  t.equal(progress({ spending: [usd('1200')], budget: terms({ forecast_alerts_enabled: false }) }).status, 'over_budget', 'whatever the forecast setting');
  t.equal(progress({ spending: [usd('1200')] }).remaining, -200);
});

t.test('status forecast_breach needs forecast alerts, half the window or 50% used, and projection above the limit', async (t) => {
  // Day 16 of 31 (half elapsed), 40% used: 400 / 16 × 31 = 775 ≤ 1000: no breach.
  t.equal(progress({ today: '2026-01-16', spending: [usd('400')] }).status, 'on_track');
  // Day 16, 600 used: 600 / 16 × 31 = 1162.5 > 1000.
  const breach = progress({ today: '2026-01-16', spending: [usd('600')] });
  t.equal(breach.projected_spend, 1162.5);
  t.equal(breach.status, 'forecast_breach');
  t.equal(progress({ today: '2026-01-16', spending: [usd('600')], budget: terms({ forecast_alerts_enabled: false }) }).status, 'on_track', 'forecast alerts off');
  // Day 10 (less than half), 45% used: 450 / 10 × 31 = 1395 > 1000, but neither condition holds.
  t.equal(progress({ today: '2026-01-10', spending: [usd('450')] }).status, 'on_track');
  // Day 10, 50% used: the percent condition holds.
  t.equal(progress({ today: '2026-01-10', spending: [usd('500')] }).status, 'forecast_breach');
  // Day 15 (15 × 2 < 31 days, not yet half), 49% used: 490 / 15 × 31 = 1012.67 > 1000, no breach.
  t.equal(progress({ today: '2026-01-15', spending: [usd('490')] }).status, 'on_track', 'day 15 of 31 is not half, and 49% is not 50%');
  t.equal(progress({ today: '2026-01-16', spending: [usd('490')] }).status, 'on_track', 'day 16: half, but 490 / 16 × 31 = 949.4');
  t.equal(progress({ today: '2026-01-16', spending: [usd('520')] }).status, 'forecast_breach', 'day 16: 520 / 16 × 31 = 1007.5');
  // near_limit would match too, but forecast_breach comes first.
  const both = progress({ today: '2026-01-20', spending: [usd('850')] });
  t.equal(both.status, 'forecast_breach');
  t.same([both.is_forecast_breach, both.is_threshold_crossed], [true, true], 'the reference flags say both held');
  const over = progress({ today: '2026-01-20', spending: [usd('1200')] });
  t.same([over.status, over.is_forecast_breach, over.is_threshold_crossed], ['over_budget', true, true]);
  const nearOnly = progress({ today: '2026-01-31', spending: [usd('850')] });
  t.same([nearOnly.status, nearOnly.is_forecast_breach, nearOnly.is_threshold_crossed], ['near_limit', false, true]);
});

t.test('status near_limit: percent_used at or above the threshold', async (t) => {
  const late = { today: '2026-01-31' }; // the window's last day: projection = net
  t.equal(progress({ ...late, spending: [usd('794')] }).status, 'on_track', '79.4% rounds to 79');
  t.equal(progress({ ...late, spending: [usd('799.5')] }).percent_used, 80, '79.95 rounds to 80');
  t.equal(progress({ ...late, spending: [usd('799.5')] }).status, 'near_limit');
  t.equal(progress({ ...late, spending: [usd('800')] }).status, 'near_limit');
  t.equal(progress({ ...late, spending: [usd('500')], budget: terms({ threshold_percent: 50 }) }).status, 'near_limit');
  t.equal(progress({ ...late, spending: [usd('494')], budget: terms({ threshold_percent: 50 }) }).status, 'on_track');
  t.equal(progress({ today: '2026-01-02', spending: [usd('900')], budget: terms({ forecast_alerts_enabled: false }) }).status, 'near_limit');
});

t.test('projection equals net_spent in the first 3 days, before the window and after it', async (t) => {
  for (const today of ['2026-01-01', '2026-01-02', '2026-01-03']) {
    t.equal(progress({ today, spending: [usd('300')] }).projected_spend, 300, today);
  }
  t.equal(progress({ today: '2026-01-04', spending: [usd('300')] }).projected_spend, 2325, 'day 4: 300 / 4 × 31');
  t.equal(progress({ today: '2026-01-31', spending: [usd('300')] }).projected_spend, 300, 'the last day');
  t.equal(progress({ today: '2026-03-01', spending: [usd('300')] }).projected_spend, 300, 'after the window');
  t.equal(progress({ today: '2025-12-01', spending: [usd('300')] }).projected_spend, 300, 'before the window');
  t.equal(progress({ today: '2026-01-03', spending: [usd('600')] }).status, 'on_track', '60% used with a projection of net (600) is no breach');
});

t.test('the projection is rounded to 4 decimals', async (t) => {
  // 100 / 7 × 31 = 442.857142857…
  t.equal(progress({ today: '2026-01-07', spending: [usd('100')] }).projected_spend, 442.8571);
});

t.test('percent_used edge cases', async (t) => {
  t.equal(progress({ spending: [usd('333.33')] }).percent_used, 33);
  t.equal(progress({ spending: [usd('5')] }).percent_used, 1, '0.5% rounds half up');
  t.equal(progress({ spending: [usd('4.99')] }).percent_used, 0);
  t.equal(progress({ spending: [usd('2500')] }).percent_used, 250, 'over 100 is not capped');
  // effective_limit ≤ 0 (a deficit rolled in): 100 when anything was spent, else 0.
  const deficit = { budget: terms({ amount: '100' }), rolloverIn: '-100' };
  t.equal(progress({ ...deficit }).effective_limit, 0);
  t.equal(progress({ ...deficit }).percent_used, 0);
  t.equal(progress({ ...deficit }).status, 'on_track', 'nothing spent of nothing');
  t.equal(progress({ ...deficit, spending: [usd('0.01')] }).percent_used, 100);
  t.equal(progress({ ...deficit, spending: [usd('0.01')] }).status, 'over_budget');
  t.equal(progress({ budget: terms({ amount: '100' }), rolloverIn: '-150' }).percent_used, 0, 'negative effective limit, nothing spent');
  t.equal(progress({ budget: terms({ amount: '100' }), rolloverIn: '-150' }).status, 'over_budget', '0 > -50');
});

t.test('conversion into the budget currency', async (t) => {
  const rates = new Map<string, string | null>([['EUR', '1.1'], ['XAF', null]]);
  const spending = [usd('100'), { currency: 'EUR', gross: '200', refunds: '10' }];
  const p = progress({ spending, rates });
  t.same([p.gross_spent, p.refunds, p.net_spent, p.partial, p.unconverted_currencies], [320, 11, 309, false, []]);

  const missing = progress({ spending: [...spending, { currency: 'XAF', gross: '5000', refunds: '0' }, { currency: 'GBP', gross: '7', refunds: '0' }], rates });
  t.equal(missing.gross_spent, 320, 'currencies without a rate are left out');
  t.equal(missing.partial, true);
  t.same(missing.unconverted_currencies, ['GBP', 'XAF'], 'null and absent rates both count as missing');

  t.equal(progress({ spending: [{ currency: 'EUR', gross: '0', refunds: '0' }] }).partial, false, 'nothing to convert is not partial');
  const exact = progress({ spending: [{ currency: 'EUR', gross: '0.1', refunds: '0' }, { currency: 'GBP', gross: '0.2', refunds: '0' }], rates: new Map([['EUR', '3'], ['GBP', '3']]) });
  t.equal(exact.gross_spent, 0.9, 'exact decimals, not 0.30000000000000004 × 3');
  t.equal(progress({ budget: terms({ currency: 'EUR' }), spending: [{ currency: 'EUR', gross: '12.5', refunds: '0' }] }).gross_spent, 12.5, 'the budget currency needs no rate');
});

t.test('amountInBudgetCurrency', async (t) => {
  const rates = new Map<string, string | null>([['EUR', '1.23456'], ['XAF', null]]);
  t.equal(amountInBudgetCurrency('10.0000', 'USD', 'USD', rates), '10.0000');
  t.equal(amountInBudgetCurrency('10.0000', 'EUR', 'USD', rates), '12.3456');
  t.equal(amountInBudgetCurrency('0.0005', 'EUR', 'USD', new Map([['EUR', '5']])), '0.0025');
  t.equal(amountInBudgetCurrency('0.00005', 'EUR', 'USD', new Map([['EUR', '1']])), '0.0000', 'half-even');
  t.equal(amountInBudgetCurrency('0.00015', 'EUR', 'USD', new Map([['EUR', '1']])), '0.0002', 'half-even');
  t.equal(amountInBudgetCurrency('10', 'XAF', 'USD', rates), null);
  t.equal(amountInBudgetCurrency('10', 'GBP', 'USD', rates), null);
});

t.test('rollover_in raises the effective limit; rolloverOut clamps at minus the amount', async (t) => {
  const p = progress({ rolloverIn: '250.5', spending: [usd('100')], today: '2026-01-31' });
  t.same([p.rollover_in, p.effective_limit, p.remaining], [250.5, 1250.5, 1150.5]);
  t.equal(rolloverOut(p, '1000'), '1150.5000');
  const over = progress({ spending: [usd('1300')], today: '2026-01-31' });
  t.equal(rolloverOut(over, '1000'), '-300.0000', 'a deficit carries');
  const wayOver = progress({ spending: [usd('2500')], today: '2026-01-31' });
  t.equal(rolloverOut(wayOver, '1000'), '-1000.0000', 'floored at -amount');
});

t.test('a rollover chain across three closed windows', async (t) => {
  // Monthly budget of 500; each window is closed after it ends and its rollover_out becomes the
  // next window's rollover_in, as the close job does.
  const schedule = { period_type: 'monthly' as const, start_date: '2026-01-01', end_date: null };
  const budget = terms({ amount: '500' });
  const spentPerWindow = ['300', '900', '1400', '100'];
  let window = currentWindow(schedule, '2026-01-15');
  let rolloverIn = '0';
  const closed: Array<{ start: string; net: number; in: number; out: string; limit: number }> = [];
  for (const spent of spentPerWindow.slice(0, 3)) {
    const p = computeBudgetProgress({ budget, window, today: window.end, rolloverIn, spending: [usd(spent)], rates: new Map() });
    const out = rolloverOut(p, budget.amount);
    closed.push({ start: window.start, net: p.net_spent, in: p.rollover_in, out, limit: p.effective_limit });
    rolloverIn = out;
    window = nextWindow(schedule, window)!;
  }
  t.same(closed, [
    { start: '2026-01-01', net: 300, in: 0, out: '200.0000', limit: 500 }, // 200 left over
    { start: '2026-02-01', net: 900, in: 200, out: '-200.0000', limit: 700 }, // 200 over
    { start: '2026-03-01', net: 1400, in: -200, out: '-500.0000', limit: 300 }, // 1100 over, floored at -500
  ]);
  const april = computeBudgetProgress({ budget, window, today: '2026-04-10', rolloverIn, spending: [usd(spentPerWindow[3])], rates: new Map() });
  t.same([april.period_start, april.rollover_in, april.effective_limit, april.remaining, april.percent_used, april.status], ['2026-04-01', -500, 0, -100, 100, 'over_budget']);
});
