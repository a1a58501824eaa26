// Wallets: where money is kept, in one currency. The flow is the shared synced-resource one
// (handlers/shared/crud.ts); a wallet adds its opening balance and its stats. The balance
// column is written here only at creation: afterwards only transactions and transfers move
// it (handlers/shared/ledger.ts), so PUT ignores `balance` as the spec says. PUT changes
// `currency` only while nothing is recorded in the wallet (the web onboarding sets the
// currency of the new account's wallet so).
import type { Kysely } from 'kysely';
import { saveIcon } from '../db/icons.js';
import type { Database } from '../db/schema.js';
import { uniqueSlug } from '../db/slugs.js';
import { ownTotals, selectWallets } from '../db/wallets.js';
import { exceedsMoneyLimit, hasTooManyDecimals, moneyFromInput } from '../domain/money.js';
import { ok, type Result } from '../server/envelope.js';
import { invalidField } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { toWallet, type WalletRow, type WalletView } from './views/wallet.js';

// The crud flow hands back rows; stats are added afterwards, in one query per response.
const wallets = syncedResource<WalletRow, WalletRow>({
  table: 'wallets',
  label: 'Wallet',
  select: selectWallets,
  view: (row) => row,
  order: [['wallets.id', 'asc']],
});

/** The opening balance as an exact decimal string; 422 on `balance` beyond 4 places or the column's range. */
function openingBalance(balance: number | undefined): string {
  if (balance === undefined) return moneyFromInput(0);
  if (hasTooManyDecimals(balance)) throw invalidField('balance', 'The balance may have at most 4 decimal places.');
  if (exceedsMoneyLimit(balance)) throw invalidField('balance', 'The balance must be less than 1000000000000000 in absolute value.');
  return moneyFromInput(balance);
}

/** A currency change, allowed only while the wallet has no live transaction (none is stated in the old currency). */
async function currencyChange(trx: Kysely<Database>, wallet: WalletRow, currency: string | undefined): Promise<{ currency?: string }> {
  if (currency === undefined || currency === wallet.currency) return {};
  // the row lock waits for any write that is adding a transaction (its trigger updates these counts)
  const counts = await trx.selectFrom('wallets').select(['income_count', 'expense_count']).where('id', '=', wallet.id).forUpdate().executeTakeFirstOrThrow();
  if (Number(counts.income_count) + Number(counts.expense_count) > 0) {
    throw invalidField('currency', 'The currency of a wallet with transactions cannot be changed.');
  }
  return { currency };
}

/** The same result (status by status, as create answers 200 or 201) showing a wallet. */
type ShowingWallet<R> = R extends Result<infer S, WalletRow> ? Result<S, WalletView> : never;

/** A result of the crud flow, with the wallet's stats (its row carries them). */
function withStats<R extends Result<number, WalletRow>>(result: R): ShowingWallet<R> {
  // Only `data` changes, so the status stays the one the crud flow chose.
  return { ...result, data: toWallet(result.data, ownTotals(result.data)) } as unknown as ShowingWallet<R>;
}

export const walletHandlers = {
  listWallets: async (ctx: HandlerContext<'listWallets'>) => {
    const page = (await wallets.list(ctx)).data;
    return ok({ ...page, data: page.data.map((row) => toWallet(row, ownTotals(row))) });
  },

  getWallet: async (ctx: HandlerContext<'getWallet'>) => withStats(await wallets.show(ctx)),

  createWallet: async (ctx: HandlerContext<'createWallet'>) => {
    const { body, user } = ctx;
    const balance = openingBalance(body.balance);
    if (body.icon !== undefined && body.icon_type === undefined) {
      throw invalidField('icon_type', 'The icon type field is required when icon is present.');
    }
    const result = await wallets.create(ctx, async (trx, columns) => {
      const row = await trx
        .insertInto('wallets')
        .values({
          ...columns,
          name: body.name,
          slug: await uniqueSlug(trx, 'wallets', user.id, body.name),
          type: body.type,
          description: body.description ?? null,
          currency: body.currency,
          // No transaction stands for the opening balance: the balance starts from it.
          opening_balance: balance,
          balance,
          icon_id: await saveIcon(trx, user.id, null, body),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    });
    return withStats(result);
  },

  updateWallet: async (ctx: HandlerContext<'updateWallet'>) => {
    const { body, user } = ctx;
    const result = await wallets.update(ctx, async (trx, wallet, columns) => {
      await trx
        .updateTable('wallets')
        .set({
          ...columns,
          name: body.name,
          type: body.type,
          description: body.description,
          ...(await currencyChange(trx, wallet, body.currency)),
          icon_id: await saveIcon(trx, user.id, wallet.icon_id, body),
        })
        .where('id', '=', wallet.id)
        .execute();
    });
    return withStats(result);
  },

  // Soft delete: the wallet's transactions and transfers stay, as does its balance column.
  deleteWallet: (ctx: HandlerContext<'deleteWallet'>) => wallets.remove(ctx),
} satisfies Partial<Handlers>;
