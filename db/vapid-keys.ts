// The VAPID key pair shared by every process of a deployment (table vapid_keys, migration 036).
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface VapidKeyPair {
  publicKey: string;
  privateKey: string;
}

/**
 * The deployment's pair: `candidate` becomes it when none is kept yet, else the kept one wins.
 * Processes starting at once each offer their own; the insert lets one through and every
 * process reads back the same row.
 */
export async function keepFirstVapidKeys(db: Kysely<Database>, candidate: VapidKeyPair): Promise<VapidKeyPair> {
  await db
    .insertInto('vapid_keys')
    .values({ public_key: candidate.publicKey, private_key: candidate.privateKey })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const row = await db.selectFrom('vapid_keys').select(['public_key', 'private_key']).executeTakeFirstOrThrow();
  return { publicKey: row.public_key, privateKey: row.private_key };
}
