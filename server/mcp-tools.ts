// The MCP server's tools: the table generated from the spec's `x-mcp` marks
// (generated/mcp-tools.json, scripts/mcp-tools.ts), each run through its operation exactly as
// an HTTP request is: the contract's validation, the handler (scoped to the token's user), the
// same errors. An error of the operation becomes a tool error (`isError`) the model can read
// and correct; nothing a tool does answers a 500.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { operations, type OperationInfo } from '../generated/operations.js';
import type { McpScope, McpUser } from './auth.js';
import { isRaw } from './envelope.js';
import { HttpError, validationFailed, type FieldErrors } from './errors.js';
import { idsForNames } from './mcp-names.js';
import { callHandler, handlerOf, type RouteDeps } from './routes.js';

/** JSON Schema as the tool table carries it (draft 2020-12, the MCP default dialect). */
export type JsonSchema = Record<string, unknown>;

export interface McpToolRow {
  name: string;
  title: string;
  description: string;
  operationId: string;
  method: string;
  /** The operation's path, relative to `/api` (`/v1/wallets/{id}`). */
  path: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  /** Where each argument goes in the operation's request. */
  arguments: { path: string[]; query: string[]; body: string[] };
  /** Arguments that name a record instead of giving its id argument (server/mcp-names.ts). */
  byName?: Record<string, string>;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}


/** The generated table, found from the sources (server/) and from the build (dist/server/). */
const TOOLS_FILE = [path.resolve(import.meta.dirname, '..', 'generated', 'mcp-tools.json'), path.resolve(import.meta.dirname, '..', '..', 'generated', 'mcp-tools.json')].find((file) =>
  existsSync(file),
);

export function loadMcpTools(): McpToolRow[] {
  if (!TOOLS_FILE) throw new Error('generated/mcp-tools.json is missing: run `make generate`');
  return JSON.parse(readFileSync(TOOLS_FILE, 'utf8')) as McpToolRow[];
}

/** The scope a tool needs: `write` for anything that is not read-only. */
export const scopeOf = (tool: McpToolRow): McpScope => (tool.annotations.readOnlyHint ? 'read' : 'write');

/** What `tools/call` answers (MCP's CallToolResult). */
export interface ToolOutcome {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** A tool error: the message and, for bad arguments, the messages keyed by argument, as the API's 422 has them. */
export function toolError(message: string, errors?: FieldErrors): ToolOutcome {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errors ? { message, errors } : { message }) }] };
}

const operationsById = new Map<string, OperationInfo>(operations.map((op) => [op.operationId, op]));

export type ToolDeps = Pick<RouteDeps, 'contract' | 'handlers' | 'db' | 'services'>;

/** Runs one tool call for the token's user; every failure is a tool error, never a thrown one. */
export async function runTool(tool: McpToolRow, args: Record<string, unknown>, user: McpUser, deps: ToolDeps, request: FastifyRequest): Promise<ToolOutcome> {
  if (!user.scopes.has(scopeOf(tool))) {
    return toolError(`This token may not call ${tool.name}: it needs the ${scopeOf(tool)} scope. Create a token with that scope (POST /api/v1/ai/mcp/tokens).`);
  }
  const operation = operationsById.get(tool.operationId as OperationInfo['operationId']);
  if (!operation) return toolError(`${tool.name} is not available on this server.`);
  const known = new Set([...tool.arguments.path, ...tool.arguments.query, ...tool.arguments.body, ...Object.keys(tool.byName ?? {})]);
  const unknown = Object.keys(args).filter((name) => !known.has(name));
  if (unknown.length > 0) return toolError('Unknown arguments.', Object.fromEntries(unknown.map((name) => [name, [`${tool.name} takes no argument ${name}.`]])));
  const missing = tool.arguments.path.filter((name) => args[name] === undefined || args[name] === null);
  if (missing.length > 0) return toolError('Missing arguments.', Object.fromEntries(missing.map((name) => [name, [`The ${name} field is required.`]])));
  try {
    const parts = requestOf(tool, operation, tool.byName ? await idsForNames(deps.db, user.id, tool.byName, args) : args);
    const checked = checkedOrFieldErrors(operation, deps, parts);
    const result = await callHandler(operation, deps, handlerOf(operation, deps), { user, ...checked, body: parts.body, files: {}, request });
    if (isRaw(result)) return toolError(`${tool.name} answered something other than JSON.`);
    // as the API sends it: dates as ISO strings, nothing but JSON
    const data = JSON.parse(JSON.stringify(result.data ?? null)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  } catch (error) {
    if (error instanceof HttpError) return toolError(error.message, error.errors);
    request.log.error({ err: error, tool: tool.name }, 'MCP tool failed');
    return toolError(`Server error. Please try again later. (request ${request.id})`);
  }
}

/** The operation's request made of the arguments: path parameters into the path, the others into the query or the body. */
function requestOf(tool: McpToolRow, operation: OperationInfo, args: Record<string, unknown>) {
  const pathText = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(args[name])));
  const query = Object.fromEntries(tool.arguments.query.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const takesBody = operation.bodyTypes.length > 0;
  const body = takesBody ? Object.fromEntries(tool.arguments.body.filter((name) => args[name] !== undefined).map((name) => [name, args[name]])) : undefined;
  return { path: pathText, headers: takesBody ? { 'content-type': 'application/json' } : {}, query, body };
}

/** The contract's check, as HTTP's (checkedRequest), except that a malformed path argument is named: HTTP's 404 for it would tell a model nothing. */
function checkedOrFieldErrors(operation: OperationInfo, deps: ToolDeps, parts: ReturnType<typeof requestOf>) {
  const check = deps.contract.checkRequest(operation.operationId, { method: operation.method, ...parts });
  if (!check.ok) throw validationFailed(check.errors);
  return { params: check.params, query: check.query };
}
