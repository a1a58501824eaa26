// Splits of an income or expense: lines with their own amount, category, party and
// description that add up exactly to the transaction's amount. Pure rules, exact decimals.
import { Decimal, MONEY_DECIMALS } from './money.js';

/** At most this many lines per transaction (a receipt has dozens, not hundreds). */
export const MAX_SPLITS = 250;

/** A split as the write path takes it: `amount` an exact decimal string (moneyFromInput). */
export interface SplitLine {
  amount: string;
  categoryId: number | null;
  partyId: number | null;
  description: string | null;
}

/**
 * Why the lines cannot split `total`, or undefined when they add up exactly: the message names
 * the difference (lines over or short of the total).
 */
export function splitSumProblem(total: string, amounts: readonly string[]): string | undefined {
  const sum = amounts.reduce((acc, amount) => acc.plus(amount), new Decimal(0));
  const difference = sum.minus(total);
  if (difference.isZero()) return undefined;
  const by = difference.abs().toFixed();
  return difference.isPositive()
    ? `The splits add up to ${sum.toFixed()}, ${by} more than the amount ${new Decimal(total).toFixed()}.`
    : `The splits add up to ${sum.toFixed()}, ${by} less than the amount ${new Decimal(total).toFixed()}.`;
}

/** The distinct categories of the lines, in line order: the transaction's `categories`. */
export function splitCategoryIds(lines: ReadonlyArray<{ categoryId: number | null }>): number[] {
  return [...new Set(lines.flatMap((line) => (line.categoryId === null ? [] : [line.categoryId])))];
}

/**
 * A refund of `refund` paid back on an expense split into `amounts`, shared in proportion:
 * each line but the last gets refund × line / total rounded half away from zero to 4 decimals
 * (PostgreSQL's round), the last what remains, so the shares add up to the refund exactly.
 * The budgets' SQL (db/budget-window-sql.ts countedRefund) computes the same.
 */
export function refundShares(refund: string, amounts: readonly string[]): string[] {
  const total = amounts.reduce((acc, amount) => acc.plus(amount), new Decimal(0));
  const shares = amounts.map((amount) => new Decimal(refund).times(amount).dividedBy(total).toDecimalPlaces(MONEY_DECIMALS, Decimal.ROUND_HALF_UP));
  if (shares.length === 0) return [];
  const others = shares.slice(0, -1).reduce((acc, share) => acc.plus(share), new Decimal(0));
  shares[shares.length - 1] = new Decimal(refund).minus(others);
  return shares.map((share) => share.toFixed());
}
