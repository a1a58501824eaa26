// Money is exact: PostgreSQL numeric in storage and SQL sums, decimal.js in JS arithmetic.
// A JS number appears only at the JSON edge, converted once from the exact decimal string.
import { Decimal } from 'decimal.js';

export const MONEY_DECIMALS = 4;

export { Decimal };

/** numeric(19, 4) holds amounts and balances: 15 integer digits. */
export const MONEY_LIMIT = new Decimal('1e15');

/** True when an amount does not fit the money columns. */
export function exceedsMoneyLimit(amount: string | number | Decimal): boolean {
  return new Decimal(String(amount)).abs().greaterThanOrEqualTo(MONEY_LIMIT);
}

/** A decimal string with at most MONEY_DECIMALS places, as numeric(19, 4) columns come from pg. */
const STORED_MONEY = /^-?\d{1,15}(\.\d{1,4})?$/;

/** An exact decimal string (as pg returns numeric) as the JSON number clients receive. */
export function moneyToJson(value: string | number | Decimal): number {
  // already at most 4 places: rounding changes nothing, and Decimal's toNumber() is Number() of the same digits
  if (typeof value === 'string' && STORED_MONEY.test(value)) return Number(value);
  return new Decimal(value).toDecimalPlaces(MONEY_DECIMALS, Decimal.ROUND_HALF_EVEN).toNumber();
}

/** A money amount from a request (JSON number or numeric string) as an exact decimal string. */
export function moneyFromInput(value: number | string): string {
  return new Decimal(String(value)).toFixed(MONEY_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** True when the amount has more decimal places than money keeps. */
export function hasTooManyDecimals(value: number | string): boolean {
  return new Decimal(String(value)).decimalPlaces() > MONEY_DECIMALS;
}
