// Budget progress: the numbers of one window from the window's spending sums, the budget's terms
// and the local day "today". Pure and exact (decimal.js); no database, no clock.
//
// Rules (DECISIONS.md, Budgets):
// - gross_spent and refunds are the per-currency sums converted into the budget currency; a
//   currency with no rate is left out and listed in unconverted_currencies (partial: true).
// - net_spent = max(0, gross − refunds); effective_limit = amount + rollover_in;
//   remaining = effective_limit − net_spent.
// - percent_used = round(100 × net / effective_limit) (half up); when effective_limit ≤ 0 it is
//   100 if anything was spent, else 0.
// - projected_spend = net / elapsed days × days in window, where elapsed days count the window's
//   days up to and including today; equal to net during the first 3 days, once the window has
//   ended, and before it starts.
// - status, first match wins: over_budget (net > effective_limit), forecast_breach (forecast
//   alerts on, at least half the window elapsed or percent_used ≥ 50, and projection >
//   effective_limit), near_limit (percent_used ≥ threshold_percent), on_track.
// Every money value is rounded once to 4 decimals (half-even), and the status is decided on the
// rounded values, so it always agrees with the numbers shown.
import type { components } from '../generated/api.js';
import { daysBetween } from './stats-periods.js';
import { daysInWindow, type BudgetWindow } from './budget-periods.js';
import { Decimal, MONEY_DECIMALS } from './money.js';

export interface BudgetTerms {
  /** The limit per window, a decimal string in `currency`. */
  amount: string;
  currency: string;
  threshold_percent: number;
  forecast_alerts_enabled: boolean;
}

/** What one currency contributed to a window (SQL sums, decimal strings). */
export interface CurrencySpending {
  currency: string;
  /** Counted expenses. */
  gross: string;
  /** Refunds of counted expenses. */
  refunds: string;
}

export interface ProgressInput {
  budget: BudgetTerms;
  window: BudgetWindow;
  /** The user's local day the progress is computed for (`YYYY-MM-DD`). */
  today: string;
  /** rollover_in of the window (decimal string, may be negative). */
  rolloverIn: string;
  spending: CurrencySpending[];
  /** rate from each spending currency into the budget currency; null/absent = no rate (left out, partial) */
  rates: Map<string, string | null>;
}

export type BudgetProgress = components['schemas']['BudgetProgress'];
export type BudgetStatus = components['schemas']['BudgetStatus'];

/** During the first days of a window the projection is the spending itself (too little data). */
const PROJECTION_FLOOR_DAYS = 3;

const money = (value: Decimal) => value.toDecimalPlaces(MONEY_DECIMALS, Decimal.ROUND_HALF_EVEN);

/** The rate from `currency` into `budgetCurrency` (1 for the same currency), or undefined. */
function rateInto(currency: string, budgetCurrency: string, rates: Map<string, string | null>): Decimal | undefined {
  if (currency.toUpperCase() === budgetCurrency.toUpperCase()) return new Decimal(1);
  const rate = rates.get(currency);
  return rate === null || rate === undefined ? undefined : new Decimal(rate);
}

export function amountInBudgetCurrency(amount: string, currency: string, budgetCurrency: string, rates: Map<string, string | null>): string | null {
  const rate = rateInto(currency, budgetCurrency, rates);
  return rate === undefined ? null : money(new Decimal(amount).times(rate)).toFixed(MONEY_DECIMALS);
}

