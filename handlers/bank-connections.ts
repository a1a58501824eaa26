// Bank connections (an addition to the interface; docs/bank-sync.md): connect through a
// SimpleFIN setup token, list connections with their accounts, link an account to a wallet
// (or a new one), unlink, delete, and sync now. The sync itself is shared with the scheduled
// job (shared/bank-sync.ts).
import { accountsOf, connectionPage, deleteConnection, findAccount, findConnection, insertConnection, keepAccounts, setAccountWallet, type BankConnectionRow } from '../db/bank-connections.js';
import { createNamedWallet } from '../db/import-wallets.js';
import type { Database } from '../db/schema.js';
import { findLive } from '../db/sync.js';
import { created, done, ok } from '../server/envelope.js';
import { BankBridgeError } from '../server/bank-adapters.js';
import { sealSecret } from '../server/bank-secrets.js';
import { HttpError, invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { targetPolicyFor } from '../server/webhook-targets.js';
import { claimSetupToken, claimUrlOf, SimpleFinAdapter } from '../server/simplefin.js';
import { pageRequest } from './shared/records.js';
import { syncConnection } from './shared/bank-sync.js';
import { toBankAccount, toBankConnection } from './views/bank.js';
import type { Kysely } from 'kysely';

/** The bridge's URL checked as a webhook target is (no private networks unless allowed); 422 on setup_token. */
function allowedBridge(url: URL, services: AppServices): URL {
  const refusal = targetPolicyFor(services.config.webhooks).refusalOfUrl(url);
  if (refusal) throw invalidField('setup_token', `The setup token points into a private network (${refusal}).`);
  return url;
}

async function connectionView(db: Kysely<Database>, row: BankConnectionRow) {
  return toBankConnection(row, (await accountsOf(db, [row.id])).get(row.id) ?? []);
}

async function accountView(db: Kysely<Database>, userId: number, accountId: number) {
  const account = (await findAccount(db, userId, accountId))!;
  const view = (await accountsOf(db, [account.connection_id])).get(account.connection_id)!.find((a) => Number(a.id) === accountId)!;
  return toBankAccount(view);
}

export const bankConnectionHandlers = {
  listBankConnections: async ({ db, user, query, services }: HandlerContext<'listBankConnections'>) => {
    const { rows, meta } = await connectionPage(db, user.id, { ...pageRequest(query), now: services.now() });
    const accounts = await accountsOf(db, rows.map((row) => row.id));
    return ok({ ...meta, data: rows.map((row) => toBankConnection(row, accounts.get(row.id) ?? [])) });
  },

  createBankConnection: async ({ db, user, body, services }: HandlerContext<'createBankConnection'>) => {
    const claimUrl = claimUrlOf(body.setup_token);
    if (!claimUrl) throw invalidField('setup_token', 'The setup token is not a SimpleFIN setup token (base64 of a claim URL).');
    const timeoutMs = services.config.bankSync.timeoutMs;
    let access: string;
    let fetched;
    try {
      access = await claimSetupToken(allowedBridge(claimUrl, services), timeoutMs);
      allowedBridge(new URL(access), services);
      fetched = await new SimpleFinAdapter(access, timeoutMs).listAccounts();
    } catch (error) {
      if (error instanceof BankBridgeError) throw invalidField('setup_token', error.message);
      throw error;
    }
    const now = services.now();
    const name = fetched.accounts.find((a) => a.bank)?.bank ?? claimUrl.hostname;
    const row = await db.transaction().execute(async (trx) => {
      const connection = await insertConnection(trx, { userId: user.id, provider: 'simplefin', name, secret: sealSecret(await services.appKey(), access), now });
      await keepAccounts(trx, connection, fetched.accounts, now);
      await trx.updateTable('bank_connections').set({ bridge_errors: JSON.stringify(fetched.errors) }).where('id', '=', connection.id).execute();
      return { ...connection, bridge_errors: fetched.errors };
    });
    return created(await connectionView(db, row), 'Bank connected');
  },

  deleteBankConnection: async ({ db, user, params }: HandlerContext<'deleteBankConnection'>) => {
    if (!(await deleteConnection(db, user.id, params.id))) throw notFound('Bank connection');
    return done('Bank connection deleted; its transactions stay');
  },

  syncBankConnection: async ({ db, user, params, services, log }: HandlerContext<'syncBankConnection'>) => {
    if (!(await findConnection(db, user.id, params.id))) throw notFound('Bank connection');
    const outcome = await syncConnection({ db, services, log }, params.id);
    if (outcome.status === 'gone') throw notFound('Bank connection');
    if (outcome.status === 'limited') throw new HttpError(429, `This connection's requests to the bridge for today (${services.config.bankSync.dailyRequests}) are spent; it syncs again tomorrow.`);
    const connection = await connectionView(db, (await findConnection(db, user.id, params.id))!);
    return ok({
      status: outcome.status,
      created_count: outcome.status === 'synced' ? outcome.created : 0,
      duplicate_count: outcome.status === 'synced' ? outcome.duplicates : 0,
      pending_count: outcome.status === 'synced' ? outcome.pending : 0,
      import_session_id: outcome.status === 'synced' ? outcome.session_id : null,
      error: outcome.status === 'failed' ? outcome.reason : null,
      bridge_errors: outcome.bridge_errors,
      connection,
    });
  },

  linkBankAccount: async ({ db, user, params, body, services }: HandlerContext<'linkBankAccount'>) => {
    const account = await findAccount(db, user.id, params.id);
    if (!account) throw notFound('Bank account');
    const now = services.now();
    let walletId: number;
    if (body.wallet_id != null) {
      const wallet = await findLive(db, 'wallets', user.id, body.wallet_id);
      if (!wallet) throw invalidField('wallet_id', 'The selected wallet is invalid.');
      if ((wallet as { currency?: string }).currency !== account.currency) throw invalidField('wallet_id', `The wallet must be in the account's currency (${account.currency}).`);
      walletId = body.wallet_id;
    } else {
      const name = account.bank ? `${account.name} (${account.bank})` : account.name;
      walletId = (await db.transaction().execute((trx) => createNamedWallet(trx, user.id, name, account.currency, now, { type: 'bank', balance: '0' }))).id;
    }
    await setAccountWallet(db, account.id, walletId, now);
    return ok(await accountView(db, user.id, account.id), 'Bank account linked');
  },

  unlinkBankAccount: async ({ db, user, params, services }: HandlerContext<'unlinkBankAccount'>) => {
    const account = await findAccount(db, user.id, params.id);
    if (!account) throw notFound('Bank account');
    await setAccountWallet(db, account.id, null, services.now());
    return ok(await accountView(db, user.id, account.id), 'Bank account unlinked');
  },
} satisfies Partial<Handlers>;
