// The one exchange-rate service (the endpoint, statistics, budgets and transfers use it).
// For base → target, first match wins:
//   1. the same currency: 1;
//   2. the user's configuration `manual-exchange-rates` ({"EUR-USD": 1.1}; "USD-EUR" gives 1/rate);
//   3. a stored rate (exchange_rates) fetched less than the TTL ago;
//   4. the configured provider (its answer is stored; concurrent asks for one base share one call);
//   5. a stored reverse rate of any age, then (provider reachable) the provider's reverse quote: 1/rate.
// Anything else is unknown: listed as unavailable, never guessed. An unreachable provider is
// not an error here; it only leaves pairs unknown.
import type { Kysely } from 'kysely';
import { settingOf } from '../db/settings.js';
import type { Database, JsonValue } from '../db/schema.js';
import { Decimal } from '../domain/money.js';
import type { RateService, ReadManualRates } from '../db/services.js';
import { ProviderUnavailableError, type RatesProvider, type RatesQuote } from './rate-providers.js';

export interface RateServiceOptions {
  provider: RatesProvider;
  /** How long a stored or remembered provider rate is trusted. */
  ttlSeconds: number;
  /** After a failed call, the provider is not asked again for the same base for this long. */
  retryAfterFailureMs?: number;
  /** Told when the provider fails (the app logs it). */
  onProviderFailure?: (error: ProviderUnavailableError) => void;
}

/** Stored rates keep 10 decimals (numeric(24,10)) and stay below 10^14. */
const STORED_DECIMALS = 10;
const LARGEST_STORED_RATE = new Decimal('1e14');
const ONE = new Decimal(1);

/** The user's manual rates, from the configuration value (a JSON string, or an object). */
export function parseManualRates(value: JsonValue | undefined): Map<string, Decimal> {
  const manual = new Map<string, Decimal>();
  let object: unknown = value;
  if (typeof value === 'string') {
    try {
      object = JSON.parse(value);
    } catch {
      return manual;
    }
  }
  if (!object || typeof object !== 'object' || Array.isArray(object)) return manual;
  for (const [pair, rate] of Object.entries(object)) {
    if (/^[A-Za-z]{3}-[A-Za-z]{3}$/.test(pair) && typeof rate === 'number' && Number.isFinite(rate) && rate > 0) {
      manual.set(pair.toUpperCase(), new Decimal(String(rate)));
    }
  }
  return manual;
}

function manualRate(manual: Map<string, Decimal>, from: string, to: string): Decimal | undefined {
  const direct = manual.get(`${from}-${to}`);
  if (direct) return direct;
  const reverse = manual.get(`${to}-${from}`);
  return reverse && ONE.dividedBy(reverse);
}

export function createRateService(options: RateServiceOptions): RateService {
  return new LayeredRateService(options);
}

class LayeredRateService implements RateService {
  private readonly inFlight: Map<string, Promise<RatesQuote | undefined>> = new Map();
  private readonly remembered: Map<string, { quote: RatesQuote | undefined; at: number }> = new Map();
  private readonly failedAt: Map<string, number> = new Map();

  constructor(
    private readonly options: RateServiceOptions,
    /** false: the provider is never called (see RateService.withoutProvider). */
    private readonly mayCallProvider = true,
    private readonly shared?: LayeredRateService,
  ) {
    // The offline view shares the remembered quotes of the service it was made from.
    if (shared) {
      this.inFlight = shared.inFlight;
      this.remembered = shared.remembered;
      this.failedAt = shared.failedAt;
    }
  }

  withoutProvider(): RateService {
    return new LayeredRateService(this.options, false, this.shared ?? this);
  }

  async rate(db: Kysely<Database>, userId: number, from: string, to: string, now: Date, read?: ReadManualRates): Promise<Decimal | undefined> {
    const { rates } = await this.rates(db, userId, from, [to], now, read);
    return rates.get(to.toUpperCase());
  }

  async rates(db: Kysely<Database>, userId: number, base: string, currencies: string[], now: Date, read?: ReadManualRates) {
    const from = base.toUpperCase();
    const rates = new Map<string, Decimal>();
    const manual = parseManualRates(read ? read.manualRates : await settingOf(db, userId, 'manual-exchange-rates'));
    let missing: string[] = [];
    for (const code of new Set(currencies.map((c) => c.toUpperCase()))) {
      const known = code === from ? ONE : manualRate(manual, from, code);
      if (known) rates.set(code, known);
      else missing.push(code);
    }
    const settle = (found: Map<string, Decimal>) => {
      for (const [code, rate] of found) rates.set(code, rate);
      missing = missing.filter((code) => !rates.has(code));
    };

    if (missing.length > 0) settle(await this.storedRates(db, from, missing, now, true));
    let providerReachable = true;
    if (missing.length > 0) {
      const quote = await this.quote(db, from, now);
      providerReachable = quote !== 'unreachable';
      if (quote && quote !== 'unreachable') settle(pick(quote.rates, missing));
    }
    if (missing.length > 0) settle(await this.storedReverseRates(db, from, missing));
    for (const code of providerReachable ? [...missing] : []) {
      const reverse = await this.quote(db, code, now);
      if (reverse === 'unreachable') break;
      const rate = reverse?.rates.get(from);
      if (rate) settle(new Map([[code, ONE.dividedBy(rate)]]));
    }
    return { rates, unavailable: missing };
  }

