// Asset prices from a CoinGecko-compatible API (ASSET_PRICES_URL): coin search and prices.
// Fetched prices are stored (asset_prices) and reused for a short while; when the provider
// cannot be reached, the stored prices are served marked stale. Search is never cached.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { Decimal } from '../domain/money.js';
import { fetchJson, positiveDecimal, PROVIDER_TIMEOUT_MS, ProviderUnavailableError } from './rate-providers.js';

const PROVIDER = 'The asset price provider';
/** The provider name stored with prices (asset_prices.provider). */
const PROVIDER_NAME = 'coingecko';
const SEARCH_LIMIT = 20;
/** Stored prices keep 10 decimals (numeric(24,10)) and stay below 10^14. */
const STORED_DECIMALS = 10;
const LARGEST_STORED_PRICE = new Decimal('1e14');

export interface AssetMatch {
  id: string;
  name: string;
  symbol: string;
}

export interface AssetQuotes {
  /** Lower-cased quote currency. */
  vsCurrency: string;
  prices: Map<string, Decimal>;
  /** True when the prices are stored ones, served because the provider was unreachable. */
  stale: boolean;
  unavailable: string[];
}

/** The CoinGecko-compatible HTTP API: `/search?query=` and `/simple/price?ids=&vs_currencies=`. */
export class CoinGeckoClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  /** Up to 20 coins matching `query`, in the provider's order. Throws ProviderUnavailableError. */
  async search(query: string): Promise<AssetMatch[]> {
    const body = await this.get(`/search?query=${encodeURIComponent(query)}`);
    const coins = (body as { coins?: unknown } | null)?.coins;
    if (!Array.isArray(coins)) throw new ProviderUnavailableError(PROVIDER, 'its search answer has no coin list');
    return coins
      .filter((coin): coin is Record<string, unknown> => !!coin && typeof coin === 'object' && typeof coin.id === 'string' && coin.id !== '')
      .slice(0, SEARCH_LIMIT)
      .map((coin) => ({ id: coin.id as string, name: String(coin.name ?? coin.id), symbol: String(coin.symbol ?? '').toUpperCase() }));
  }

  /** Prices of `ids` in `vsCurrency` (lower-case); ids the provider does not price are left out. */
  async prices(ids: string[], vsCurrency: string): Promise<Map<string, Decimal>> {
    const body = await this.get(`/simple/price?ids=${encodeURIComponent(ids.join(','))}&vs_currencies=${encodeURIComponent(vsCurrency)}`);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ProviderUnavailableError(PROVIDER, 'its price answer is not an object');
    const prices = new Map<string, Decimal>();
    for (const id of ids) {
      const quote = (body as Record<string, unknown>)[id];
      const price = quote && typeof quote === 'object' ? (quote as Record<string, unknown>)[vsCurrency] : undefined;
      const decimal = price === 0 ? new Decimal(0) : positiveDecimal(price);
      if (decimal) prices.set(id, decimal);
    }
    return prices;
  }

  private async get(pathAndQuery: string): Promise<unknown> {
    const { status, body } = await fetchJson(PROVIDER, `${this.baseUrl}${pathAndQuery}`, { timeoutMs: this.timeoutMs });
    if (status !== 200) throw new ProviderUnavailableError(PROVIDER, `it answered ${status}`);
    return body;
  }
}

export class AssetPriceService {
  constructor(
    private readonly client: CoinGeckoClient,
    /** Stored prices younger than this are served without asking the provider. */
    private readonly cacheSeconds = 60,
  ) {}

  search(query: string): Promise<AssetMatch[]> {
    return this.client.search(query.trim());
  }

  /** Prices of `ids` (trimmed, deduplicated) in `vsCurrency`. Throws ProviderUnavailableError when nothing can be served. */
  async prices(db: Kysely<Database>, ids: string[], vsCurrency: string, now: Date): Promise<AssetQuotes> {
    const wanted = [...new Set(ids.map((id) => id.trim()).filter(Boolean))];
    const vs = vsCurrency.toLowerCase();
    const prices = await this.storedPrices(db, wanted, vs, new Date(now.getTime() - this.cacheSeconds * 1000));
    const toFetch = wanted.filter((id) => !prices.has(id));
    let stale = false;
    if (toFetch.length > 0) {
      try {
        const fetched = await this.client.prices(toFetch, vs);
        await storePrices(db, fetched, vs, now);
        for (const [id, price] of fetched) prices.set(id, price);
      } catch (error) {
        if (!(error instanceof ProviderUnavailableError)) throw error;
        const stored = await this.storedPrices(db, toFetch, vs);
        if (prices.size === 0 && stored.size === 0) throw error;
        for (const [id, price] of stored) prices.set(id, price);
        stale = true;
      }
    }
    const ordered = new Map(wanted.flatMap((id) => (prices.has(id) ? [[id, prices.get(id)!] as const] : [])));
    return { vsCurrency: vs, prices: ordered, stale, unavailable: wanted.filter((id) => !prices.has(id)) };
  }

  private async storedPrices(db: Kysely<Database>, ids: string[], vs: string, fetchedAfter?: Date): Promise<Map<string, Decimal>> {
    if (ids.length === 0) return new Map();
    let query = db
      .selectFrom('asset_prices')
      .select(['asset_id', 'price'])
      .where('provider', '=', PROVIDER_NAME)
      .where('vs_currency', '=', vs)
      .where('asset_id', 'in', ids);
    if (fetchedAfter) query = query.where('fetched_at', '>', fetchedAfter);
    const rows = await query.execute();
    return new Map(rows.map((row) => [row.asset_id, new Decimal(row.price)]));
  }
}

/** Upserts fetched prices, in id order so concurrent upserts cannot deadlock. */
async function storePrices(db: Kysely<Database>, prices: Map<string, Decimal>, vs: string, now: Date): Promise<void> {
  const rows = [...prices]
    .map(([id, price]) => ({ id, price: price.toDecimalPlaces(STORED_DECIMALS, Decimal.ROUND_HALF_EVEN) }))
    .filter(({ price }) => price.lessThan(LARGEST_STORED_PRICE))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map(({ id, price }) => ({ provider: PROVIDER_NAME, asset_id: id, vs_currency: vs, price: price.toFixed(), fetched_at: now, updated_at: now }));
  if (rows.length === 0) return;
  await db
    .insertInto('asset_prices')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['provider', 'asset_id', 'vs_currency']).doUpdateSet((eb) => ({
        price: eb.ref('excluded.price'),
        fetched_at: eb.ref('excluded.fetched_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}
