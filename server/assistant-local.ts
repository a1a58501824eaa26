// The assistant without a language model: the message is read by the local intent parser
// (domain/assistant-intents/) and answered through the same tools the model calls (runTool in
// assistant-agent.ts): read tools for questions, write tools that only propose actions for
// expenses, incomes and transfers. Deterministic, one short pass, no network. A reply is its
// Markdown, and for a question with figures a plain summary and the figures as results.
import { userTimeZoneOrUtc, userToday } from '../db/budget-spending.js';
import { parseSentence, type Intent, type LedgerNames } from '../domain/assistant-intents/intents.js';
import type { Language } from '../domain/assistant-intents/phrases.js';
import { helpReply, LINES, listReply } from '../domain/assistant-intents/replies.js';
import {
  budgetRows,
  categoryRows,
  totalsRows,
  transactionRows,
  walletRows,
  type AnswerData,
  type BudgetsOutput,
  type RecentOutput,
  type SpendingOutput,
  type WalletsOutput,
} from '../domain/assistant-results.js';
import { collapseLabels, toolNamed } from '../domain/assistant-tools.js';
import { markdownToPlainText } from '../domain/markdown-text.js';
import { Decimal } from '../domain/money.js';
import { startOfDay } from '../domain/time-zone.js';
import { emptyAnswer, runTool, type AgentAnswer, type AgentContext } from './assistant-agent.js';

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
  const written = await reply.to(intent);
  answer.text = written.markdown;
  answer.plainText = written.text;
  answer.data = written.data;
  answer.progress = collapseLabels(labels);
  return answer;
}

/** A local reply: its Markdown, its plain text, and the figures of a question's answer. */
interface Written {
  markdown: string;
  text: string;
  data?: AnswerData;
}
/** A sentence without markup is both (names stay as the user wrote them, marks included). */
const said = (sentence: string): Written => ({ markdown: sentence, text: sentence });

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

  async to(intent: Intent): Promise<Written> {
    switch (intent.kind) {
      case 'record':
        return said(await this.record(intent));
      case 'transfer':
        return said(await this.transfer(intent));
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
        return { markdown: helpReply(this.language), text: markdownToPlainText(helpReply(this.language)) };
    }
  }

  /** The named wallet; else the default, the first in the currency the user wrote, or the first. */
  private walletFor(walletId: number | undefined, currency: string | undefined): WalletsOutput['wallets'][number] | undefined {
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

  private balances(): Written {
    if (this.wallets.wallets.length === 0) return said(this.lines.noWallets);
    const lines = this.wallets.wallets.map((w) => `${w.name}: ${w.balance} ${w.currency}`);
    const totals = this.wallets.totals.map((t) => `**${this.lines.total}: ${t.total} ${t.currency}**`);
    return {
      markdown: listReply(this.lines.balances, [...lines, ...totals]),
      text: this.lines.walletsSummary(this.wallets.wallets.length, this.wallets.totals.map((t) => `${t.total} ${t.currency}`).join(', ')),
      data: walletRows(this.wallets),
    };
  }

  private async spending(intent: Extract<Intent, { kind: 'spending' }>): Promise<Written> {
    const output = await this.call<SpendingOutput>('spending_by_category', { start_date: intent.from, end_date: intent.to, type: intent.type });
    const category = this.names.categories.find((c) => c.id === intent.categoryId);
    const rows = category ? output.categories.filter((row) => row.category === category.name) : output.categories;
    if (rows.length === 0) return said(this.lines.nothingSpent(intent.from, intent.to));
    // Totals per currency, summed by the database per category; added here as exact decimals.
    const totals = new Map<string, Decimal>();
    for (const row of rows) totals.set(row.currency, (totals.get(row.currency) ?? new Decimal(0)).plus(row.total));
    const heading = intent.type === 'income' ? this.lines.earned(intent.from, intent.to) : this.lines.spent(intent.from, intent.to);
    const lines = [...totals].map(([currency, total]) => `${category ? `${category.name}: ` : ''}**${total.toString()} ${currency}**`);
    const amounts = [...totals].map(([currency, total]) => `${total.toString()} ${currency}`).join(', ');
    const summary = intent.type === 'income' ? this.lines.earnedTotal : this.lines.spentTotal;
    return { markdown: listReply(heading, lines), text: summary(amounts, intent.from, intent.to, category?.name), data: totalsRows(totals) };
  }

  private async topCategories(intent: Extract<Intent, { kind: 'top_categories' }>): Promise<Written> {
    const output = await this.call<SpendingOutput>('spending_by_category', { start_date: intent.from, end_date: intent.to, type: intent.type });
    if (output.categories.length === 0) return said(this.lines.nothingSpent(intent.from, intent.to));
    const top = output.categories.slice(0, 5);
    const lines = top.map((row) => `${row.category}: ${row.total} ${row.currency} (${row.count})`);
    const heading = this.lines.top(intent.from, intent.to);
    return { markdown: listReply(heading, lines), text: heading, data: categoryRows(top) };
  }

  private async budgets(): Promise<Written> {
    const output = await this.call<BudgetsOutput>('budget_status');
    if (output.budgets.length === 0) return said(this.lines.noBudgets);
    const lines = output.budgets.map((b) => `${b.name}: ${b.spent} / ${b.limit} ${b.currency} (${b.percent_used}%), ${this.lines.status[b.status] ?? b.status}`);
    return { markdown: listReply(this.lines.budgets, lines), text: this.lines.budgets, data: budgetRows(output, this.lines.status) };
  }

  private async recent(limit: number): Promise<Written> {
    const output = await this.call<RecentOutput>('recent_transactions', { limit });
    if (output.transactions.length === 0) return said(this.lines.noTransactions);
    const lines = output.transactions.map((t) => {
      const sign = t.type === 'expense' ? '-' : '+';
      const what = [t.description, t.party, t.categories].filter(Boolean).join(' · ');
      return `${t.datetime.slice(0, 10)} ${sign}${t.amount} ${t.currency} (${t.wallet})${what ? ` ${what}` : ''}`;
    });
    return { markdown: listReply(this.lines.recent, lines), text: this.lines.recent, data: transactionRows(output) };
  }
}
