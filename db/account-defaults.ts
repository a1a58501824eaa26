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

  // The settings carry client ids too, so mobile clients can key them like any synced record.
  const setting = (key: string, value: string) => ({
    user_id: userId,
    key,
    type: 'string' as const,
    value: JSON.stringify(value),
    client_generated_id: randomUUID(),
    device_id: device.id,
  });
  await trx
    .insertInto('configurations')
    .values([setting('default-group', `${SERVER_DEVICE_TOKEN}:${generalGroupUuid}`), setting('default-wallet', `${SERVER_DEVICE_TOKEN}:${walletUuid}`)])
    .execute();
}
