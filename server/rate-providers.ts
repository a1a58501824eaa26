// Exchange-rate providers behind one adapter interface, chosen by configuration: an HTTP API
// answering the common open-rates shape `{base, date, rates: {EUR: 0.9}}`, or the bundled
// offline reference table. Also the small JSON fetch both market adapters share.
import { Decimal } from '../domain/money.js';
import { REFERENCE_RATES_DATE, referenceRatesFrom } from '../domain/reference-rates.js';
import type { Config } from './config.js';

/** Upstream calls give up after this long by default. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** The provider could not be reached or answered something unusable (timeout, 5xx, bad JSON). */
export class ProviderUnavailableError extends Error {
  constructor(provider: string, reason: string) {
    super(`${provider} is unavailable: ${reason}`);
    this.name = 'ProviderUnavailableError';
  }
}

/** Rates from `base`: units of each currency per 1 unit of `base`, as the provider dated them. */
export interface RatesQuote {
  base: string;
  date: string | null;
  rates: Map<string, Decimal>;
}

export interface RatesProvider {
  /** Name stored with the rates it gives (exchange_rates.source). */
  readonly name: string;
  /** Whether its answers are stored (a bundled table needs no copy in the database). */
  readonly storesRates: boolean;
  /** True when it answers without a network call (the bundled table): usable inside a database transaction. */
  readonly local?: boolean;
  /** The rates from `base`; undefined when the provider does not know `base`. Throws ProviderUnavailableError. */
  latest(base: string): Promise<RatesQuote | undefined>;
}

/** GET a URL and parse its JSON body; every failure becomes ProviderUnavailableError. */
export async function fetchJson(provider: string, url: string, options: { timeoutMs: number; headers?: Record<string, string> }): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new ProviderUnavailableError(provider, timedOut ? `no answer within ${options.timeoutMs} ms` : 'it cannot be reached');
  }
  if (response.status >= 500 || response.status === 429) {
    await response.body?.cancel();
    throw new ProviderUnavailableError(provider, `it answered ${response.status}`);
  }
  try {
    return { status: response.status, body: await response.json() };
  } catch {
    throw new ProviderUnavailableError(provider, 'its answer is not valid JSON');
  }
}

const CODE = /^[A-Z]{3}$/;

/** A positive, finite JSON number as a decimal, else undefined. */
export function positiveDecimal(value: unknown): Decimal | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  return new Decimal(String(value));
}

/** An HTTP rates API: `GET <url>/latest?base=EUR` → `{base, date, rates: {USD: 1.08}}`. */
export class HttpRatesProvider implements RatesProvider {
  readonly name = 'remote';
  readonly storesRates = true;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey?: string,
    private readonly timeoutMs = PROVIDER_TIMEOUT_MS,
  ) {}

  async latest(base: string): Promise<RatesQuote | undefined> {
    const url = `${this.baseUrl}/latest?base=${encodeURIComponent(base)}`;
    const headers = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : undefined;
    const { status, body } = await fetchJson('The exchange-rates provider', url, { timeoutMs: this.timeoutMs, headers });
    if (status === 404 || status === 422 || status === 400) return undefined; // unknown base
    if (status !== 200) throw new ProviderUnavailableError('The exchange-rates provider', `it answered ${status}`);
    return parseRatesBody(base, body);
  }
}

/** The `{base, date, rates}` body (open.er-api's `base_code`/`time_last_update_utc` also read), checked. */
export function parseRatesBody(base: string, body: unknown): RatesQuote {
  const malformed = () => new ProviderUnavailableError('The exchange-rates provider', 'its answer has no usable rates');
  if (!body || typeof body !== 'object') throw malformed();
  const data = body as Record<string, unknown>;
  const answeredBase = String(data.base ?? data.base_code ?? '').toUpperCase();
  if (answeredBase !== base || !data.rates || typeof data.rates !== 'object' || Array.isArray(data.rates)) throw malformed();
  const rates = new Map<string, Decimal>();
  for (const [code, value] of Object.entries(data.rates as Record<string, unknown>)) {
    const rate = positiveDecimal(value);
    if (CODE.test(code) && code !== base && rate) rates.set(code, rate);
  }
  const date = typeof data.date === 'string' ? data.date : null;
  return { base, date, rates };
}

/** The bundled reference table: always answers, never needs the network. */
export class OfflineRatesProvider implements RatesProvider {
  readonly name = 'reference';
  readonly storesRates = false;
  readonly local = true;

  async latest(base: string): Promise<RatesQuote | undefined> {
    const rates = referenceRatesFrom(base);
    return rates && { base, date: REFERENCE_RATES_DATE, rates };
  }
}

/** The provider the configuration names. */
export function ratesProviderFor(config: Pick<Config, 'ratesProviderUrl' | 'ratesProviderKey'>): RatesProvider {
  return config.ratesProviderUrl ? new HttpRatesProvider(config.ratesProviderUrl, config.ratesProviderKey) : new OfflineRatesProvider();
}
