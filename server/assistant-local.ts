// The assistant without a language model: the message is read by the local intent parser
// (domain/assistant-intents/) and answered through the same tools the model calls (runTool in
// assistant-agent.ts): read tools for questions, write tools that only propose actions for
// expenses, incomes and transfers. Deterministic, one short pass, no network.
import { userTimeZoneOrUtc, userToday } from '../db/budget-spending.js';
import { parseSentence, type Intent, type LedgerNames } from '../domain/assistant-intents/intents.js';
import type { Language } from '../domain/assistant-intents/phrases.js';
import { helpReply, LINES, listReply } from '../domain/assistant-intents/replies.js';
import { collapseLabels, toolNamed } from '../domain/assistant-tools.js';
import { Decimal } from '../domain/money.js';
import { startOfDay } from '../domain/time-zone.js';
import { emptyAnswer, runTool, type AgentAnswer, type AgentContext } from './assistant-agent.js';

/** Money in tool outputs is what moneyToJson made of the ledger's decimal. */
type Money = number | string;

interface WalletRow {
  id: number;
  name: string;
  currency: string;
  balance: Money;
}
interface WalletsOutput {
  wallets: WalletRow[];
  totals: Array<{ currency: string; total: Money }>;
  default_wallet_id: number | null;
}
interface SpendingOutput {
  from: string;
  to: string;
  categories: Array<{ category: string; currency: string; total: Money; count: number }>;
}
interface BudgetsOutput {
  budgets: Array<{ name: string; currency: string; limit: Money; spent: Money; remaining: Money; percent_used: number | string; status: string }>;
}
interface RecentOutput {
  transactions: Array<{ type: string; amount: Money; currency: string; wallet: string; description: string | null; party: string | null; categories: string | null; datetime: string }>;
}

/** A local day's noon in the user's time zone: a past day's transaction lands inside that day wherever it is read. */
const NOON_MS = 12 * 3_600_000;

export async function answerLocally(ctx: AgentContext, question: string): Promise<AgentAnswer> {
  const answer = emptyAnswer();
  const labels: string[] = [];
  const call = async <T>(name: string, args: object = {}): Promise<T> => {
    labels.push(toolNamed(name)?.label ?? 'Working on it');
    return (await runTool(ctx, name, JSON.stringify(args), answer)) as T;
  };
  const [wallets, categories, parties, timeZone] = await Promise.all([
    call<WalletsOutput>('list_wallets'),
    call<{ categories: LedgerNames['categories'] }>('list_categories'),
    call<{ parties: LedgerNames['parties'] }>('list_parties'),
    userTimeZoneOrUtc(ctx.db, ctx.userId),
  ]);
  const today = await userToday(ctx.db, ctx.userId, ctx.now, timeZone);
  const names: LedgerNames = { wallets: wallets.wallets, categories: categories.categories, parties: parties.parties };
  const { intent, language } = parseSentence(question, { today, language: ctx.language, names });
  const reply = new LocalReply(call, language, wallets, names, (day) => (day === today ? undefined : new Date(startOfDay(day, timeZone).getTime() + NOON_MS).toISOString()));
  answer.text = await reply.to(intent);
  answer.progress = collapseLabels(labels);
  return answer;
}

type Call = <T>(name: string, args?: object) => Promise<T>;

/** Writes the reply to one intent, calling the tools it needs. */
class LocalReply {
  private readonly lines;

  constructor(
    private readonly call: Call,
    private readonly language: Language,
    private readonly wallets: WalletsOutput,
    private readonly names: LedgerNames,
    private readonly datetimeOf: (day: string) => string | undefined,
  ) {
    this.lines = LINES[language];
  }

  async to(intent: Intent): Promise<string> {
    switch (intent.kind) {
      case 'record':
        return this.record(intent);
      case 'transfer':
        return this.transfer(intent);
      case 'balance':
        return this.balances();
      case 'spending':
        return this.spending(intent);
      case 'top_categories':
        return this.topCategories(intent);
      case 'budgets':
        return this.budgets();
      case 'recent':
        return this.recent(intent.limit);
      case 'help':
        return helpReply(this.language);
    }
  }

  /** The named wallet; else the default, the first in the currency the user wrote, or the first. */
  private walletFor(walletId: number | undefined, currency: string | undefined): WalletRow | undefined {
    const all = this.wallets.wallets;
    if (walletId !== undefined) return all.find((w) => w.id === walletId);
    const preferred = all.find((w) => w.id === this.wallets.default_wallet_id);
    if (preferred && (!currency || preferred.currency === currency)) return preferred;
    return all.find((w) => w.currency === currency) ?? preferred ?? all[0];
  }

  /** The outcome of a write tool: the proposal's wording, or why it was refused. */
  private proposedOr(output: { error?: string }, what: string): string {
    return output.error ? this.lines.refused(output.error) : this.lines.proposed(what);
  }

