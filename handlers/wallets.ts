// Wallet: handlers keyed by operationId (being written).
import type { Handlers } from '../server/handler-types.js';

export const walletHandlers = {} satisfies Partial<Handlers>;
