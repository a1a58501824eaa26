// Exchange between two wallets of a transfer: which rate applies and what the destination
// receives. Rates and amounts are exact decimal strings; no JS float arithmetic.
import { Decimal, MONEY_DECIMALS } from './money.js';

/** Rates keep at most 6 decimals (the interface's promise to clients). */
export const RATE_DECIMALS = 6;

// numeric(24, 10) holds the rate.
const RATE_LIMIT = new Decimal('1e14');

// Enough precision that amount × rate (at most 15 + 4 and 14 + 6 digits) is exact before the
// single rounding to 4 decimals; the default 20 significant digits would round twice.
const Exact = Decimal.clone({ precision: 64 });

/** A rate from a request (JSON number) as an exact decimal string. */
export function rateFromInput(value: number | string): string {
  return new Exact(String(value)).toFixed();
}

/** Why a requested rate cannot be stored, or undefined when it can. */
export function rateProblem(value: number | string): string | undefined {
  const rate = new Exact(String(value));
  if (rate.decimalPlaces() > RATE_DECIMALS) return `The exchange rate may have at most ${RATE_DECIMALS} decimals.`;
  if (rate.greaterThanOrEqualTo(RATE_LIMIT)) return 'The exchange rate is too large.';
  return undefined;
}


/**
 * The rate of a transfer: 1 between wallets of one currency (any requested rate is ignored),
 * otherwise the requested rate, else the `kept` one (an update that keeps its wallets keeps
 * its rate). Undefined when a rate is needed and none is known.
 */
export function transferRate(options: {
  sourceCurrency: string;
  destinationCurrency: string;
  requested?: string;
  kept?: string;
}): string | undefined {
  if (options.sourceCurrency === options.destinationCurrency) return '1';
  return options.requested ?? options.kept;
}

/** What the destination receives: amount × rate, rounded half-even to 4 decimals. */
export function receivedAmount(amount: string, rate: string): string {
  return new Exact(amount).times(rate).toFixed(MONEY_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** The description both legs of a transfer carry. */
export function transferDescription(sourceCurrency: string, destinationCurrency: string): string {
  return `Money transfer from ${sourceCurrency} wallet to ${destinationCurrency} wallet`;
}

/** A stored rate (numeric string) as the JSON number clients receive. */
export function rateToJson(rate: string): number {
  return new Exact(rate).toDecimalPlaces(RATE_DECIMALS, Decimal.ROUND_HALF_EVEN).toNumber();
}
