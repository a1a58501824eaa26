// A set_splits action made into lines for one transaction's amount. Percentages: each line but
// the last gets amount × percent / 100 rounded half away from zero to 4 decimals, the last
// what remains (so the lines add up exactly). Fixed amounts: as given, the last line without
// one taking the rest. Amounts that do not fit the transaction (they add up to more, or, all
// given, to anything but the amount) split nothing: the reason is kept instead.
import { Decimal, MONEY_DECIMALS } from '../money.js';
import type { SplitLine } from '../splits.js';
import type { RuleSplit } from './language.js';

export type RuleSplitResult = { lines: SplitLine[] } | { reason: string };

export function ruleSplitLines(amount: string, splits: readonly RuleSplit[]): RuleSplitResult {
  const total = new Decimal(amount);
  const byPercent = splits[0]?.percent !== undefined;
  const shares = splits.map((line) =>
    byPercent ? total.times(line.percent!).dividedBy(100).toDecimalPlaces(MONEY_DECIMALS, Decimal.ROUND_HALF_UP) : line.amount === undefined ? undefined : new Decimal(line.amount),
  );
  const others = shares.slice(0, -1).reduce<Decimal>((sum, share) => sum.plus(share!), new Decimal(0));
  const last = shares.at(-1);
  if (!byPercent && last !== undefined && !others.plus(last).equals(total)) {
    return { reason: `Not split: the rule's amounts add up to ${others.plus(last).toFixed()}, not the amount ${total.toFixed()}.` };
  }
  const rest = total.minus(others);
  if (!rest.greaterThan(0) || shares.slice(0, -1).some((share) => !share!.greaterThan(0))) {
    return {
      reason: byPercent
        ? `Not split: the amount ${total.toFixed()} is too small to split by these percentages.`
        : `Not split: the rule's fixed amounts (${others.toFixed()}) leave nothing of the amount ${total.toFixed()} for the last line.`,
    };
  }
  shares[shares.length - 1] = rest;
  return {
    lines: splits.map((line, index) => ({ amount: shares[index]!.toFixed(), categoryId: line.category_id ?? null, partyId: line.party_id ?? null, description: line.description ?? null })),
  };
}
