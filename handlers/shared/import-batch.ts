// Many imported incomes and expenses written at once (a legacy CSV import's batch), with the
// rules of importEntry row by row but without a round trip per row: names resolved once per
// distinct wallet, party and category, the overdraft rule walked in file order over the locked
// balances, the rows inserted a few thousand per statement, and each wallet's balance moved
// once through moveBalances, their transaction.created events recorded together. A row that
// breaks a rule gets its reason and writes nothing. A row one of the user's rules books as a
// transfer (transfer_to_wallet) is written alone, through rule-transfers.ts.
import { sql, type Transaction } from 'kysely';
import { lockWallets, negativeBalanceAllowed } from '../../db/balances.js';
import { findOrCreateCategoryByName } from '../../db/category-names.js';
import { findOrCreateParties } from '../../db/import-record-names.js';
import type { Database } from '../../db/schema.js';
import { insertSplitLines } from '../../db/transaction-splits.js';
import { splitCategoryIds, type SplitLine } from '../../domain/splits.js';
import { recordWebhookEvents } from '../../db/webhook-outbox.js';
import { balanceEffect, overdraftRefused } from '../../domain/ledger.js';
import { Decimal, exceedsMoneyLimit } from '../../domain/money.js';
import { checkedAmount, entryWallet, importDayStart, rejectionReason, type ImportedEntry, type ImportWriteContext } from './import-entries.js';
import { BALANCE_TOO_LARGE, moveBalances, overdraftMessage, type Effect } from './ledger.js';
import { bookRuledTransfer, SPLIT_NOT_TRANSFER, withTransferRefused } from './rule-transfers.js';
import { applyRulesToMany, loadUserRules, skippedByRule, type RuledFields } from './transaction-rules.js';

/** Rows per INSERT statement. */
const INSERT_ROWS = 2000;

/** A row written, by position in the batch. */
interface Accepted {
  at: number;
  entry: ImportedEntry;
  amount: string;
  walletId: number;
  datetime: Date;
  /** What the user's rules made of it. */
  ruled?: RuledFields;
}

/**
 * Writes the entries inside the caller's transaction; returns per entry the reason it was not
 * imported, or undefined when it was. Unexpected database errors are thrown (the caller
 * undoes the batch and writes it row by row).
 */
