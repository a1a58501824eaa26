// Values for the fuzzer: a seeded PRNG, and a schema walker that makes a valid instance of any
// schema of the bundled spec (ids of the caller's records taken from pools, so handlers are
// reached), plus the hostile values the mutations put in its place.
import { resolve, objectShape, type Schema } from './spec-walk.js';

/** mulberry32: small, fast and seedable; every run with one seed sends the same requests. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
}

/** Where a valid value for a field comes from: ids of the caller's records, by field path. */
export interface ValueSource {
  rng: Rng;
  /** A real value for a reference field (`wallet_id`, `targets[].id` given its sibling `type`), or undefined. */
  reference(field: string, siblings: Record<string, unknown>): unknown;
  now: Date;
}

/** Strings for known patterns of the spec; a pattern not listed here fails the fuzz test. */
const PATTERNS: Record<string, (rng: Rng) => string> = {
  '\\S': (rng) => rng.pick(['Rent', 'Groceries', 'Salaire de mars', 'Café ☕', 'مرتب']),
  '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$': (rng) =>
    `${rng.uuid()}:${rng.uuid()}`,
  '^[0-9]+(\\.[0-9]{1,4})?$': (rng) => `${rng.int(1, 500)}.${rng.int(0, 99)}`,
  '^[0-9]+\\.[0-9]+$': (rng) => `${rng.int(0, 3)}.${rng.int(1, 9999)}`,
  '^[0-9]{4}-[0-9]{2}$': (rng) => `2026-${String(rng.int(1, 12)).padStart(2, '0')}`,
  '^[0-9]{6}$': (rng) => String(rng.int(100000, 999999)),
  '^[1-9][0-9]{5}$': (rng) => String(rng.int(100000, 999999)),
  '^[A-Z]{3}$': (rng) => rng.pick(['EUR', 'EUR', 'USD', 'GBP', 'XAF']),
  '^[A-Za-z]{3}$': (rng) => rng.pick(['EUR', 'usd', 'GBP']),
  '^[a-z]{3}$': (rng) => rng.pick(['eur', 'usd']),
  '^[A-Za-z0-9._~-]+$': (rng) => rng.pick(['bitcoin', 'ethereum', 'a.b~c-d']),
  '^[a-z0-9][a-z0-9_-]*$': (rng) => rng.pick(['theme', 'default-wallet', `fuzz-${rng.int(1, 50)}`]),
  '^[A-Za-z]{2,10}$': (rng) => rng.pick(['fr', 'CM', 'global', 'US']),
  // webhook endpoint URLs: public, internal (refused), with credentials (refused)
  '^[Hh][Tt][Tt][Pp][Ss]?://': (rng) =>
    rng.pick(['https://hooks.example.com/finance', 'HTTP://hooks.example.org/x?y=1', 'http://10.0.0.1/hook', 'https://user:pw@hooks.example.com/', 'http://[::1]/']),
  // FCM device tokens
  '^\\S+$': (rng) => rng.pick(['fcm-token:APA91bHun4MxP5eg', `fcm-token-${rng.int(1, 20)}`, 'bad token']),
  // base64 file contents, bare or as a data: URL (a 1-pixel GIF and a tiny PDF)
  '^(data:[-\\w.+/]+;base64,)?[A-Za-z0-9+/\\s]+={0,2}$': (rng) =>
    rng.pick(['R0lGODlhAQABAAAAACw=', 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', 'data:application/pdf;base64,JVBERi0xLjQK']),
};
export const unknownPatterns = new Set<string>();

/** Fields whose valid values a schema cannot say (an IANA zone, an RRULE, a password). */
const BY_NAME: Record<string, (rng: Rng) => unknown> = {
  timezone: (rng) => rng.pick(['UTC', 'Europe/Paris', 'America/New_York', 'Africa/Douala']),
  repeat_rule: (rng) => rng.pick(['FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO', 'FREQ=MONTHLY;BYMONTHDAY=1']),
  password: () => 'correct horse battery',
  new_password: () => 'another horse battery',
  new_password_confirmation: () => 'another horse battery',
  currency: (rng) => rng.pick(['EUR', 'EUR', 'USD']),
  // push subscriptions: a browser's endpoint and keys (one real P-256 point), ntfy topics, refused URLs
  endpoint: (rng) => rng.pick(['https://push.example.net/send/fuzz', 'https://ntfy.sh/finance-fuzz', `https://push.example.net/send/${rng.int(1, 20)}`, 'http://10.0.0.1/push']),
  p256dh: (rng) => rng.pick(['BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', 'not-a-key']),
  auth: (rng) => rng.pick(['tBHItJI5svbpez7KI4CCXg', 'c2hvcnQ']),
};

const WORDS = ['rent', 'lunch', 'Salaire', 'café', 'Überweisung', '東京', 'مطعم', '🚗 fuel', 'a b c', 'x'];

/** A valid instance of `schema`. `field` is the dotted path (`targets[].id`) used for references and names. */
export function validValue(schema: Schema | undefined, source: ValueSource, field = '', depth = 0): unknown {
  const s = resolve(schema);
  const rng = source.rng;
  if (s.anyOf || s.oneOf) {
    const branches = (s.anyOf ?? s.oneOf).map(resolve).filter((b: Schema) => b.type !== 'null');
    return validValue(rng.pick(branches), source, field, depth + 1);
  }
  if (s.allOf && !s.properties && s.allOf.every((p: Schema) => resolve(p).type !== 'object' && !resolve(p).properties)) {
    return validValue(s.allOf[0], source, field, depth + 1);
  }
  if (s.enum) return rng.pick(s.enum.filter((v: unknown) => v !== null));
  const name = field.replace(/\[\]$/, '').split(/[.[\]]+/).filter(Boolean).pop() ?? '';
  const type = s.type ?? (s.properties || s.allOf ? 'object' : s.items ? 'array' : 'string');
  if (type !== 'object' && type !== 'array' && name in BY_NAME && !s.enum) return BY_NAME[name]!(rng);
  switch (type) {
    case 'object':
      return validObject(s, source, field, depth);
    case 'array': {
      const items = resolve(s.items);
      // Short lists: items naming records would otherwise repeat one record.
      const count = Math.max(s.minItems ?? 0, rng.chance(0.8) ? 1 : 0);
      const reference = source.reference(`${field}[]`, {}) ?? source.reference(field, {});
      if (reference !== undefined) return Array.isArray(reference) ? reference : [reference];
      const list = Array.from({ length: count }, () => validValue(items, source, `${field}[]`, depth + 1));
      return s.uniqueItems ? [...new Set(list)] : list;
    }
    case 'integer': {
      const reference = source.reference(field, {});
      if (reference !== undefined) return reference;
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? Number(s.exclusiveMinimum) + 1 : 1);
      return rng.int(min, Math.min(s.maximum ?? min + 50, min + 50));
    }
    case 'number': {
      const min = Math.max(s.minimum ?? 0.01, 0.01);
      const max = Math.min(s.maximum ?? 200, 200);
      return Math.round((min + rng.next() * (max - min)) * 100) / 100 || min;
    }
    case 'boolean':
      return rng.chance(0.5);
    default:
      return validString(s, source, name);
  }
}

function validObject(s: Schema, source: ValueSource, field: string, depth: number): Record<string, unknown> {
  const { properties, required } = objectShape(s);
  const out: Record<string, unknown> = {};
  const prefix = field ? `${field}.` : '';
  // Enumerated fields first, so a reference can depend on them (a budget target's `type`).
  const names = Object.keys(properties).sort((a, b) => Number(!resolve(properties[a]).enum) - Number(!resolve(properties[b]).enum));
  for (const name of names) {
    const schema = resolve(properties[name]);
    if (schema.readOnly) continue;
    if (!required.includes(name) && (depth > 2 || !source.rng.chance(0.45))) continue;
    const reference = source.reference(`${prefix}${name}`, out);
    out[name] = reference !== undefined ? reference : validValue(properties[name], source, `${prefix}${name}`, depth + 1);
  }
  return out;
}

function validString(s: Schema, source: ValueSource, name: string): string {
  const rng = source.rng;
  const day = 86_400_000;
  switch (s.format) {
    case 'date':
      return new Date(source.now.getTime() - rng.int(0, 90) * day).toISOString().slice(0, 10);
    case 'date-time': {
      // Stamps of a change (`*_at`, `until`) lie ahead of every record's creation; others in the past.
      const ahead = /_at$|until/.test(name) && !/^created_at$/.test(name);
      return new Date(source.now.getTime() + (ahead ? 1 : -1) * rng.int(60_000, 20 * day)).toISOString();
    }
    case 'email':
      return `fuzz-${rng.int(1, 1e9)}@example.test`;
    case 'uri':
      return `https://example.test/${rng.int(1, 999)}`;
    case 'uuid':
      return rng.uuid();
  }
  if (s.pattern) {
    const make = PATTERNS[s.pattern];
    if (make) return make(rng);
    unknownPatterns.add(s.pattern);
  }
  if (typeof s.example === 'string' && rng.chance(0.7)) return s.example; // `synced_since`: a string the schema cannot describe
  const min = s.minLength ?? 1;
  const max = Math.min(s.maxLength ?? 40, 40);
  let text = rng.pick(WORDS);
  while (text.length < min) text += ` ${rng.pick(WORDS)}`;
  return text.slice(0, Math.max(min, max));
}

// ---- hostile values --------------------------------------------------------------------------

export const MEGABYTE_STRING = 'é'.repeat(256 * 1024) + 'x'.repeat(512 * 1024);

export const HOSTILE = {
  wrongTypes: [true, false, 0, 1.5, 'text', '', [], [1, 'a'], {}, { nested: { deeper: [] } }] as unknown[],
  numbers: [1e308, -1e308, 5e-324, 2 ** 63, -(2 ** 63), 0, -0, -1, -0.01, 0.00001, 123456789012345.6789, 99999999999999999999] as unknown[],
  dates: ['2026-02-30', '2026-13-01', '0000-00-00', '2026-01-01T25:61:00Z', 'yesterday', '', '+275760-09-13T00:00:00.000Z', '-000001-01-01', '2026-1-1', '1e308', '2026-01-01T00:00:00+99:99', '9999-12-31T23:59:59.999Z'],
  unicode: ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u202eRTL\u202c text', 'مرحبا بالعالم', '👨‍👩‍👧‍👦', 'e\u0301\u0301\u0301', '\ufeffbom', '\u200b', '%00%27', '%s%n%x', "' OR 1=1 --", '<script>alert(1)</script>', '{{7*7}}', '${jndi:x}', '\r\n\r\nX-Injected: 1'],
  pathIds: ['-1', '0', '9223372036854775808', '18446744073709551616', 'abc', '1.5', '1e3', '%20', '99999999999999999999999', '0x10', '%00', 'null', "1'", '..%2F..%2Fetc'],
  queryValues: ['', '-1', '0', 'abc', '1e308', '9223372036854775808', 'true', 'null', '2026-02-30', '\u202e', '%00', 'x'.repeat(4000), ',,,', '1,abc,-1'],
  malformedJson: ['{', '{"a":', 'nul', '[1,2', '{"a":1}}', '\ufeff{}', '{"amount":1e999}', 'true', '"text"', '1e308', '[]', '{"a":"\\ud800"}', '['.repeat(5000) + ']'.repeat(5000), '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', "{'single':1}", '{"a":1,"a":2}'],
  contentTypes: ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/json; charset=utf-16', 'application/vnd.api+json', 'image/png', ';;;', 'application/json, text/plain'],
};
