// The assistant's tool catalog as the language model sees it (names, descriptions, JSON Schema
// parameters), the progress label of each tool, and the pure checks of tool arguments. Read
// tools answer from the user's records (server/assistant-agent.ts); write tools only propose
// actions that the user confirms later.
import { Decimal, exceedsMoneyLimit, hasTooManyDecimals } from './money.js';

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  kind: 'read' | 'write';
  /** Shown in the reply's `progress` while it is worked on. */
  label: string;
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false });
const date = { type: 'string', description: 'A date, YYYY-MM-DD.' };

const transactionProperties = {
  amount: { type: 'number', description: 'Positive amount in the wallet currency.' },
  type: { type: 'string', enum: ['income', 'expense'] },
  wallet_id: { type: 'integer', description: 'Id of the wallet (from list_wallets).' },
  wallet_name: { type: 'string', description: 'Name of the wallet, when the id is not known.' },
  description: { type: 'string' },
  category_names: { type: 'array', items: { type: 'string' }, description: 'Names of existing categories.' },
  party_id: { type: 'integer' },
  party_name: { type: 'string', description: 'Name of an existing party (payee or payer).' },
  datetime: { type: 'string', description: 'ISO 8601 date-time; leave unset unless the user gave a date.' },
};

export const PARTY_TYPES = ['individual', 'organization', 'business', 'partnership', 'non_profit', 'government_agency', 'educational_institution', 'healthcare_provider'] as const;
export type PartyKind = (typeof PARTY_TYPES)[number];

