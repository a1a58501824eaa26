// Transactions: handlers keyed by operationId (being written).
import type { Handlers } from '../server/handler-types.js';

export const transactionHandlers = {} satisfies Partial<Handlers>;