  private async record(intent: Extract<Intent, { kind: 'record' }>): Promise<string> {
    const wallet = this.walletFor(intent.walletId, intent.currency);
    if (!wallet) return this.lines.noWallet;
    if (intent.currency && intent.currency !== wallet.currency) return this.lines.currencyMismatch(intent.currency, wallet.name, wallet.currency);
    const category = this.names.categories.find((c) => c.id === intent.categoryId);
    const datetime = intent.day ? this.datetimeOf(intent.day) : undefined;
    const output = await this.call<{ error?: string }>('record_transaction', {
      amount: intent.amount,
      type: intent.type,
      wallet_id: wallet.id,
      ...(intent.partyId !== undefined ? { party_id: intent.partyId } : {}),
      ...(category ? { category_names: [category.name] } : {}),
      ...(intent.description ? { description: intent.description } : {}),
      ...(datetime ? { datetime } : {}),
    });
    const amount = `${intent.amount} ${wallet.currency}`;
    return this.proposedOr(output, intent.type === 'expense' ? this.lines.expense(amount) : this.lines.income(amount));
  }

  private async transfer(intent: Extract<Intent, { kind: 'transfer' }>): Promise<string> {
    if (this.wallets.wallets.length === 0) return this.lines.noWallet;
    const to = this.wallets.wallets.find((w) => w.id === intent.toWalletId);
    const from = intent.fromWalletId !== undefined ? this.wallets.wallets.find((w) => w.id === intent.fromWalletId) : this.walletFor(undefined, intent.currency);
    if (!to || !from || from.id === to.id) return this.lines.whichWallet;
    if (intent.currency && intent.currency !== from.currency) return this.lines.currencyMismatch(intent.currency, from.name, from.currency);
    const datetime = intent.day ? this.datetimeOf(intent.day) : undefined;
    const output = await this.call<{ error?: string }>('record_transfer', { amount: intent.amount, from_wallet_id: from.id, to_wallet_id: to.id, ...(datetime ? { datetime } : {}) });
    return this.proposedOr(output, this.lines.transfer(`${intent.amount} ${from.currency}`, from.name, to.name));
  }

  private balances(): string {
    if (this.wallets.wallets.length === 0) return this.lines.noWallets;
    const lines = this.wallets.wallets.map((w) => `${w.name}: ${w.balance} ${w.currency}`);
    const totals = this.wallets.totals.map((t) => `**${this.lines.total}: ${t.total} ${t.currency}**`);
    return listReply(this.lines.balances, [...lines, ...totals]);
  }

  private async spending(intent: Extract<Intent, { kind: 'spending' }>): Promise<string> {
    const output = await this.call<SpendingOutput>('spending_by_category', { start_date: intent.from, end_date: intent.to, type: intent.type });
    const category = this.names.categories.find((c) => c.id === intent.categoryId);
    const rows = category ? output.categories.filter((row) => row.category === category.name) : output.categories;
    if (rows.length === 0) return this.lines.nothingSpent(intent.from, intent.to);
    // Totals per currency, summed by the database per category; added here as exact decimals.
    const totals = new Map<string, Decimal>();
    for (const row of rows) totals.set(row.currency, (totals.get(row.currency) ?? new Decimal(0)).plus(row.total));
    const heading = intent.type === 'income' ? this.lines.earned(intent.from, intent.to) : this.lines.spent(intent.from, intent.to);
    const lines = [...totals].map(([currency, total]) => `${category ? `${category.name}: ` : ''}**${total.toString()} ${currency}**`);
    return listReply(heading, lines);
  }

  private async topCategories(intent: Extract<Intent, { kind: 'top_categories' }>): Promise<string> {
    const output = await this.call<SpendingOutput>('spending_by_category', { start_date: intent.from, end_date: intent.to, type: intent.type });
    if (output.categories.length === 0) return this.lines.nothingSpent(intent.from, intent.to);
    const lines = output.categories.slice(0, 5).map((row) => `${row.category}: ${row.total} ${row.currency} (${row.count})`);
    return listReply(this.lines.top(intent.from, intent.to), lines);
  }

  private async budgets(): Promise<string> {
    const output = await this.call<BudgetsOutput>('budget_status');
    if (output.budgets.length === 0) return this.lines.noBudgets;
    const lines = output.budgets.map((b) => `${b.name}: ${b.spent} / ${b.limit} ${b.currency} (${b.percent_used}%), ${this.lines.status[b.status] ?? b.status}`);
    return listReply(this.lines.budgets, lines);
  }

  private async recent(limit: number): Promise<string> {
    const output = await this.call<RecentOutput>('recent_transactions', { limit });
    if (output.transactions.length === 0) return this.lines.noTransactions;
    const lines = output.transactions.map((t) => {
      const sign = t.type === 'expense' ? '-' : '+';
      const what = [t.description, t.party, t.categories].filter(Boolean).join(' · ');
      return `${t.datetime.slice(0, 10)} ${sign}${t.amount} ${t.currency} (${t.wallet})${what ? ` ${what}` : ''}`;
    });
    return listReply(this.lines.recent, lines);
  }
}