/** 100 × net / limit, rounded half up; when the limit is not positive, 100 if anything was spent. */
function percentUsed(net: Decimal, effectiveLimit: Decimal): number {
  if (effectiveLimit.lessThanOrEqualTo(0)) return net.greaterThan(0) ? 100 : 0;
  return net.times(100).dividedBy(effectiveLimit).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

/** Days of the window up to and including `today` (0 before it starts, all of them after it ends). */
function elapsedDays(window: BudgetWindow, today: string): number {
  if (today < window.start) return 0;
  if (today > window.end) return daysInWindow(window);
  return daysBetween(window.start, today) + 1;
}

function projectedSpend(net: Decimal, window: BudgetWindow, today: string): Decimal {
  const elapsed = elapsedDays(window, today);
  const total = daysInWindow(window);
  if (elapsed <= PROJECTION_FLOOR_DAYS || elapsed >= total) return net;
  return money(net.times(total).dividedBy(elapsed));
}

/** A window's progress as exact decimals (the snapshot of a closed window stores these). */
export interface BudgetNumbers {
  window: BudgetWindow;
  limit: Decimal;
  gross: Decimal;
  refunds: Decimal;
  net: Decimal;
  rolloverIn: Decimal;
  effectiveLimit: Decimal;
  remaining: Decimal;
  projected: Decimal;
  percent: number;
  /** percent_used ≥ threshold_percent, whatever the status says first. */
  thresholdCrossed: boolean;
  /** Forecast alerts on, half the window elapsed or 50% used, and projection > effective limit. */
  forecastBreach: boolean;
  status: BudgetStatus;
  unconverted: string[];
}

export function budgetNumbers(input: ProgressInput): BudgetNumbers {
  const { budget, window, today } = input;
  let gross = new Decimal(0);
  let refunds = new Decimal(0);
  const unconverted = new Set<string>();
  for (const row of input.spending) {
    const rate = rateInto(row.currency, budget.currency, input.rates);
    if (rate === undefined) {
      if (!new Decimal(row.gross).isZero() || !new Decimal(row.refunds).isZero()) unconverted.add(row.currency);
      continue;
    }
    gross = gross.plus(new Decimal(row.gross).times(rate));
    refunds = refunds.plus(new Decimal(row.refunds).times(rate));
  }
  gross = money(gross);
  refunds = money(refunds);
  const limit = money(new Decimal(budget.amount));
  const rolloverIn = money(new Decimal(input.rolloverIn));
  const net = Decimal.max(0, gross.minus(refunds));
  const effectiveLimit = limit.plus(rolloverIn);
  const remaining = effectiveLimit.minus(net);
  const percent = percentUsed(net, effectiveLimit);
  const projected = projectedSpend(net, window, today);

  const halfElapsed = elapsedDays(window, today) * 2 >= daysInWindow(window);
  const forecastBreach = budget.forecast_alerts_enabled && (halfElapsed || percent >= 50) && projected.greaterThan(effectiveLimit);
  const thresholdCrossed = percent >= budget.threshold_percent;
  let status: BudgetStatus = 'on_track';
  if (net.greaterThan(effectiveLimit)) status = 'over_budget';
  else if (forecastBreach) status = 'forecast_breach';
  else if (thresholdCrossed) status = 'near_limit';

  return {
    window, limit, gross, refunds, net, rolloverIn, effectiveLimit, remaining, projected, percent,
    thresholdCrossed, forecastBreach, status, unconverted: [...unconverted].sort(),
  };
}

/** The numbers as the API shows them (JSON numbers, converted once at the edge). */
export function progressJson(numbers: BudgetNumbers): BudgetProgress {
  const json = (value: Decimal) => value.toNumber();
  return {
    period_start: numbers.window.start,
    period_end: numbers.window.end,
    limit: json(numbers.limit),
    gross_spent: json(numbers.gross),
    refunds: json(numbers.refunds),
    net_spent: json(numbers.net),
    rollover_in: json(numbers.rolloverIn),
    effective_limit: json(numbers.effectiveLimit),
    remaining: json(numbers.remaining),
    projected_spend: json(numbers.projected),
    percent_used: numbers.percent,
    is_threshold_crossed: numbers.thresholdCrossed,
    is_forecast_breach: numbers.forecastBreach,
    status: numbers.status,
    partial: numbers.unconverted.length > 0,
    unconverted_currencies: numbers.unconverted,
  };
}

export function computeBudgetProgress(input: ProgressInput): BudgetProgress {
  return progressJson(budgetNumbers(input));
}

/** max(−amount, effective_limit − net_spent), from exact values (or the progress numbers). */
export function rolloverOut(progress: { effective_limit: Decimal.Value; net_spent: Decimal.Value }, amount: string): string {
  const effectiveLimit = new Decimal(progress.effective_limit);
  const net = new Decimal(progress.net_spent);
  const floor = new Decimal(amount).negated();
  return money(Decimal.max(floor, effectiveLimit.minus(net))).toFixed(MONEY_DECIMALS);
}
