// 044 MCP OAuth: the authorization server that lets hosted assistants connect to /mcp by URL
// alone (docs/mcp.md, "OAuth"). Everything lives in the database, so any process of a fleet
// registers a client, shows the consent page, or exchanges a code another process issued.
//
// - mcp_oauth_clients: RFC 7591 registrations (public clients: no secret). redirect_uris is the
//   registered list as JSON text; the authorization request must name one of them.
// - A grant (one user's approval of one client) is a row of the token table of kind 'mcp' with
//   oauth_client_id set: it is listed and revoked with the personal MCP tokens, and its access
//   tokens (JWTs naming its jti, with a short expiry) die with it at the next request.
// - mcp_oauth_codes: authorization codes, stored as their SHA-256, single use (used_at); token_id
//   names the grant the code was exchanged for, so a replayed code revokes it.
// - mcp_oauth_refresh_tokens: refresh tokens, stored as their SHA-256; each use rotates (used_at),
//   and a used one presented again revokes its grant (the whole family).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .alterTable('tokens')
    .addColumn('oauth_client_id', 'text', (c) => c.references('mcp_oauth_clients.client_id').onDelete('cascade'))
    .execute();
  await db.schema
    .createTable('mcp_oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('mcp_oauth_clients.client_id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('token_id', 'bigint', (c) => c.references('tokens.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('mcp_oauth_codes_expires_idx').on('mcp_oauth_codes').column('expires_at').execute();
  await db.schema
    .createTable('mcp_oauth_refresh_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('token_id', 'bigint', (c) => c.notNull().references('tokens.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('mcp_oauth_refresh_tokens_token_idx').on('mcp_oauth_refresh_tokens').column('token_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_oauth_refresh_tokens').execute();
  await db.schema.dropTable('mcp_oauth_codes').execute();
  await db.deleteFrom('tokens').where('oauth_client_id', 'is not', null).execute();
  await db.schema.alterTable('tokens').dropColumn('oauth_client_id').execute();
  await db.schema.dropTable('mcp_oauth_clients').execute();
}