export async function importEntries(
  trx: Transaction<Database>,
  entries: ImportedEntry[],
  ctx: ImportWriteContext,
  /** Told each transaction written, by the entry's position (`paired`: a transfer booked before, already imported). */
  onCreated?: (at: number, transactionId: number, paired?: boolean) => void,
): Promise<Array<string | undefined>> {
  const reasons: Array<string | undefined> = new Array(entries.length).fill(undefined);
  const reject = (at: number, error: unknown) => {
    const reason = rejectionReason(error);
    if (reason === undefined) throw error;
    reasons[at] = reason;
  };

  // the rules a row breaks by itself, then its wallet (resolved once per name and currency)
  const wallets = new Map<string, Promise<number>>();
  const dayStarts = new Map<string, Date>(); // a batch has a few hundred days at most; zone maths per day, not per row
  const checked: Accepted[] = [];
  for (const [at, entry] of entries.entries()) {
    try {
      const amount = checkedAmount(entry.amount);
      let datetime = dayStarts.get(entry.date);
      if (!datetime) dayStarts.set(entry.date, (datetime = importDayStart(entry.date, ctx.timeZone)));
      const key = JSON.stringify([entry.wallet, entry.currency, entry.bankRow?.fileWallet]);
      if (entry.walletId === undefined && !wallets.has(key)) wallets.set(key, entryWallet(trx, ctx, entry).then((wallet) => wallet.id));
      checked.push({ at, entry, amount, datetime, walletId: entry.walletId ?? (await wallets.get(key)!) });
    } catch (error) {
      reject(at, error);
    }
  }

  // the user's rules, before any balance moves: a line a rule skips is not written
  const ruled = await applyRulesToMany(
    trx,
    ctx.userId,
    ctx.rules ?? (await loadUserRules(trx, ctx.userId)),
    checked.map(({ entry, amount, walletId, datetime }) => ({
      type: entry.type,
      amount,
      walletId,
      datetime,
      date: entry.date,
      description: entry.description,
      partyId: entry.partyId ?? null,
      partyName: entry.party,
      counterparty: entry.counterparty ?? entry.party,
      currency: entry.currency,
      categoryIds: [],
      groupId: null,
      statesSplits: (entry.splits?.length ?? 0) > 0,
    })),
    ctx.now,
  );
  const notSkipped = checked.filter((row, i) => {
    row.ruled = ruled[i];
    if (ruled[i].skippedBy !== null) reasons[row.at] = skippedByRule(ruled[i]);
    return ruled[i].skippedBy === null;
  });
  const kept = await withoutTransfers(trx, notSkipped, ctx, onCreated);

  const accepted = await withinBalances(trx, kept, ctx, reasons);
  if (accepted.length === 0) return reasons;
  await moveBalances(trx, ctx.userId, { apply: accepted.map((row): Effect => ({ walletId: row.walletId, type: row.entry.type, amount: row.amount })), allowOverdraft: true }, ctx.now);

  // an entry whose party or category is already resolved (an import session's match) names it by id
  const parties = await findOrCreateParties(trx, ctx.userId, accepted.flatMap((row) => (row.entry.partyId === undefined && row.entry.party ? [row.entry.party] : [])), ctx.now);
  const statedPartyOf = (entry: ImportedEntry) => (entry.partyId !== undefined ? entry.partyId : entry.party ? parties.get(entry.party)! : null);
  const partyOf = (row: Accepted) => statedPartyOf(row.entry) ?? row.ruled?.partyId ?? null;
  const categories = new Map<string, number>();
  for (const { entry } of accepted) {
    if (entry.categoryId === undefined && entry.category && !categories.has(entry.category)) categories.set(entry.category, await findOrCreateCategoryByName(trx, ctx.userId, entry.category, entry.type, ctx.now));
  }
  const statedCategoryOf = (entry: ImportedEntry) => (entry.categoryId !== undefined ? entry.categoryId : entry.category ? categories.get(entry.category)! : null);
  // a category the row states wins over the rules (the analysis' guess does not); lines name their categories
  const splitsOf = (row: Accepted): SplitLine[] | undefined => {
    if (row.entry.splits?.length) return row.entry.splits;
    const stated = statedCategoryOf(row.entry);
    return row.ruled?.ruleSplits && (stated === null || row.entry.categoryGuessed) ? row.ruled.ruleSplits : undefined;
  };
  const categoriesOf = (row: Accepted): number[] => {
    const lines = splitsOf(row);
    if (lines) return splitCategoryIds(lines);
    const stated = statedCategoryOf(row.entry);
    const fromRules = row.ruled?.ruleCategoryIds ?? [];
    if (fromRules.length > 0 && (stated === null || row.entry.categoryGuessed)) return fromRules;
    return stated === null ? [] : [stated];
  };

  const ids: number[] = [];
  for (let start = 0; start < accepted.length; start += INSERT_ROWS) ids.push(...(await insertTransactions(trx, accepted.slice(start, start + INSERT_ROWS), ctx, partyOf)));
  accepted.forEach((row, i) => onCreated?.(row.at, ids[i]));
  // announced one by one, as a transaction made alone is (the import's own event follows at its end)
  await recordWebhookEvents(trx, ctx.userId, 'transaction.created', ids, ctx.now);
  const links = accepted.flatMap((row, i) => categoriesOf(row).map((categoryId) => ({ transaction_id: ids[i], category_id: categoryId, user_id: ctx.userId })));
  for (let start = 0; start < links.length; start += INSERT_ROWS) await trx.insertInto('transaction_categories').values(links.slice(start, start + INSERT_ROWS)).execute();
  const split = accepted.flatMap((row, i) => {
    const lines = splitsOf(row);
    return lines ? [{ transactionId: ids[i], lines }] : [];
  });
  for (let start = 0; start < split.length; start += INSERT_ROWS) await insertSplitLines(trx, ctx.userId, split.slice(start, start + INSERT_ROWS));

  // a budget's alert depends on its totals, not on which expense moved them: one expense per
  // wallet and category stands for the batch's, and each budget they move is judged once
  const representatives = new Map<string, number>();
  accepted.forEach((row, i) => {
    if (row.entry.type === 'expense') representatives.set(`${row.walletId}:${categoriesOf(row).join(',')}`, ids[i]);
  });
  if (representatives.size > 0) await ctx.alert?.(trx, ctx.userId, [...representatives.values()]);
  return reasons;
}

/**
 * The rows a rule books as transfers (transfer_to_wallet), booked or paired one by one, out of
 * the batch; the others, and those that cannot be a transfer (imported as they are, the reason
 * in their metadata), stay in it.
 */
