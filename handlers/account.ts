// Account: the caller's own account. Deleting it removes everything it owns.
import { deleteUserAndEverythingOwned } from '../db/users.js';
import { done } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';

async function deleteAccount({ user, db, log }: HandlerContext<'deleteAccount'>) {
  await deleteUserAndEverythingOwned(db, user.id);
  log.info({ userId: user.id }, 'account deleted by its owner');
  return done('Account deleted successfully.');
}

export const accountHandlers = { deleteAccount } satisfies Partial<Handlers>;
