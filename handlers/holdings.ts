// Holdings: asset search and prices from the CoinGecko-compatible provider
// (server/asset-prices.ts). An unreachable provider is 503, unless stored prices can be served.
import type { FastifyBaseLogger } from 'fastify';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { HttpError, validationFailed } from '../server/errors.js';
import { ok } from '../server/envelope.js';
import { ProviderUnavailableError } from '../server/rate-providers.js';
import { toAssetPrices } from './views/market.js';

/** Runs a provider call; an unreachable provider becomes 503 with a message saying so. */
async function fromProvider<T>(log: FastifyBaseLogger, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderUnavailableError) {
      log.warn({ err: error }, 'asset price provider failed');
      throw new HttpError(503, 'The asset price provider cannot be reached right now. Please try again later.');
    }
    throw error;
  }
}

export const holdingHandlers = {
  searchAssets: async ({ query, services, log }: HandlerContext<'searchAssets'>) => {
    // `q` is the reference's name; `query` is what earlier builds of this service documented
    const text = query.q ?? query.query;
    if (text === undefined) throw validationFailed({ q: ['The q field is required.'] });
    return ok(await fromProvider(log, () => services.assetPrices.search(text)));
  },

  listAssetPrices: async ({ query, db, services, log }: HandlerContext<'listAssetPrices'>) => {
    const quotes = await fromProvider(log, () => services.assetPrices.prices(db, query.ids, query.vs_currency ?? 'usd', services.now()));
    return ok(toAssetPrices(quotes), quotes.stale ? 'The asset price provider is unreachable: these are the last stored prices.' : undefined);
  },
} satisfies Partial<Handlers>;
