// 001 accounts: users, API tokens, devices, social-login links, verification/reset codes and
// per-user configuration entries.
//
// Non-obvious choices:
// - users.email and users.username are unique case-insensitively through unique indexes on
//   lower(...) (no citext: the embedded PGlite has no extensions). Look users up with
//   `lower(email) = lower($1)` so the index is used. phone is not unique (the API may check it).
// - password_hash is nullable: accounts created through social login have none.
// - tokens hold only the JWT's jti (the JWT itself is never stored); revoking sets revoked_at.
// - devices are per user: unique (user_id, token), not a global unique token. Web clients all
//   use the nil UUID as their device half and server-made records use it too, so one token is
//   legitimately shared by many users; a device row is never moved between users.
// - verification_codes keep one live code per (contact, channel, purpose); a resend replaces
//   code_hash/expires_at/attempts on that row. Codes are stored hashed, never in clear.
// - configurations are synced records. (user_id, key) is unique over all rows, deleted ones
//   included: deleting a key soft-deletes it (a tombstone for sync) and setting it again revives
//   that same row (`on conflict (user_id, key) do update set ..., deleted_at = null`).
import { sql, type Kysely } from 'kysely';
import { addSyncIndexes, oneOf, withId, withOwnerKey, withSync, withTimestamps, withUser } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .$call(withId)
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text')
    .addColumn('username', 'text')
    .addColumn('phone', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('email_verified_at', 'timestamptz')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('user'))
    .$call(withTimestamps)
    .addCheckConstraint('users_role_check', oneOf('role', ['user', 'admin']))
    .addCheckConstraint('users_email_check', sql`email <> ''`)
    .execute();
  await db.schema
    .createIndex('users_email_lower_key')
    .on('users')
    .expression(sql`lower(email)`)
    .unique()
    .execute();
  await db.schema
    .createIndex('users_username_lower_key')
    .on('users')
    .expression(sql`lower(username)`)
    .unique()
    .where(sql.ref('username'), 'is not', null)
    .execute();
  await db.schema.createIndex('users_created_at_idx').on('users').column('created_at').execute();

  await db.schema
    .createTable('tokens')
    .$call(withId)
    .$call(withUser)
    .addColumn('jti', 'uuid', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('tokens_user_id_idx').on('tokens').column('user_id').execute();

  await db.schema
    .createTable('devices')
    .$call(withId)
    .$call(withUser)
    .addColumn('token', 'uuid', (c) => c.notNull())
    .addColumn('platform', 'text')
    .$call(withTimestamps)
    .addUniqueConstraint('devices_user_id_token_key', ['user_id', 'token'])
    .$call((tb) => withOwnerKey(tb, 'devices'))
    .execute();

  await db.schema
    .createTable('oauth_accounts')
    .$call(withId)
    .$call(withUser)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_user_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .$call(withTimestamps)
    .addUniqueConstraint('oauth_accounts_provider_subject_key', ['provider', 'provider_user_id'])
    .addUniqueConstraint('oauth_accounts_user_provider_key', ['user_id', 'provider'])
    .execute();

  await db.schema
    .createTable('verification_codes')
    .$call(withId)
    // null while the contact has no account yet (a code sent before registering)
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('contact', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo('email'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .$call(withTimestamps)
    .addCheckConstraint('verification_codes_channel_check', oneOf('channel', ['email', 'phone']))
    .addCheckConstraint(
      'verification_codes_purpose_check',
      oneOf('purpose', ['registration', 'login', 'password_reset']),
    )
    .addCheckConstraint('verification_codes_attempts_check', sql`attempts >= 0`)
    .execute();
  await sql`create unique index verification_codes_contact_key
    on verification_codes (lower(contact), channel, purpose)`.execute(db);
  await db.schema
    .createIndex('verification_codes_expires_at_idx')
    .on('verification_codes')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('verification_codes_user_id_idx')
    .on('verification_codes')
    .column('user_id')
    .where(sql.ref('user_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('configurations')
    .$call(withId)
    .$call(withUser)
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'jsonb', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('string'))
    .$call(withSync)
    .addUniqueConstraint('configurations_user_id_key_key', ['user_id', 'key'])
    .addCheckConstraint(
      'configurations_type_check',
      oneOf('type', ['string', 'int', 'float', 'bool', 'array', 'json', 'date']),
    )
    .addCheckConstraint('configurations_key_check', sql`key <> ''`)
    .execute();
  await addSyncIndexes(db, 'configurations');
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['configurations', 'verification_codes', 'oauth_accounts', 'devices', 'tokens', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
