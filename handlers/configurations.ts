// Configuration: handlers keyed by operationId (being written).
import type { Handlers } from '../server/handler-types.js';

export const configurationHandlers = {} satisfies Partial<Handlers>;
