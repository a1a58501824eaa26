// The wallet an imported row names: found by exact name (and currency), created in a currency,
// or the user's default wallet when the row names none. Inside the caller's transaction.
import type { Kysely, Transaction } from 'kysely';
import { lockCategoryNames } from './category-names.js';
import { parseClientId } from '../domain/client-id.js';
import type { Database, WalletType } from './schema.js';
import { settingOf } from './settings.js';
import { uniqueSlug } from './slugs.js';

export interface NamedWallet {
  id: number;
  name: string;
  currency: string;
}

/** The user's live wallet with exactly this name (and this currency when given), oldest first. */
export async function findWalletByName(db: Kysely<Database>, userId: number, name: string, currency?: string | null): Promise<NamedWallet | undefined> {
  return db
    .selectFrom('wallets')
    .select(['id', 'name', 'currency'])
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where('name', '=', name)
    .$if(!!currency, (q) => q.where('currency', '=', currency!))
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * The wallet with this name (and `currency` when given), else a new one in `createIn`. A
 * missing name is checked again under the user's names lock (the one category names use: a
 * single lock for every find-or-create by name, so two of them never wait on each other in
 * opposite orders): two imports at once naming the same new wallet (two confirms of one
 * statement) make it once, instead of two wallets or a unique-slug failure.
 */
export async function findOrCreateNamedWallet(
  trx: Transaction<Database>,
  userId: number,
  name: string,
  currency: string | null,
  createIn: string,
  now: Date,
  opening?: WalletOpening,
): Promise<NamedWallet> {
  const found = await findWalletByName(trx, userId, name, currency);
  if (found) return found;
  await lockCategoryNames(trx, userId);
  return (await findWalletByName(trx, userId, name, currency)) ?? createNamedWallet(trx, userId, name, createIn, now, opening);
}

/** What a bank statement says about the account a new wallet stands for. */
export interface WalletOpening {
  type: WalletType;
  /** The statement's balance before its first entry. */
  balance: string;
}

/**
 * A new wallet: a cash wallet with a zero balance (a CSV row never invents an opening
 * balance), or the statement's account type and opening balance when a statement states them.
 */
export async function createNamedWallet(trx: Transaction<Database>, userId: number, name: string, currency: string, now: Date, opening?: WalletOpening): Promise<NamedWallet> {
  const balance = opening?.balance ?? '0';
  return trx
    .insertInto('wallets')
    .values({
      user_id: userId,
      name,
      slug: await uniqueSlug(trx, 'wallets', userId, name),
      type: opening?.type ?? 'cash',
      currency,
      opening_balance: balance,
      balance,
      created_at: now,
      updated_at: now,
      last_synced_at: now,
    })
    .returning(['id', 'name', 'currency'])
    .executeTakeFirstOrThrow();
}

/**
 * The live wallet the `default-wallet` configuration names: a client id (as registration
 * writes it) or a wallet id as a string (as the mobile app's onboarding writes it).
 */
export async function defaultWallet(db: Kysely<Database>, userId: number): Promise<NamedWallet | undefined> {
  const value = await settingOf(db, userId, 'default-wallet');
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (text === '') return undefined;
  const live = db
    .selectFrom('wallets')
    .select(['wallets.id', 'wallets.name', 'wallets.currency'])
    .where('wallets.user_id', '=', userId)
    .where('wallets.deleted_at', 'is', null);
  if (/^\d+$/.test(text)) return live.where('wallets.id', '=', Number(text)).executeTakeFirst();
  const clientId = parseClientId(text);
  if (!clientId) return undefined;
  return live
    .innerJoin('devices', 'devices.id', 'wallets.device_id')
    .where('wallets.client_generated_id', '=', clientId.recordUuid)
    .where('devices.token', '=', clientId.deviceToken)
    .executeTakeFirst();
}
