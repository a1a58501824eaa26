// 009 oauth states: the `state` values GET /oauth/{driver}/login handed out, so the callback
// can check that it continues a login this server started.
//
// Non-obvious choices:
// - A table, not a signed state: the web client passes its own state and sends that same
//   value back to the callback, so the server has to remember it; single use needs memory too.
// - Only a SHA-256 of the state is stored; the PKCE code verifier is stored beside it (it is
//   useless without the provider's authorization code and lives 10 minutes).
// - Rows are deleted when used; expired ones are swept when new states are recorded.
import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_states')
    .$call(withId)
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('state_hash', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('oauth_states_provider_state_hash_key', ['provider', 'state_hash'])
    .execute();
  await db.schema.createIndex('oauth_states_expires_at_idx').on('oauth_states').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_states').execute();
}