async function withoutTransfers(trx: Transaction<Database>, rows: Accepted[], ctx: ImportWriteContext, onCreated?: (at: number, transactionId: number, paired?: boolean) => void): Promise<Accepted[]> {
  if (rows.every((row) => row.ruled?.transferWalletId == null)) return rows;
  // every wallet the batch and its transfers touch, locked in id order before any transfer locks its pair
  await lockWallets(trx, ctx.userId, [...rows.map((row) => row.walletId), ...rows.flatMap((row) => (row.ruled?.transferWalletId != null ? [row.ruled.transferWalletId] : []))]);
  const claimed = new Set<number>();
  const kept: Accepted[] = [];
  for (const row of rows) {
    const otherWalletId = row.ruled?.transferWalletId;
    if (otherWalletId == null || !row.ruled) {
      kept.push(row);
      continue;
    }
    if (row.entry.splits?.length) {
      kept.push({ ...row, ruled: withTransferRefused(row.ruled, SPLIT_NOT_TRANSFER) });
      continue;
    }
    const line = { type: row.entry.type, amount: row.amount, walletId: row.walletId, otherWalletId, datetime: row.datetime, description: row.ruled.description ?? row.entry.description, bookedElsewhere: bookedByBank(row.entry) };
    const transfer = await bookRuledTransfer(trx, ctx.userId, line, ctx.now, claimed);
    if (transfer.status === 'refused') {
      kept.push({ ...row, ruled: withTransferRefused(row.ruled, transfer.reason) });
      continue;
    }
    onCreated?.(row.at, transfer.transactionId, transfer.status === 'paired');
  }
  return kept;
}

/**
 * The rows inserted in one statement, their ids in the rows' order. The values go as one array
 * per column through unnest (a handful of parameters, where a VALUES list binds 11 per row:
 * PostgreSQL parses and binds 2,000 rows of them several times slower, and so does the query
 * compiler here).
 */
async function insertTransactions(trx: Transaction<Database>, rows: Accepted[], ctx: ImportWriteContext, partyOf: (row: Accepted) => number | null): Promise<number[]> {
  const made = await sql<{ id: number }>`
    insert into transactions (user_id, type, amount, wallet_id, datetime, intent, description, party_id, group_id, metadata, updated_at, last_synced_at)
    select ${ctx.userId}, r.type, r.amount, r.wallet_id, r.datetime, 'regular', r.description, r.party_id, r.group_id, r.metadata, ${ctx.now}, ${ctx.now}
      from unnest(${rows.map((row) => row.entry.type)}::text[], ${rows.map((row) => row.amount)}::numeric[], ${rows.map((row) => row.walletId)}::bigint[],
                  ${rows.map((row) => row.datetime)}::timestamptz[], ${rows.map((row) => row.ruled?.description ?? row.entry.description)}::text[], ${rows.map(partyOf)}::bigint[],
                  ${rows.map((row) => row.ruled?.groupId ?? null)}::bigint[], ${rows.map((row) => (row.ruled?.metadata ? JSON.stringify(row.ruled.metadata) : null))}::jsonb[])
           with ordinality as r(type, amount, wallet_id, datetime, description, party_id, group_id, metadata, at)
     order by r.at
    returning id`.execute(trx);
  // RETURNING gives the rows in the order they were inserted: the ordinality's
  return made.rows.map((row) => Number(row.id));
}

/**
 * The rows whose wallets stay within their limits, walked in file order over the locked
 * balances: an expense that would overdraw a wallet that may not go negative (unless a bank
 * booked it), or a balance past numeric(19, 4), is refused as moveBalances would refuse it alone.
 */
async function withinBalances(trx: Transaction<Database>, rows: Accepted[], ctx: ImportWriteContext, reasons: Array<string | undefined>): Promise<Accepted[]> {
  const locked = await lockWallets(trx, ctx.userId, rows.map((row) => row.walletId));
  const balances = new Map([...locked].map(([id, wallet]) => [id, new Decimal(wallet.balance)]));
  const guarded = rows.some((row) => row.entry.type === 'expense' && !bookedByBank(row.entry));
  const negativeAllowed = guarded && (await negativeBalanceAllowed(trx, ctx.userId));
  const kept: Accepted[] = [];
  for (const row of rows) {
    const wallet = locked.get(row.walletId);
    const balance = balances.get(row.walletId);
    if (!wallet || !balance) {
      reasons[row.at] = 'The selected wallet is invalid.';
      continue;
    }
    const change = balanceEffect(row.entry.type, row.amount);
    const after = balance.plus(change);
    if (exceedsMoneyLimit(after)) {
      reasons[row.at] = BALANCE_TOO_LARGE;
      continue;
    }
    if (!bookedByBank(row.entry) && overdraftRefused({ walletType: wallet.type, balanceAfter: after, change, negativeAllowed })) {
      reasons[row.at] = overdraftMessage(balance, wallet.currency);
      continue;
    }
    balances.set(row.walletId, after);
    kept.push(row);
  }
  return kept;
}

/** A bank already booked the row (a CSV export's, or a statement row of an import session): it may take a wallet below zero. */
function bookedByBank(entry: ImportedEntry): boolean {
  return entry.bankRow !== undefined || entry.bookedElsewhere === true;
}
