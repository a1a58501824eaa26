// A bank connection's secret (SimpleFIN's access URL, with its credentials) kept encrypted at
// rest: AES-256-GCM under a key derived from the app key by HKDF. Every process of a deployment
// derives the same key (the app key is shared, server/app-key.ts), and a database dump alone
// opens nothing (with the app key kept in the database, the dump and that row are both needed:
// APP_KEY from the environment keeps it out of the database).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'finance bank-connection secret v1';
const FORMAT = 'v1';

function keyFrom(appKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'utf8'), Buffer.alloc(0), INFO, 32));
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealSecret(appKey: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(appKey), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The secret, or undefined when it was sealed under another key or altered. */
export function openSecret(appKey: string, sealed: string): string | undefined {
  const [format, iv, tag, body] = sealed.split('.');
  if (format !== FORMAT || !iv || !tag || body === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(appKey), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