export const TOOLS: ToolSpec[] = [
  {
    name: 'list_wallets',
    kind: 'read',
    label: 'Checking your accounts',
    description:
      'The user\'s wallets with their current balances: {wallets: [{id, name, type, currency, balance}], totals: [{currency, total}], default_wallet_id (the wallet the user set as default, or null)}.',
    parameters: object({}),
  },
  {
    name: 'list_categories',
    kind: 'read',
    label: 'Checking your accounts',
    description: 'The user\'s categories: {categories: [{id, name, type}]}.',
    parameters: object({ type: { type: 'string', enum: ['income', 'expense'] } }),
  },
  {
    name: 'list_parties',
    kind: 'read',
    label: 'Checking your accounts',
    description: 'The user\'s parties (payees and payers): {parties: [{id, name, type}]}.',
    parameters: object({}),
  },
  {
    name: 'spending_by_category',
    kind: 'read',
    label: 'Crunching the numbers',
    description:
      'Totals per category over a period (default: the last 30 days), per currency, largest first: {from, to, type, categories: [{category, currency, total, count}]}. Transfers are not counted.',
    parameters: object({ start_date: date, end_date: date, type: { type: 'string', enum: ['income', 'expense'], description: 'Default expense.' } }),
  },
  {
    name: 'recent_transactions',
    kind: 'read',
    label: 'Looking through your records',
    description: 'The user\'s latest transactions, newest first: {transactions: [{id, type, amount, currency, wallet, description, categories, party, datetime}]}.',
    parameters: object({ limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Default 10.' }, type: { type: 'string', enum: ['income', 'expense'] } }),
  },
  {
    name: 'budget_status',
    kind: 'read',
    label: 'Crunching the numbers',
    description:
      'Each budget in its current period: {budgets: [{id, name, currency, period_start, period_end, limit, spent, remaining, percent_used, status}]}; status is on_track, near_limit, forecast_breach or over_budget.',
    parameters: object({}),
  },
  {
    name: 'record_transaction',
    kind: 'write',
    label: 'Preparing your changes',
    description: 'Proposes recording one income or expense. Nothing is written until the user confirms. Only amount, type and a wallet are required.',
    parameters: object(transactionProperties, ['amount', 'type']),
  },
  {
    name: 'record_transfer',
    kind: 'write',
    label: 'Preparing your changes',
    description:
      'Proposes moving money between two of the user\'s wallets. Nothing is written until the user confirms. Between currencies, give exchange_rate (units of the destination currency per unit of the source).',
    parameters: object(
      {
        amount: { type: 'number', description: 'Positive amount leaving the source wallet.' },
        from_wallet_id: { type: 'integer' },
        from_wallet_name: { type: 'string' },
        to_wallet_id: { type: 'integer' },
        to_wallet_name: { type: 'string' },
        exchange_rate: { type: 'number' },
        datetime: { type: 'string', description: 'ISO 8601 date-time; leave unset unless the user gave a date.' },
      },
      ['amount'],
    ),
  },
  {
    name: 'create_party',
    kind: 'write',
    label: 'Preparing your changes',
    description: 'Proposes creating a party (a payee or payer) that does not exist yet, e.g. before recording a transaction with it. Nothing is written until the user confirms.',
    parameters: object({ name: { type: 'string' }, type: { type: 'string', enum: [...PARTY_TYPES] }, description: { type: 'string' } }, ['name']),
  },
  {
    name: 'record_transactions',
    kind: 'write',
    label: 'Preparing your changes',
    description: 'Proposes recording several incomes or expenses as one batch the user confirms or rejects together.',
    parameters: object({ transactions: { type: 'array', minItems: 1, maxItems: 50, items: object(transactionProperties, ['amount', 'type']) } }, ['transactions']),
  },
];

export function toolNamed(name: string): ToolSpec | undefined {
  return TOOLS.find((tool) => tool.name === name);
}

/** A tool's refusal, returned to the model as `{error}` (never an exception to the user). */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** Parses a tool call's arguments (a JSON object as text); `{}` for empty text. */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ToolError('The arguments are not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ToolError('The arguments must be a JSON object.');
  return parsed as Record<string, unknown>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` argument, or the fallback when absent. */
export function dayArgument(value: unknown, name: string, fallback: string): string {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' || !DAY.test(value) || !isCalendarDay(value)) throw new ToolError(`${name} must be a date as YYYY-MM-DD.`);
  return value;
}

/**
 * A day the calendar has (Date.parse rolls 2026-02-30 over to March 2), in the years the day
 * arithmetic handles (two-digit years become 19xx, and the day after 9999-12-31 does not exist).
 */
function isCalendarDay(day: string): boolean {
  const year = Number(day.slice(0, 4));
  return year >= 1000 && year <= 9998 && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}

/** A date-time argument: ISO 8601 starting with a real day (YYYY-MM-DD). */
function dateTimeArgument(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const day = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(value)?.[1];
  if (day === undefined || !isCalendarDay(day) || Number.isNaN(Date.parse(value))) throw new ToolError('datetime must be an ISO 8601 date-time.');
  return value;
}

/**
 * A money argument, exactly as the model wrote it: a JSON number or a plain decimal string
 * ("12.50"; not "1e3" nor "1,234"), above zero, at most 4 decimals (0.1 + 0.2 computed by the
 * model is refused, not rounded), and within what a wallet can hold.
 */
function amountArgument(value: unknown): number {
  const valid = (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()));
  if (!valid || !new Decimal(String(value).trim()).greaterThan(0)) throw new ToolError('Amount must be greater than zero.');
  if (hasTooManyDecimals(String(value).trim())) throw new ToolError('The amount may have at most 4 decimal places.');
  if (exceedsMoneyLimit(String(value).trim())) throw new ToolError('The amount is too large.');
  return Number(value);
}

/** A transaction as a write tool received it, checked for shape (references resolved elsewhere). */
export interface TransactionArguments {
  amount: number;
  type: 'income' | 'expense';
  walletId?: number;
  walletName?: string;
  description?: string;
  categoryNames: string[];
  partyId?: number;
  partyName?: string;
  datetime?: string;
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const id = (value: unknown) => (Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined);

export function transactionArguments(args: Record<string, unknown>): TransactionArguments {
  const amount = amountArgument(args.amount);
  if (args.type !== 'income' && args.type !== 'expense') throw new ToolError('Type must be income or expense.');
  const datetime = dateTimeArgument(text(args.datetime));
  const categoryNames = Array.isArray(args.category_names) ? args.category_names.map(text).filter((n): n is string => n !== undefined) : [];
  return {
    amount,
    type: args.type,
    walletId: id(args.wallet_id),
    walletName: text(args.wallet_name),
    description: text(args.description),
    categoryNames,
    partyId: id(args.party_id),
    partyName: text(args.party_name),
    datetime,
  };
}

export interface TransferArguments {
  amount: number;
  fromWalletId?: number;
  fromWalletName?: string;
  toWalletId?: number;
  toWalletName?: string;
  exchangeRate?: number;
  datetime?: string;
}

export function transferArguments(args: Record<string, unknown>): TransferArguments {
  const amount = amountArgument(args.amount);
  const rate = args.exchange_rate;
  if (rate !== undefined && rate !== null && (typeof rate !== 'number' || !(rate > 0))) throw new ToolError('The exchange rate must be greater than zero.');
  const datetime = dateTimeArgument(text(args.datetime));
  return {
    amount,
    fromWalletId: id(args.from_wallet_id),
    fromWalletName: text(args.from_wallet_name),
    toWalletId: id(args.to_wallet_id),
    toWalletName: text(args.to_wallet_name),
    exchangeRate: typeof rate === 'number' ? rate : undefined,
    datetime,
  };
}

export interface PartyArguments {
  name: string;
  type?: PartyKind;
  description?: string;
}

export function partyArguments(args: Record<string, unknown>): PartyArguments {
  const name = text(args.name);
  if (!name) throw new ToolError('A name is required.');
  if (name.length > 255) throw new ToolError('The name may not be longer than 255 characters.');
  const type = text(args.type);
  if (type !== undefined && !(PARTY_TYPES as readonly string[]).includes(type)) throw new ToolError(`type must be one of ${PARTY_TYPES.join(', ')}.`);
  return { name, type: type as PartyKind | undefined, description: text(args.description) };
}

/** "Transfer 50 USD from Cash to Bank." */
export function transferSummary(amount: number | string, currency: string, from: string, to: string): string {
  return `Transfer ${amount} ${currency} from ${from} to ${to}.`;
}

/** "Log an expense of 20 USD for coffee." / "Record income of 5000 EUR." */
export function transactionSummary(type: 'income' | 'expense', amount: number | string, currency: string, description?: string): string {
  const what = type === 'expense' ? `Log an expense of ${amount} ${currency}` : `Record income of ${amount} ${currency}`;
  return `${what}${description ? ` for ${description}` : ''}.`;
}

/** Progress labels in call order, consecutive repeats collapsed. */
export function collapseLabels(labels: string[]): string[] {
  return labels.filter((label, index) => index === 0 || labels[index - 1] !== label);
}
