// Bundled reference exchange rates: the offline default provider, so a fresh install answers
// without internet. Units of each currency per 1 USD on REFERENCE_RATES_DATE (approximate
// central-bank reference rates of that day). Cross rates are derived exactly in decimal.
import { Decimal } from './money.js';

/** The day these rates describe; answers built from them carry this date. */
export const REFERENCE_RATES_DATE = '2025-01-02';

const UNITS_PER_USD: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '0.9626',
  GBP: '0.7977',
  JPY: '157.20',
  CHF: '0.9068',
  CAD: '1.4386',
  AUD: '1.6081',
  NZD: '1.7766',
  CNY: '7.2993',
  HKD: '7.7693',
  SGD: '1.3638',
  SEK: '11.0311',
  NOK: '11.3738',
  DKK: '7.1795',
  PLN: '4.1138',
  CZK: '24.2600',
  HUF: '397.16',
  RON: '4.7878',
  TRY: '35.3700',
  INR: '85.7900',
  IDR: '16200',
  KRW: '1470.50',
  MXN: '20.6100',
  BRL: '6.1800',
  ZAR: '18.8200',
  ILS: '3.6500',
  THB: '34.3000',
  PHP: '58.0500',
  MYR: '4.4800',
  ISK: '139.70',
  AED: '3.6725',
  SAR: '3.7500',
  EGP: '50.8000',
  NGN: '1545.00',
  KES: '129.30',
  GHS: '14.7000',
  XAF: '631.43',
  XOF: '631.43',
};

/** The currencies the bundled table knows. */
export const REFERENCE_CURRENCIES: readonly string[] = Object.keys(UNITS_PER_USD);

/** Units of each known currency per 1 `base`, or undefined when the table lacks `base`. */
export function referenceRatesFrom(base: string): Map<string, Decimal> | undefined {
  const basePerUsd = UNITS_PER_USD[base];
  if (basePerUsd === undefined) return undefined;
  const rates = new Map<string, Decimal>();
  for (const [code, perUsd] of Object.entries(UNITS_PER_USD)) {
    if (code !== base) rates.set(code, new Decimal(perUsd).dividedBy(basePerUsd).toDecimalPlaces(10, Decimal.ROUND_HALF_EVEN));
  }
  return rates;
}
