// The settings a user can store (spec: ConfigurationKey) and the rule each value must meet.
// A sent value is first converted to its declared `type` (spec: ConfigurationValueType), then
// checked against its key's rule, so what is stored always has the JSON type the key needs
// (a boolean setting is a JSON boolean, whatever form it was sent in).
import type { components } from '../generated/api.js';

export type ConfigurationKey = components['schemas']['ConfigurationKey'];
export type ConfigurationValueType = components['schemas']['ConfigurationValueType'];
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The message when a value breaks the rule, undefined when it is fine. */
type Rule = (value: JsonValue) => string | undefined;

const text =
  (max: number, options: { nullable?: boolean } = {}): Rule =>
  (value) => {
    if (value === null && options.nullable) return undefined;
    if (typeof value !== 'string' || value === '') return `must be a non-empty string${options.nullable ? ' or null' : ''}`;
    return value.length > max ? `may not be longer than ${max} characters` : undefined;
  };

const boolean: Rule = (value) => (typeof value === 'boolean' ? undefined : 'must be true or false');

const oneOf =
  (...allowed: string[]): Rule =>
  (value) =>
    typeof value === 'string' && allowed.includes(value) ? undefined : `must be one of: ${allowed.join(', ')}`;

const nonNegativeInteger: Rule = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? undefined : 'must be an integer of at least 0';

const timeZone: Rule = (value) => (typeof value === 'string' && isTimeZone(value) ? undefined : 'must be an IANA time zone name, e.g. Europe/Paris');

const dateOrDateTime: Rule = (value) =>
  typeof value === 'string' && isIsoDateOrDateTime(value) ? undefined : 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time';

// Budgets read these rates (`FROM-TO` → rate), so only a well-formed map is stored.
const exchangeRates: Rule = (value) => {
  const problem = 'must be a string holding a JSON object of rates, e.g. {"USD-EUR": 0.92}';
  if (typeof value !== 'string') return problem;
  let rates: unknown;
  try {
    rates = JSON.parse(value);
  } catch {
    return problem;
  }
  if (!rates || typeof rates !== 'object' || Array.isArray(rates)) return problem;
  for (const [pair, rate] of Object.entries(rates)) {
    if (!/^[A-Z]{3}-[A-Z]{3}$/.test(pair)) return `has an invalid pair "${pair}" (expected FROM-TO, e.g. USD-EUR)`;
    if (typeof rate !== 'number' || !(rate > 0)) return `has an invalid rate for ${pair} (expected a positive number)`;
  }
  return undefined;
};

// A Record over the spec's enum: a key added to the spec without a rule fails to compile.
const RULES: Record<ConfigurationKey, Rule> = {
  'default-wallet': text(255, { nullable: true }),
  'default-currency': text(10),
  'default-group': text(255, { nullable: true }),
  'default-lang': text(10),
  country: text(60),
  'onboarding-complete': boolean,
  theme: oneOf('light', 'dark', 'system'),
  timezone: timeZone,
  'manual-exchange-rates': exchangeRates,
  'notifications-email': boolean,
  'notifications-push': boolean,
  'notifications-inapp': boolean,
  'notifications-reminders': boolean,
  'notifications-insights': boolean,
  'notifications-inactivity': boolean,
  'insights-frequency': oneOf('daily', 'weekly', 'monthly'),
  'inactivity-reminders-enabled': boolean,
  'inactivity-reminder-count': nonNegativeInteger,
  'last-inactivity-reminder-sent': dateOrDateTime,
  'wallets-allow-negative-balance': boolean,
  'transaction-intents-enabled': boolean,
  'asset-tracking-enabled': boolean,
  'landing-experience': oneOf('chat', 'dashboard'),
};

/** Keys clients may write (`avatar`, written by the server, is not one). */
export function isConfigurationKey(key: string): key is ConfigurationKey {
  return Object.hasOwn(RULES, key);
}

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'off', 'no']);
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The value as `type`, or undefined when it cannot be converted. null stays null (the key's rule decides). */
function convert(type: ConfigurationValueType, value: JsonValue): { value: JsonValue } | undefined {
  if (value === null) return { value };
  switch (type) {
    case 'string':
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? { value: String(value) } : undefined;
    case 'int': {
      const n = typeof value === 'string' && INTEGER.test(value.trim()) ? Number(value.trim()) : value;
      return typeof n === 'number' && Number.isSafeInteger(n) ? { value: n } : undefined;
    }
    case 'float': {
      const n = typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value.trim()) : value;
      return typeof n === 'number' && Number.isFinite(n) ? { value: n } : undefined;
    }
    case 'bool': {
      if (typeof value === 'boolean') return { value };
      if (typeof value !== 'string' && typeof value !== 'number') return undefined;
      const word = String(value).trim().toLowerCase();
      return TRUE_WORDS.has(word) ? { value: true } : FALSE_WORDS.has(word) ? { value: false } : undefined;
    }
    case 'array':
      return { value: Array.isArray(value) ? value : [value] };
    case 'json':
      return { value };
    case 'date':
      return typeof value === 'string' && isIsoDateOrDateTime(value) ? { value } : undefined;
  }
}

/**
 * The value to store for `key`, converted to `type`; or the message saying why it cannot be
 * (for the `value` field).
 */
export function configurationValue(key: ConfigurationKey, type: ConfigurationValueType, value: JsonValue): { value: JsonValue } | { error: string } {
  const converted = convert(type, value);
  if (!converted) return { error: `The value cannot be converted to ${type}.` };
  const problem = RULES[key](converted.value);
  return problem ? { error: `The value of ${key} ${problem}.` } : converted;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export function isIsoDateOrDateTime(text: string): boolean {
  const date = DATE.exec(text);
  if (date) {
    const [, y, m, d] = date.map(Number);
    const parsed = new Date(Date.UTC(y, m - 1, d));
    return parsed.getUTCFullYear() === y && parsed.getUTCMonth() === m - 1 && parsed.getUTCDate() === d;
  }
  return DATE_TIME.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')));
}

/** A zone name the runtime's time-zone database knows (offsets like +01:00 are not names). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
