// What the push tests play: a browser that subscribes (a P-256 key pair and a 16-byte auth
// secret, as PushManager makes them, and the JSON PushSubscription.toJSON() gives) and reads
// what its push service hands it, decrypted with those keys (RFC 8291, via http_ece).
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { decrypt } from 'http_ece';

export interface BrowserSubscription {
  /** What the web client posts: PushSubscription.toJSON(). */
  json: { endpoint: string; expirationTime: number | null; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
}

export function browserSubscription(endpoint: string): BrowserSubscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, json: { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } } };
}

/** The plaintext of an aes128gcm push body, decrypted with the subscription's private key and auth secret. */
export function decryptPush(body: Buffer, subscription: BrowserSubscription): string {
  return decrypt(body, { version: 'aes128gcm', privateKey: subscription.ecdh, authSecret: subscription.json.keys.auth }).toString('utf8');
}
