// A rule's `transfer_to_wallet` on an imported line (docs/rules.md "Where rules run"): the line is
// booked as a transfer between its wallet and the rule's (an expense goes from the line's wallet
// to the other, an income comes from the other), through the transfer plan every transfer takes
// (both wallets the caller's and live, a rate when the currencies differ). When the other side's
// statement later brings the counter-line (same amount, the other direction, within PAIR_DAYS),
// it is matched to the transfer already booked and reported as already imported, never booked
// twice. A line that cannot be a transfer (different currencies: a statement line has no rate)
// is imported as a plain income or expense with the reason in its metadata, never lost.
import { sql, type Transaction } from 'kysely';
import type { Database, JsonObject } from '../../db/schema.js';
import { insertTransferWithLegs } from '../../db/transfers.js';
import { effectsOf, planTransfer } from '../transfers.js';
import { rejectionReason } from './import-entries.js';
import { moveBalances } from './ledger.js';
import type { RuledFields } from './transaction-rules.js';

/** Days between a transfer and its counter-line on the other wallet's statement. */
export const PAIR_DAYS = 4;

export interface RuledTransferLine {
  type: 'income' | 'expense';
  amount: string;
  walletId: number;
  /** The rule's wallet: the other side (or the line's own wallet, for a rule matching both sides). */
  otherWalletId: number;
  datetime: Date;
  description: string | null;
  /** A bank booked the line: the transfer may take a wallet below zero. */
  bookedElsewhere: boolean;
}

export type RuledTransfer =
  /** Booked now; the transaction is the transfer's leg in the line's wallet. */
  | { status: 'booked'; transactionId: number }
  /** The counter-line of a transfer booked before: its leg in the line's wallet. */
  | { status: 'paired'; transactionId: number }
  | { status: 'refused'; reason: string };

/**
 * The line as a transfer, inside the caller's database transaction (under a savepoint: a refused
 * transfer writes nothing). `claimed` holds the legs already taken by lines of this batch (paired
 * or booked), and gets the one taken here.
 */
export async function bookRuledTransfer(trx: Transaction<Database>, userId: number, line: RuledTransferLine, now: Date, claimed: Set<number>): Promise<RuledTransfer> {
  const paired = await counterLeg(trx, userId, line, claimed);
  if (paired !== undefined) {
    claimed.add(paired);
    return { status: 'paired', transactionId: paired };
  }
  if (line.otherWalletId === line.walletId) return { status: 'refused', reason: 'Not booked as a transfer: the rule names this line\'s own wallet and no transfer to pair it with was found.' };
  await sql`savepoint rule_transfer`.execute(trx);
  try {
    const [from, to] = line.type === 'expense' ? [line.walletId, line.otherWalletId] : [line.otherWalletId, line.walletId];
    const plan = await planTransfer(trx, userId, { from, to, amount: line.amount, datetime: line.datetime });
    await moveBalances(trx, userId, { apply: effectsOf(plan.values), allowOverdraft: line.bookedElsewhere }, now);
    const transferId = await insertTransferWithLegs(trx, { user_id: userId, updated_at: now, last_synced_at: now }, plan.values, { description: line.description ?? plan.description, expense: {}, income: {} });
    const leg = await trx.selectFrom('transactions').select('id').where('transfer_id', '=', transferId).where('user_id', '=', userId).where('type', '=', line.type).executeTakeFirstOrThrow();
    await sql`release savepoint rule_transfer`.execute(trx);
    // the line's own leg is taken by it: a second line alike in this batch is no counter-line of it
    claimed.add(leg.id);
    return { status: 'booked', transactionId: leg.id };
  } catch (error) {
    await sql`rollback to savepoint rule_transfer`.execute(trx);
    const reason = rejectionReason(error);
    if (reason === undefined) throw error;
    return { status: 'refused', reason: `Not booked as a transfer: ${reason}` };
  }
}

/**
 * The leg in the line's wallet of a live transfer the line is the counter-line of: same
 * direction in this wallet, same amount there, the rule's wallet on the other side (any wallet
 * when the rule names the line's own), dated within PAIR_DAYS, not yet taken by an imported line.
 */
async function counterLeg(trx: Transaction<Database>, userId: number, line: RuledTransferLine, claimed: Set<number>): Promise<number | undefined> {
  const other = line.otherWalletId === line.walletId ? null : line.otherWalletId;
  const otherSide = line.type === 'expense' ? sql`tr.to_wallet_id` : sql`tr.from_wallet_id`;
  const thisSide = line.type === 'expense' ? sql`tr.from_wallet_id` : sql`tr.to_wallet_id`;
  const row = await sql<{ id: number }>`
    select leg.id
      from transfers tr
      join transactions leg on leg.transfer_id = tr.id and leg.user_id = tr.user_id and leg.deleted_at is null
     where tr.user_id = ${userId} and tr.deleted_at is null
       and ${thisSide} = ${line.walletId} and leg.wallet_id = ${line.walletId} and leg.type = ${line.type}
       and ${other === null ? sql`${otherSide} <> ${line.walletId}` : sql`${otherSide} = ${other}`}
       and leg.amount = ${line.amount}::numeric
       and tr.datetime between ${line.datetime}::timestamptz - make_interval(days => ${PAIR_DAYS}) and ${line.datetime}::timestamptz + make_interval(days => ${PAIR_DAYS})
       and not exists (select 1 from import_suggestions s where s.transaction_id = leg.id)
       and leg.id <> all(${[...claimed]}::bigint[])
     order by abs(extract(epoch from tr.datetime - ${line.datetime}::timestamptz)), tr.id
     limit 1`.execute(trx);
  return row.rows[0]?.id;
}

/** Why a line a rule books as a transfer stays an income or expense when it is split (a transfer leg has no lines). */
export const SPLIT_NOT_TRANSFER = 'Not booked as a transfer: the line is split.';

/** The rules' fields of a line its transfer could not be booked for: imported as it is, the reason in its metadata. */
export function withTransferRefused(ruled: RuledFields, reason: string): RuledFields {
  const metadata: JsonObject = { ...(ruled.metadata ?? {}), transfer_not_booked: reason };
  return { ...ruled, transferWalletId: null, metadata };
}
