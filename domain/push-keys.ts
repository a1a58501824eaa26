// The keys a browser's PushSubscription carries (RFC 8291): checked before a subscription is kept.
import { createPublicKey } from 'node:crypto';

/** Standard or URL-safe base64, with or without padding, as bytes; undefined when it is neither. */
export function base64Bytes(text: string): Buffer | undefined {
  const urlSafe = text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return /^[A-Za-z0-9_-]+$/.test(urlSafe) ? Buffer.from(urlSafe, 'base64url') : undefined;
}

/** Whether the bytes are an uncompressed point on P-256 (what a browser's p256dh is). */
export function isP256Point(bytes: Buffer): boolean {
  if (bytes.length !== 65 || bytes[0] !== 4) return false;
  try {
    createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: bytes.subarray(1, 33).toString('base64url'), y: bytes.subarray(33).toString('base64url') }, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}
