// The VAPID key pair that signs Web Push requests (RFC 8292); browsers subscribe with its public
// half (applicationServerKey), so it must not change under them. VAPID_PUBLIC_KEY and
// VAPID_PRIVATE_KEY win when set; without them the first process generates a pair and keeps it
// in the database (db/vapid-keys.ts), where every process reads the same one, as with APP_KEY.
import type { Kysely } from 'kysely';
import webpush from 'web-push';
import { keepFirstVapidKeys, type VapidKeyPair } from '../db/vapid-keys.js';
import type { Database } from '../db/schema.js';
import type { PushConfig } from './push-config.js';
import { settledOnce } from './settled-once.js';

/** The pair, settled on first use and remembered (a failure is not: the next use tries again). */
export function vapidKeySource(config: Pick<PushConfig, 'vapidKeys'>, db: Kysely<Database>): () => Promise<VapidKeyPair> {
  const given = config.vapidKeys;
  if (given) return () => Promise.resolve(given);
  return settledOnce(() => keepFirstVapidKeys(db, webpush.generateVAPIDKeys()));
}
