// Closing an account, the same way whoever asks (the owner through DELETE /account, an admin
// through DELETE /admin/users/{id}): everything the account owns is deleted, and its address's
// confirmation e-mail queued, in one transaction; then the stored bytes of its files are
// removed, and the service's account-deleted notice (the log) records who deleted it and why.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { deleteUserAndEverythingOwned } from '../db/users.js';
import { escapeHtml, type RenderedEmail } from '../domain/email-templates.js';
import { queueEmail } from '../db/email-outbox.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import type { AppServices } from './services.js';
import { removeStoredFiles } from './stored-files.js';

export interface ClosedAccount {
  id: number;
  email: string;
  first_name: string;
  last_name: string | null;
}

export interface ClosureNotice {
  /** Who asked: the owner ('API') or an admin ('Admin'). */
  source: 'API' | 'Admin';
  reason?: string | null;
  /** The deleting admin's name, for an admin deletion. */
  deletedBy?: string;
}

export const fullName = (user: { first_name: string; last_name: string | null }) => `${user.first_name} ${user.last_name ?? ''}`.trim();

export function accountDeletedEmail(name: string): RenderedEmail {
  const subject = 'Your account has been deleted';
  const lines = [
    `Hi ${name},`,
    'Your account and all of its data (wallets, transactions, budgets, reminders and files) have been permanently deleted.',
    'If you did not expect this, please reply to this e-mail.',
  ];
  return {
    subject,
    text: `${lines.join('\n\n')}\n`,
    html: `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>${lines
      .map((line) => `<p>${escapeHtml(line)}</p>`)
      .join('')}</body></html>`,
  };
}

/**
 * Closes the account: its rows and the confirmation e-mail in one transaction, then (after
 * commit) the bytes of its stored files, the notice and the nudge to the mail queue. Returns
 * false, having done nothing, when the account was already gone (a concurrent closure won).
 */
export async function closeAccount(
  ctx: { db: Kysely<Database>; services: AppServices; log: FastifyBaseLogger },
  account: ClosedAccount,
  notice: ClosureNotice,
): Promise<boolean> {
  const storedFiles = await ctx.db.transaction().execute(async (trx) => {
    // Two closures of one account (two admins, a double click): the row lock lets one through;
    // the other finds no row and must neither report success nor mail a second confirmation.
    const live = await trx.selectFrom('users').select('id').where('id', '=', account.id).forUpdate().executeTakeFirst();
    if (!live) return undefined;
    const keys = await deleteUserAndEverythingOwned(trx, account.id);
    // Not linked to the account (user_id null): the account's own mail went with it.
    await queueEmail(trx, { to: account.email, kind: 'account_deleted', userId: null, ...accountDeletedEmail(fullName(account)) });
    return keys;
  });
  if (!storedFiles) return false;
  const reason = notice.reason || 'No reason provided';
  ctx.log.info(
    { userId: account.id, email: account.email, source: notice.source, reason: notice.deletedBy ? `Deleted by: ${notice.deletedBy}\n\nReason: ${reason}` : reason },
    `Account Deleted (${notice.source}): ${fullName(account)}`,
  );
  await removeStoredFiles(ctx.services.storage, storedFiles, ctx.log);
  await ctx.services.jobs.send(DELIVER_EMAILS_JOB);
  return true;
}
