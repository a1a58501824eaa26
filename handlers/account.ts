// Account: the caller's own account. Deleting it closes the account exactly as an admin's
// deletion does (server/account-closure.ts).
import { closeAccount } from '../server/account-closure.js';
import { done } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';

async function deleteAccount({ user, body, db, services, log }: HandlerContext<'deleteAccount'>) {
  await closeAccount({ db, services, log }, user, { source: 'API', reason: body.reason });
  return done('Account deleted successfully.');
}

export const accountHandlers = { deleteAccount } satisfies Partial<Handlers>;
