// 039 MCP tokens: personal tokens for the MCP server (/mcp) are rows of the token table with
// kind 'mcp', beside the API's ('api').
//
// - kind keeps the two apart: the API's token statement reads only 'api' rows and the MCP
//   server's only 'mcp' rows, so neither kind of token passes through the other door (the MCP
//   specification forbids passing a token through).
// - scopes: what an MCP token may do, space-separated as OAuth writes them ('read', 'write');
//   null for API tokens.
// - expires_at may be null: an MCP personal token lives until it is revoked, as the
//   reference's do (API tokens keep their lifetime; their statement still wants expires_at > now).
import { sql, type Kysely } from 'kysely';
import { oneOf } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('tokens')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('api'))
    .addColumn('scopes', 'text')
    .execute();
  await db.schema.alterTable('tokens').alterColumn('expires_at', (c) => c.dropNotNull()).execute();
  await db.schema.alterTable('tokens').addCheckConstraint('tokens_kind_check', oneOf('kind', ['api', 'mcp'])).execute();
  // the token list of GET /v1/ai/mcp/tokens: the user's live MCP tokens, newest first
  await db.schema.createIndex('tokens_user_mcp_idx').on('tokens').columns(['user_id', 'id']).where(sql.ref('kind'), '=', 'mcp').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('tokens').where('kind', '=', 'mcp').execute();
  await db.schema.dropIndex('tokens_user_mcp_idx').execute();
  await db.schema.alterTable('tokens').dropConstraint('tokens_kind_check').execute();
  await db.schema.alterTable('tokens').alterColumn('expires_at', (c) => c.setNotNull()).execute();
  await db.schema.alterTable('tokens').dropColumn('kind').dropColumn('scopes').execute();
}
