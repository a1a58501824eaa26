// Amounts as people write them, read into a plain decimal string (never a float): "40",
// "40.50", "40,50", "1 234,50", "1,234.50", "1.234,50", with the currency by symbol or code
// on either side ("$40", "40$", "40€", "40 USD", "EUR 40", "40 euros") and a few written
// numbers when a currency follows ("forty dollars", "vingt euros").
import { Decimal } from '../money.js';

export interface FoundAmount {
  /** A plain decimal string, e.g. "1234.50". */
  amount: string;
  /** ISO 4217 code when the sentence names one. */
  currency?: string;
  start: number;
  end: number;
}

const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₣': 'CHF', '₦': 'NGN', '₺': 'TRY', '₽': 'RUB', '₩': 'KRW', '₱': 'PHP' };

const CODES = new Set(
  'usd eur gbp jpy chf cad aud nzd inr cny sek nok dkk pln czk huf ron bgn mxn brl ars clp cop zar xof xaf mad tnd dzd egp ngn kes ghs try rub krw php sgd hkd thb idr myr aed sar ils'.split(' '),
);

const CURRENCY_WORDS: Record<string, string> = {
  dollar: 'USD', dollars: 'USD', bucks: 'USD', dolares: 'USD', dolar: 'USD',
  euro: 'EUR', euros: 'EUR',
  pound: 'GBP', pounds: 'GBP', livres: 'GBP', livre: 'GBP',
  yen: 'JPY', francs: 'CHF', franken: 'CHF',
};

/** Written numbers accepted only right before a currency ("forty dollars"): "un café" is not 1. */
const WORD_NUMBERS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, fifteen: 15,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100,
  un: 1, une: 1, deux: 2, trois: 3, quatre: 4, cinq: 5, sept: 7, huit: 8, neuf: 9, dix: 10, douze: 12, quinze: 15,
  vingt: 20, trente: 30, quarante: 40, cinquante: 50, soixante: 60, cent: 100,
  uno: 1, dos: 2, tres: 3, cinco: 5, diez: 10, veinte: 20, treinta: 30, cuarenta: 40, cincuenta: 50, cien: 100,
  eins: 1, zwei: 2, drei: 3, vier: 4, funf: 5, zehn: 10, zwanzig: 20, dreissig: 30, vierzig: 40, funfzig: 50, hundert: 100,
};

const SYMBOL_CLASS = '[$€£¥₹₣₦₺₽₩₱]';
const NUMBER = '\\d{1,3}(?:[ .,]\\d{3})+(?:[.,]\\d{1,4})?|\\d+(?:[.,]\\d{1,4})?';
const CODE_OR_WORD = `[a-z]{3,8}`;
// prefix currency, the number, suffix currency
const AMOUNT = new RegExp(`(${SYMBOL_CLASS}|\\b[a-z]{3}\\b)?\\s?(?<![\\d.,])(${NUMBER})(?![\\d])(?:\\s?(${SYMBOL_CLASS}|${CODE_OR_WORD}\\b))?`, 'g');
const WORD_AMOUNT = new RegExp(`\\b([a-z]+)\\s+(${Object.keys(CURRENCY_WORDS).join('|')}|${[...CODES].join('|')})\\b`, 'g');

/**
 * A number with separators as a plain decimal string: the last of two kinds of separator is
 * the decimal one; a lone separator followed by exactly three digits groups thousands
 * ("1,234", "1.500"), otherwise it is the decimal one ("40,5", "12.50"); spaces group thousands.
 */
export function plainDecimal(written: string): string {
  const compact = written.replace(/ /g, '');
  const lastDot = compact.lastIndexOf('.');
  const lastComma = compact.lastIndexOf(',');
  let integer = compact;
  let fraction = '';
  if (lastDot !== -1 && lastComma !== -1) {
    const at = Math.max(lastDot, lastComma);
    integer = compact.slice(0, at);
    fraction = compact.slice(at + 1);
  } else if (lastDot !== -1 || lastComma !== -1) {
    const separator = lastDot !== -1 ? '.' : ',';
    const parts = compact.split(separator);
    const tail = parts[parts.length - 1];
    if (parts.length > 2 || tail.length === 3) integer = parts.join('');
    else [integer, fraction] = parts;
  }
  integer = integer.replace(/[.,]/g, '');
  const value = new Decimal(fraction ? `${integer}.${fraction}` : integer);
  return fraction ? value.toFixed(Math.min(fraction.length, 4)) : value.toFixed(0);
}

function currencyOf(marker: string | undefined): string | undefined {
  if (!marker) return undefined;
  if (SYMBOLS[marker]) return SYMBOLS[marker];
  if (CODES.has(marker)) return marker.toUpperCase();
  return CURRENCY_WORDS[marker];
}

/**
 * The amounts of a folded sentence (dates already blanked out), in order. Amounts naming a
 * currency come first: "2 coffees for 7€" is 7 EUR.
 */
export function findAmounts(folded: string): FoundAmount[] {
  const found: Array<FoundAmount & { marked: boolean }> = [];
  for (const match of folded.matchAll(AMOUNT)) {
    const [whole, prefix, number, suffix] = match;
    const before = currencyOf(prefix);
    const after = currencyOf(suffix);
    const currency = before ?? after;
    // A prefix or suffix that is no currency is an ordinary word: leave it out of the match.
    const start = match.index + (before ? 0 : whole.indexOf(number));
    const end = after ? match.index + whole.length : match.index + whole.indexOf(number) + number.length;
    const amount = plainDecimal(number);
    if (new Decimal(amount).lessThanOrEqualTo(0)) continue;
    found.push({ amount, ...(currency ? { currency } : {}), start, end, marked: currency !== undefined });
  }
  for (const match of folded.matchAll(WORD_AMOUNT)) {
    const value = WORD_NUMBERS[match[1]];
    if (value === undefined) continue;
    found.push({ amount: String(value), currency: currencyOf(match[2]), start: match.index, end: match.index + match[0].length, marked: true });
  }
  return found.sort((a, b) => Number(b.marked) - Number(a.marked) || a.start - b.start).map(({ marked: _marked, ...amount }) => amount);
}
