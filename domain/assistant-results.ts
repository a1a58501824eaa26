// The figures of an assistant answer as the reference's data answers carry them: `results`, an
// array of flat rows whose keys are column names in display order, and `format_type`, which says
// how a client lays them out (the reference web client: `scalar` shows the first value of the
// first row, `pair_list` each row's first value as a label and its second as the figure,
// `table` the rows under their keys, `raw` nothing when there are no rows). Built from what the
// read tools return (server/assistant-agent.ts), for the local engine and the model alike.
import { Decimal, moneyToJson } from './money.js';

export type FormatType = 'scalar' | 'pair' | 'record' | 'list' | 'pair_list' | 'table' | 'raw';
export type ResultRow = Record<string, string | number | boolean | null>;
export interface AnswerData {
  formatType: FormatType;
  rows: ResultRow[];
}

/** Money in tool outputs is what moneyToJson made of the ledger's decimal. */
type Money = number | string;

export interface WalletsOutput {
  wallets: Array<{ id: number; name: string; currency: string; balance: Money }>;
  totals: Array<{ currency: string; total: Money }>;
  default_wallet_id: number | null;
}
export interface CategoryTotal {
  category: string;
  currency: string;
  total: Money;
  count: number;
}
export interface SpendingOutput {
  from: string;
  to: string;
  categories: CategoryTotal[];
}
export interface BudgetsOutput {
  budgets: Array<{ name: string; currency: string; limit: Money; spent: Money; remaining: Money; percent_used: number | string; status: string }>;
}
export interface RecentOutput {
  transactions: Array<{ type: string; amount: Money; currency: string; wallet: string; description: string | null; party: string | null; categories: string | null; datetime: string }>;
}

const amount = (value: Money | Decimal) => moneyToJson(value);

/** One row per wallet: its name, balance and currency. */
export function walletRows(output: WalletsOutput): AnswerData {
  return { formatType: 'table', rows: output.wallets.map((w) => ({ wallet: w.name, balance: amount(w.balance), currency: w.currency })) };
}

/** A single total is a scalar; totals in several currencies are a currency -> total list. */
export function totalsRows(totals: Map<string, Decimal>): AnswerData {
  if (totals.size === 1) return { formatType: 'scalar', rows: [{ total: amount([...totals.values()][0]) }] };
  return { formatType: 'pair_list', rows: [...totals].map(([currency, total]) => ({ currency, total: amount(total) })) };
}

/** Category -> total, largest first; with several currencies a table that names each row's currency. */
export function categoryRows(categories: CategoryTotal[]): AnswerData {
  const currencies = new Set(categories.map((c) => c.currency));
  if (currencies.size <= 1) return { formatType: 'pair_list', rows: categories.map((c) => ({ category: c.category, total: amount(c.total) })) };
  return { formatType: 'table', rows: categories.map((c) => ({ category: c.category, total: amount(c.total), currency: c.currency, transactions: c.count })) };
}

/** One row per budget in its current period; `statusWords` names each status in the reply's language. */
export function budgetRows(output: BudgetsOutput, statusWords: Record<string, string> = {}): AnswerData {
  return {
    formatType: 'table',
    rows: output.budgets.map((b) => ({
      budget: b.name,
      spent: amount(b.spent),
      limit: amount(b.limit),
      currency: b.currency,
      percent_used: Number(b.percent_used),
      status: statusWords[b.status] ?? b.status,
    })),
  };
}

/** One row per transaction, newest first: an expense's amount is negative. */
export function transactionRows(output: RecentOutput): AnswerData {
  return {
    formatType: 'table',
    rows: output.transactions.map((t) => ({
      date: t.datetime.slice(0, 10),
      description: [t.description, t.party, t.categories].filter(Boolean).join(' · ') || null,
      amount: t.type === 'expense' ? -amount(t.amount) : amount(t.amount),
      currency: t.currency,
      wallet: t.wallet,
    })),
  };
}

/** The figures a read tool's output holds (undefined for a tool without figures, or a refused call). */
export function resultsOfTool(name: string, output: unknown, statusWords?: Record<string, string>): AnswerData | undefined {
  if (output === null || typeof output !== 'object' || 'error' in output) return undefined;
  switch (name) {
    case 'list_wallets':
      return walletRows(output as WalletsOutput);
    case 'spending_by_category':
      return categoryRows((output as SpendingOutput).categories);
    case 'budget_status':
      return budgetRows(output as BudgetsOutput, statusWords);
    case 'recent_transactions':
      return transactionRows(output as RecentOutput);
    default:
      return undefined;
  }
}
