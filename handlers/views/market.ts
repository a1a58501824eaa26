// Exchange rates and asset prices as the spec's shapes: decimals become JSON numbers once, here.
import type { components } from '../../generated/api.js';
import type { AssetQuotes } from '../../server/asset-prices.js';
import { Decimal } from '../../domain/money.js';

export type ExchangeRatesView = components['schemas']['ExchangeRates'];
export type AssetPricesView = components['schemas']['AssetPrices'];

/** Rates keep 10 decimals in JSON, so the rate of a tiny currency unit never reads as 0. */
const RATE_JSON_DECIMALS = 10;

export function toExchangeRates(base: string, targets: string[], rates: Map<string, Decimal>, unavailable: string[]): ExchangeRatesView {
  const byTarget: Record<string, number> = {};
  for (const code of targets) {
    const rate = rates.get(code);
    if (rate) byTarget[code] = rate.toDecimalPlaces(RATE_JSON_DECIMALS, Decimal.ROUND_HALF_EVEN).toNumber();
  }
  return { base, rates: byTarget, unavailable };
}

export function toAssetPrices(quotes: AssetQuotes): AssetPricesView {
  return {
    vs_currency: quotes.vsCurrency,
    prices: Object.fromEntries([...quotes.prices].map(([id, price]) => [id, price.toNumber()])),
    stale: quotes.stale,
    unavailable: quotes.unavailable,
  };
}
