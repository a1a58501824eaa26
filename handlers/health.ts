// Health (tag Health): the probes of load balancers and orchestrators. The phases and the
// database check live in server/lifecycle.ts; these answer in every phase (the starting gate
// lets them through).
import { ok } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { notReady } from '../server/lifecycle.js';

async function getLiveness(_ctx: HandlerContext<'getLiveness'>) {
  return ok({ status: 'live' as const }, 'The service is running.');
}

async function getReadiness({ db, services }: HandlerContext<'getReadiness'>) {
  const reason = await services.lifecycle.unreadyReason(db);
  if (reason) throw notReady(reason);
  return ok({ status: 'ready' as const }, 'The service is ready.');
}

export const healthHandlers = { getLiveness, getReadiness } satisfies Partial<Handlers>;
