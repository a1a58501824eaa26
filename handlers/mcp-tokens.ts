// MCP tokens: the caller's personal tokens for the MCP server at /mcp (docs/mcp.md), with the
// reference's shapes and messages. The secret is shown once, at creation; the table keeps
// only the JWT's id. Revoking refuses the token's next request.
import { listMcpTokens, revokeMcpToken } from '../db/tokens.js';
import type { McpScope } from '../server/auth.js';
import { created, done, ok } from '../server/envelope.js';
import { HttpError } from '../server/errors.js';
import type { HandlerContext } from '../server/handler-types.js';

/** Both when none are chosen, as the reference's tokens could call every tool. */
const DEFAULT_SCOPES: readonly McpScope[] = ['read', 'write'];

const scopesOf = (stored: string | null): McpScope[] => (stored ?? '').split(' ').filter((s): s is McpScope => s === 'read' || s === 'write');

export const mcpTokenHandlers = {
  listMcpTokens: async ({ db, user }: HandlerContext<'listMcpTokens'>) => {
    const rows = await listMcpTokens(db, user.id);
    const tokens = rows.map((row) => ({
      id: row.id,
      name: row.name,
      scopes: scopesOf(row.scopes),
      last_used_at: row.last_used_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
    }));
    return ok(tokens, 'MCP tokens retrieved');
  },

  createMcpToken: async ({ db, user, body, services }: HandlerContext<'createMcpToken'>) => {
    // in the order the spec lists them, whatever order they came in
    const scopes = DEFAULT_SCOPES.filter((scope) => (body.scopes ?? DEFAULT_SCOPES).includes(scope));
    const token = await services.tokens.issueMcp(db, user.id, body.name, scopes, services.now());
    return created(token, 'MCP token created');
  },

  revokeMcpToken: async ({ db, user, params, services }: HandlerContext<'revokeMcpToken'>) => {
    if (!(await revokeMcpToken(db, user.id, params.tokenId, services.now()))) throw new HttpError(404, 'Token not found');
    return done('MCP token revoked');
  },
};
