// A transaction as the API shows it, with its wallet, party, group and categories nested as
// full objects (the mobile client requires them) built by their own views.
import type { components } from '../../generated/api.js';
import type { TransactionDetails } from '../../db/transaction-details.js';
import type { RecurringRuleRow, TransactionRow } from '../../db/transactions.js';
import { formatClientId } from '../../domain/client-id.js';
import { moneyToJson } from '../../domain/money.js';
import { toCategory, type CategoryRow, type CategoryView } from './category.js';
import { toFile } from './file.js';
import { toGroup, type GroupRow, type GroupView } from './group.js';
import { toParty, type PartyRow, type PartyView } from './party.js';
import { syncFields } from './sync.js';
import { toWallet, type WalletRow, type WalletView } from './wallet.js';

export type TransactionView = components['schemas']['Transaction'];
export type RecurringRuleView = components['schemas']['RecurringRule'];
type TransactionSplitView = components['schemas']['TransactionSplit'];

/**
 * Rows as views. A page of a hundred transactions nests a handful of wallets, parties, groups
 * and categories: each is built once and shared by the rows that show it.
 */
export function toTransactions(rows: TransactionRow[], details: TransactionDetails, publicUrl: string): TransactionView[] {
  const nested: NestedViews = {
    wallet: builtOnce((wallet) => toWallet(wallet, details.walletTotals.get(wallet.id))),
    party: builtOnce(toParty),
    group: builtOnce(toGroup),
    category: builtOnce(toCategory),
  };
  return rows.map((row) => toTransaction(row, details, publicUrl, nested));
}

interface NestedViews {
  wallet: (row: WalletRow) => WalletView;
  party: (row: PartyRow) => PartyView;
  group: (row: GroupRow) => GroupView;
  category: (row: CategoryRow) => CategoryView;
}

/** `build`, remembering its view per row id. */
function builtOnce<Row extends { id: number }, View>(build: (row: Row) => View): (row: Row) => View {
  const views = new Map<number, View>();
  return (row) => {
    let view = views.get(row.id);
    if (view === undefined) views.set(row.id, (view = build(row)));
    return view;
  };
}

function toTransaction(row: TransactionRow, details: TransactionDetails, publicUrl: string, nested: NestedViews): TransactionView {
  const walletRow = details.wallets.get(row.wallet_id);
  if (!walletRow) throw new Error(`wallet ${row.wallet_id} of transaction ${row.id} was not loaded`);
  const wallet = nested.wallet(walletRow);
  const partyRow = row.party_id === null ? undefined : details.parties.get(row.party_id);
  const party = partyRow ? nested.party(partyRow) : null;
  const groupRow = row.group_id === null ? undefined : details.groups.get(row.group_id);
  const transfer = row.transfer_id === null ? undefined : details.transfers.get(row.transfer_id);
  const rule = details.rules.get(row.id);
  return Object.assign(syncFields(row, 'transaction'), {
    type: row.type,
    amount: moneyToJson(row.amount),
    description: row.description,
    datetime: row.datetime.toISOString(),
    intent: row.intent as TransactionView['intent'],
    metadata: row.metadata,
    wallet_id: row.wallet_id,
    party_id: row.party_id,
    group_id: row.group_id,
    transfer_id: row.transfer_id,
    is_recurring: rule !== undefined,
    is_refund: row.is_refund,
    refund_of_transaction_id: row.refund_of_transaction_id,
    // filled only by the budget transactions list
    amount_in_budget_currency: null,
    wallet,
    party,
    group: groupRow ? nested.group(groupRow) : null,
    categories: categoriesOf(row.id, details).map(nested.category),
    wallet_client_generated_id: wallet.client_generated_id,
    party_client_generated_id: party?.client_generated_id ?? null,
    transfer_client_generated_id: transfer ? formatClientId(transfer.device_token, transfer.client_generated_id) : null,
    files: (details.files.get(row.id) ?? []).map((file) => toFile(file, publicUrl)),
    recurring_rules: rule ? toRecurringRule(rule) : null,
    splits: splitsOf(row.id, details, nested),
  });
}

/** The linked categories; a split transaction's in the order its lines first name them. */
function categoriesOf(transactionId: number, details: TransactionDetails): CategoryRow[] {
  const linked = details.categories.get(transactionId) ?? [];
  const lines = details.splits.get(transactionId);
  if (!lines) return linked;
  const byId = new Map(linked.map((category) => [category.id, category]));
  const ordered = [...new Set(lines.map((line) => line.category_id))].flatMap((id) => (id === null || !byId.has(id) ? [] : [byId.get(id)!]));
  // links the lines do not name (a rule filed the transaction since) follow
  return [...ordered, ...linked.filter((category) => !ordered.includes(category))];
}

function splitsOf(transactionId: number, details: TransactionDetails, nested: NestedViews): TransactionSplitView[] {
  const linked = new Map((details.categories.get(transactionId) ?? []).map((category) => [category.id, category]));
  return (details.splits.get(transactionId) ?? []).map((line) => {
    const category = line.category_id === null ? undefined : linked.get(line.category_id);
    const party = line.party_id === null ? undefined : details.parties.get(line.party_id);
    return {
      amount: moneyToJson(line.amount),
      description: line.description,
      category_id: line.category_id,
      party_id: line.party_id,
      category: category ? nested.category(category) : null,
      party: party ? nested.party(party) : null,
    };
  });
}

export function toRecurringRule(rule: RecurringRuleRow): RecurringRuleView {
  return {
    id: rule.id,
    transaction_id: rule.transaction_id,
    recurrence_period: rule.recurrence_period,
    recurrence_interval: rule.recurrence_interval,
    recurrence_ends_at: rule.recurrence_ends_at?.toISOString() ?? null,
    next_scheduled_at: rule.next_scheduled_at.toISOString(),
    created_at: rule.created_at.toISOString(),
    updated_at: rule.updated_at.toISOString(),
  };
}
