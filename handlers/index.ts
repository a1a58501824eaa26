// Every handler module, one per tag. An operation missing here answers 501 and is counted as
// not implemented by GET /info.
import type { Handlers } from '../server/handler-types.js';
import { accountHandlers } from './account.js';
import { authenticationHandlers } from './authentication.js';
import { groupHandlers } from './groups.js';
import { infoHandlers } from './info.js';

export const allHandlers: Partial<Handlers> = {
  ...authenticationHandlers,
  ...accountHandlers,
  ...infoHandlers,
  ...groupHandlers,
};