  /** Stored base → target rates; with `freshOnly`, only those fetched within the TTL. */
  private async storedRates(db: Kysely<Database>, base: string, targets: string[], now: Date, freshOnly: boolean) {
    let query = db
      .selectFrom('exchange_rates')
      .select(['target_currency', 'rate'])
      .where('base_currency', '=', base)
      .where('target_currency', 'in', targets);
    if (freshOnly) query = query.where('fetched_at', '>', new Date(now.getTime() - this.options.ttlSeconds * 1000));
    const rows = await query.execute();
    return new Map(rows.map((row) => [row.target_currency, new Decimal(row.rate)]));
  }

  /** Stored target → base rates of any age, turned around (1 / rate). */
  private async storedReverseRates(db: Kysely<Database>, base: string, targets: string[]) {
    const rows = await db
      .selectFrom('exchange_rates')
      .select(['base_currency', 'rate'])
      .where('target_currency', '=', base)
      .where('base_currency', 'in', targets)
      .execute();
    return new Map(rows.map((row) => [row.base_currency, ONE.dividedBy(row.rate)]));
  }

  /**
   * The provider's rates from `base`, remembered for the TTL. Concurrent calls for one base
   * share one upstream call; a failed call is not repeated for `retryAfterFailureMs`.
   */
  private async quote(db: Kysely<Database>, base: string, now: Date): Promise<RatesQuote | undefined | 'unreachable'> {
    if (!/^[A-Z]{3}$/.test(base)) return undefined; // not a currency code: nothing to ask for
    const at = now.getTime();
    const remembered = this.remembered.get(base);
    if (remembered && at - remembered.at < this.options.ttlSeconds * 1000) return remembered.quote;
    if (!this.mayCallProvider && !this.options.provider.local) return 'unreachable';
    const failed = this.failedAt.get(base);
    if (failed !== undefined && at - failed < (this.options.retryAfterFailureMs ?? 30_000)) return 'unreachable';

    let pending = this.inFlight.get(base);
    if (!pending) {
      pending = this.fetchAndStore(db, base, now).finally(() => this.inFlight.delete(base));
      this.inFlight.set(base, pending);
    }
    try {
      const quote = await pending;
      this.remembered.set(base, { quote, at });
      this.failedAt.delete(base);
      return quote;
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      this.failedAt.set(base, at);
      return 'unreachable';
    }
  }

  private async fetchAndStore(db: Kysely<Database>, base: string, now: Date): Promise<RatesQuote | undefined> {
    let quote: RatesQuote | undefined;
    try {
      quote = await this.options.provider.latest(base);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) this.options.onProviderFailure?.(error);
      throw error;
    }
    if (quote && this.options.provider.storesRates) await storeRates(db, quote, this.options.provider.name, now);
    return quote;
  }
}

function pick(rates: Map<string, Decimal>, codes: string[]): Map<string, Decimal> {
  return new Map(codes.flatMap((code) => (rates.has(code) ? [[code, rates.get(code)!] as const] : [])));
}

/** Upserts a quote's rates (one row per pair, in code order so concurrent upserts cannot deadlock). */
async function storeRates(db: Kysely<Database>, quote: RatesQuote, source: string, now: Date): Promise<void> {
  const rows = [...quote.rates]
    .map(([target, rate]) => ({ target, rate: rate.toDecimalPlaces(STORED_DECIMALS, Decimal.ROUND_HALF_EVEN) }))
    .filter(({ target, rate }) => target !== quote.base && rate.greaterThan(0) && rate.lessThan(LARGEST_STORED_RATE))
    .sort((a, b) => (a.target < b.target ? -1 : 1))
    .map(({ target, rate }) => ({
      base_currency: quote.base,
      target_currency: target,
      rate: rate.toFixed(),
      source,
      fetched_at: now,
      updated_at: now,
    }));
  if (rows.length === 0) return;
  await db
    .insertInto('exchange_rates')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['base_currency', 'target_currency']).doUpdateSet((eb) => ({
        rate: eb.ref('excluded.rate'),
        source: eb.ref('excluded.source'),
        fetched_at: eb.ref('excluded.fetched_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}
