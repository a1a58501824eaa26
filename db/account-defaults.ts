// Writes a new account's starting records (domain/account-defaults.ts says which), inside
// the registration transaction.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_GROUP, DEFAULT_GROUPS, DEFAULT_WALLET, SERVER_DEVICE_TOKEN, groupDescription } from '../domain/account-defaults.js';
import { slugify } from '../domain/slug.js';
import type { Database } from './schema.js';

export async function seedNewAccount(trx: Kysely<Database>, userId: number): Promise<void> {
  const device = await trx
    .insertInto('devices')
    .values({ user_id: userId, token: SERVER_DEVICE_TOKEN, platform: 'server' })
    .returning('id')
    .executeTakeFirstOrThrow();

  const generalGroupUuid = randomUUID();
  await trx
    .insertInto('groups')
    .values(
      DEFAULT_GROUPS.map((name) => ({
        user_id: userId,
        name,
        slug: slugify(name),
        description: groupDescription(name),
        ...(name === DEFAULT_GROUP ? { client_generated_id: generalGroupUuid, device_id: device.id } : {}),
      })),
    )
    .execute();

  const walletUuid = randomUUID();
  await trx
    .insertInto('wallets')
    .values({
      user_id: userId,
      name: DEFAULT_WALLET.name,
      slug: slugify(DEFAULT_WALLET.name),
      type: DEFAULT_WALLET.type,
      description: DEFAULT_WALLET.description,
      currency: DEFAULT_WALLET.currency,
      client_generated_id: walletUuid,
      device_id: device.id,
    })
    .execute();

  await trx
    .insertInto('configurations')
    .values([
      { user_id: userId, key: 'default-group', type: 'string', value: JSON.stringify(`${SERVER_DEVICE_TOKEN}:${generalGroupUuid}`) },
      { user_id: userId, key: 'default-wallet', type: 'string', value: JSON.stringify(`${SERVER_DEVICE_TOKEN}:${walletUuid}`) },
    ])
    .execute();
}
