// The cursor of a plain list (no `synced_since`): "continue after the row with this sort key",
// for a client that walks a long list page after page, so each page is found by key in the
// list's index instead of an offset that skips every row before it (db/feed.ts).
//
// It carries the last row's sort key (the values of the list's order columns, as PostgreSQL
// writes them as text: exact to the microsecond) and which list it belongs to (a hash of the
// table's order and every list parameter but the page's), sealed with an HMAC under the
// deployment's key. The seal is what makes an edited cursor a 422 instead of a value PostgreSQL
// cannot read; it grants nothing: a cursor names a position, never a user or a row to show, and
// the page after it is read from the caller's own rows only.
//
// Its text fits the pattern the spec gives every `cursor` and `next_cursor` (`^[0-9]+\.[0-9]+$`,
// a sync feed's): `0.` and the sealed bytes as one decimal number. A sync cursor's second part
// has at most 15 digits (db/feed.ts `parseFeedCursor`); a list cursor's has far more, so
// neither is read as the other.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 1;
const LIST_BYTES = 6;
const SEAL_BYTES = 12;
const SHAPE = /^0\.([1-9]\d{15,1199})$/;

/** Which list a cursor belongs to: anything that tells two lists apart (db order and parameters). */
export function listFingerprint(identity: string): Buffer {
  return createHash('sha256').update(identity).digest().subarray(0, LIST_BYTES);
}

function sealOf(secret: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update('list-cursor\n').update(body).digest().subarray(0, SEAL_BYTES);
}

/** The cursor after the row whose sort key is `key` (each value at most 255 bytes as UTF-8). */
export function sealListCursor(secret: string, identity: string, key: readonly string[]): string {
  const values = key.map((value) => Buffer.from(value, 'utf8'));
  if (values.length > 255 || values.some((value) => value.length > 255)) throw new Error('a list cursor key is too long');
  const body = Buffer.concat([Buffer.from([VERSION]), listFingerprint(identity), Buffer.from([values.length]), ...values.flatMap((value) => [Buffer.from([value.length]), value])]);
  // the version byte is never 0, so the number keeps every byte
  return `0.${BigInt(`0x${Buffer.concat([body, sealOf(secret, body)]).toString('hex')}`).toString()}`;
}

/** Whether `text` has the shape of a list cursor (not of a sync feed's cursor). */
export function looksLikeListCursor(text: string): boolean {
  return SHAPE.test(text);
}

export type OpenedListCursor = { ok: true; key: string[] } | { ok: false; reason: 'damaged' | 'other-list' };

/** The sort key a cursor continues after, when it is intact and was made for this list. */
export function openListCursor(secret: string, identity: string, text: string): OpenedListCursor {
  const damaged = { ok: false, reason: 'damaged' } as const;
  const match = SHAPE.exec(text);
  if (!match) return damaged;
  const hex = BigInt(match[1]).toString(16);
  const bytes = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  if (bytes.length < 1 + LIST_BYTES + 1 + SEAL_BYTES) return damaged;
  const body = bytes.subarray(0, bytes.length - SEAL_BYTES);
  const seal = bytes.subarray(bytes.length - SEAL_BYTES);
  if (!timingSafeEqual(seal, sealOf(secret, body)) || body[0] !== VERSION) return damaged;
  // sealed by this deployment, so well formed; read it defensively all the same
  const key: string[] = [];
  let at = 1 + LIST_BYTES + 1;
  for (let i = 0; i < body[1 + LIST_BYTES]; i++) {
    const length = body[at];
    if (length === undefined || at + 1 + length > body.length) return damaged;
    key.push(body.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  if (at !== body.length) return damaged;
  if (!body.subarray(1, 1 + LIST_BYTES).equals(listFingerprint(identity))) return { ok: false, reason: 'other-list' };
  return { ok: true, key };
}
