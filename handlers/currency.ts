// Currency: exchange rates from the one rate service (server/rates.ts). An unreachable
// provider is never an error here: what has no rate is listed in `unavailable`.
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { invalidField } from '../server/errors.js';
import { ok } from '../server/envelope.js';
import { toExchangeRates } from './views/market.js';

export const currencyHandlers = {
  listExchangeRates: async ({ query, user, db, services }: HandlerContext<'listExchangeRates'>) => {
    const base = query.base.toUpperCase();
    const requested = [...(query.targets ?? []), ...(query.target ? [query.target] : [])];
    const targets = [...new Set(requested.map((code) => code.trim().toUpperCase()).filter(Boolean))];
    if (targets.length === 0) throw invalidField('targets', 'The targets field is required when target is not present.');
    const { rates, unavailable } = await services.rates.rates(db, user.id, base, targets, services.now());
    return ok(toExchangeRates(base, targets, rates, unavailable));
  },
} satisfies Partial<Handlers>;
