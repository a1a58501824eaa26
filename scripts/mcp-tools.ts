// The MCP tool table, derived from the bundled spec: every operation marked `x-mcp` becomes a
// tool whose input schema is its parameters and JSON body, and whose output schema is its
// success response's `data`. `make generate` writes the table to generated/mcp-tools.json; the
// server (server/mcp-tools.ts) runs each tool through the operation's own handler, and
// test/unit/mcp-tools.test.ts derives it again to prove the committed table follows the spec.
//
// The mark (spec/README.md, "MCP tools"):
//   x-mcp:
//     tool: list-transactions        # the tool's name (kebab-case, unique)
//     title: List transactions
//     description: >-                # for a model: when to call it, what comes back
//     readOnly: true                 # a GET; false for writes, which need the `write` scope
//     destructive: false             # true only for a tool that deletes or overwrites
//     idempotent: true
//     omit: [synced_since, cursor]   # parameters or body fields not offered to a model
//     byName:                        # arguments a model may give by name instead of by id:
//       wallet_name: wallet_id       # the user's record of that name, sent to the operation as
//                                    # the id (server/mcp-tools.ts resolves it; the id is then
//                                    # no longer required by the tool, the operation still checks it)

import type { JsonSchema, McpToolRow } from '../server/mcp-tools.js';
import { NAMED_RECORDS } from '../server/mcp-names.js';

const RECORDS_BY_NAME = new Map(Object.entries(NAMED_RECORDS));

/** A model's context is small: the list stays at this many tools at most. */
export const MAX_TOOLS = 30;

const TOOL_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Keys of OpenAPI 3.0 schemas that JSON Schema does not have (or that only document). */
const DROPPED_KEYS = new Set(['example', 'discriminator', 'xml', 'externalDocs', 'nullable']);
/** Formats OpenAPI uses for documentation only. */
const DOCUMENTATION_FORMATS = new Set(['binary', 'password']);

type Node = Record<string, any>;

/** The tool table of a bundled OpenAPI 3.0 document; throws on a mark that cannot be a tool. */
export function mcpToolsOf(spec: Node): McpToolRow[] {
  const tools: McpToolRow[] = [];
  for (const [specPath, item] of Object.entries<Node>(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.['x-mcp']) continue;
      tools.push(toolOf(spec, specPath, method, item, op));
    }
  }
  tools.sort((a, b) => a.name.localeCompare(b.name));
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new Error(`x-mcp: the tool name ${tool.name} is used twice`);
    names.add(tool.name);
  }
  if (tools.length > MAX_TOOLS) throw new Error(`x-mcp: ${tools.length} tools, more than ${MAX_TOOLS}`);
  return tools;
}

function toolOf(spec: Node, specPath: string, method: string, item: Node, op: Node): McpToolRow {
  const where = `${method.toUpperCase()} ${specPath} (x-mcp)`;
  const mark = op['x-mcp'] as Node;
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why}`);
  };
  if (typeof mark.tool !== 'string' || !TOOL_NAME.test(mark.tool)) fail('tool must be a kebab-case name');
  if (typeof mark.description !== 'string' || mark.description.trim().length < 20) fail('a description for a model is required');
  for (const flag of ['readOnly', 'destructive', 'idempotent']) if (typeof mark[flag] !== 'boolean') fail(`${flag} must be true or false`);
  if (mark.readOnly !== (method === 'get')) fail('readOnly is true exactly for a GET');
  if (method === 'delete' && !mark.destructive) fail('a DELETE is destructive');
  if (mark.readOnly && mark.destructive) fail('a read-only tool cannot be destructive');
  if ((op.security ?? spec.security ?? []).length === 0) fail('a public operation is not a tool (tools act for the token\'s user)');
  const omit = new Set<string>(mark.omit ?? []);

  const properties: Node = {};
  const required: string[] = [];
  const args: McpToolRow['arguments'] = { path: [], query: [], body: [] };
  const add = (name: string, schema: Node, isRequired: boolean) => {
    if (name in properties) fail(`the argument ${name} is both a parameter and a body field`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const parameter = resolve(spec, raw);
    if (parameter.in !== 'path' && parameter.in !== 'query') continue; // headers (If-None-Match) are HTTP's business
    if (omit.has(parameter.name)) {
      if (parameter.in === 'path' || parameter.required) fail(`${parameter.name} is required and cannot be omitted`);
      omit.delete(parameter.name);
      continue;
    }
    const schema = jsonSchema(spec, parameter.schema ?? {});
    if (parameter.description && !schema.description) schema.description = parameter.description;
    add(parameter.name, schema, parameter.in === 'path' || parameter.required === true);
    args[parameter.in as 'path' | 'query'].push(parameter.name);
  }
  const bodySchema = resolve(spec, op.requestBody)?.content?.['application/json']?.schema;
  if (op.requestBody && !bodySchema) fail('a tool takes a JSON body');
  if (bodySchema) {
    const body = objectOf(spec, bodySchema, fail);
    for (const [name, schema] of Object.entries<Node>(body.properties)) {
      if (omit.delete(name)) {
        if (body.required.includes(name)) fail(`${name} is required and cannot be omitted`);
        continue;
      }
      add(name, schema, body.required.includes(name));
      args.body.push(name);
    }
  }
  if (omit.size > 0) fail(`omit names what the operation does not take: ${[...omit].join(', ')}`);
  const byName: Record<string, string> = {};
  for (const [name, id] of Object.entries<unknown>(mark.byName ?? {})) {
    if (typeof id !== 'string' || !args.body.includes(id) && !args.query.includes(id)) fail(`byName: ${name} must name a body or query argument, not ${String(id)}`);
    if (!RECORDS_BY_NAME.has(id as string)) fail(`byName: records named by ${String(id)} cannot be found by name (server/mcp-tools.ts NAMED_RECORDS)`);
    if (!/_name$/.test(name)) fail(`byName: ${name} must end in _name`);
    const { table } = RECORDS_BY_NAME.get(id as string)!;
    add(name, { type: 'string', minLength: 1, maxLength: 255, description: `The exact name of one of the user's ${table} (case is ignored when only one matches), instead of ${String(id)}.` }, false);
    required.splice(0, required.length, ...required.filter((other) => other !== id));
    byName[name] = id as string;
  }

  return {
    name: mark.tool,
    title: mark.title ?? op.summary,
    description: String(mark.description).trim(),
    operationId: op.operationId,
    method: method.toUpperCase(),
    path: specPath,
    annotations: { readOnlyHint: mark.readOnly, destructiveHint: mark.destructive, idempotentHint: mark.idempotent, openWorldHint: false },
    arguments: args,
    ...(Object.keys(byName).length > 0 ? { byName } : {}),
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    outputSchema: outputOf(spec, op, fail),
  };
}

/** The success response's `data`, which must be an object (MCP's structured content is one). */
function outputOf(spec: Node, op: Node, fail: (why: string) => never): JsonSchema {
  const status = ['200', '201'].find((code) => op.responses?.[code]);
  const envelope = status && resolve(spec, resolve(spec, op.responses[status])?.content?.['application/json']?.schema);
  if (!envelope) fail('no JSON success response');
  const data = propertyOf(spec, envelope, 'data');
  if (!data) fail('the success response has no data');
  const defs: Definitions = new Map();
  const schema = jsonSchema(spec, data!, defs);
  if (!isObject(schema, defs)) fail('the success response\'s data is not an object (MCP structured content must be one)');
  // MCP wants `type: object` at the root of an output schema, also when allOf says it
  const whole = { type: 'object', ...schema, ...(defs.size > 0 ? { $defs: Object.fromEntries([...defs].sort(([a], [b]) => a.localeCompare(b))) } : {}) };
  // the fields' prose is the API reference's (generated/openapi.json); in tools/list it would
  // more than double the output schemas a client holds (measured: docs/mcp.md, "Size")
  return withoutProse(whole) as JsonSchema;
}

/** A schema without `description`s (a property named `description` stays). */
function withoutProse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' && typeof value === 'string') continue;
    out[key] = key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as object).map(([name, child]) => [name, withoutProse(child)])) : withoutProse(value);
  }
  return out;
}

/** Whether every value the schema admits is an object. */
function isObject(schema: JsonSchema, defs: Definitions): boolean {
  if (typeof schema.$ref === 'string') return isObject(defs.get(schema.$ref.slice('#/$defs/'.length)) ?? {}, defs);
  if (schema.type !== undefined) return schema.type === 'object';
  return Array.isArray(schema.allOf) && schema.allOf.some((member) => isObject(member as JsonSchema, defs));
}

/** A property's schema in an object schema, through allOf. */
function propertyOf(spec: Node, schema: Node, name: string): Node | undefined {
  const node = resolve(spec, schema);
  if (node.properties?.[name]) return node.properties[name];
  for (const member of node.allOf ?? []) {
    const found = propertyOf(spec, member, name);
    if (found) return found;
  }
  return undefined;
}

/** A body schema flattened to its properties (allOf members merged) and required names, each property as JSON Schema. */
function objectOf(spec: Node, schema: Node, fail: (why: string) => never): { properties: Node; required: string[] } {
  const properties: Node = {};
  const required = new Set<string>();
  const visit = (raw: Node) => {
    const node = resolve(spec, raw);
    if (node.oneOf || node.anyOf) fail('a body with oneOf/anyOf at the top cannot be flattened into arguments');
    for (const name of node.required ?? []) required.add(name);
    for (const [name, property] of Object.entries<Node>(node.properties ?? {})) {
      const converted = jsonSchema(spec, property);
      // named in several members: each one's constraints hold
      properties[name] = properties[name] ? { allOf: [properties[name], converted] } : converted;
    }
    for (const member of node.allOf ?? []) visit(member);
  };
  visit(schema);
  return { properties, required: [...required].filter((name) => name in properties) };
}

function resolve(spec: Node, node: Node | undefined): Node {
  let at = node;
  const seen = new Set<string>();
  while (at?.$ref) {
    if (seen.has(at.$ref)) throw new Error(`a $ref cycle at ${at.$ref}`);
    seen.add(at.$ref);
    at = (at.$ref as string)
      .slice(2)
      .split('/')
      .reduce<any>((value, key) => value?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return at as Node;
}

/** Named schemas an output schema shares through `$defs` (a transaction's wallet, a page's items), instead of a copy each. */
type Definitions = Map<string, JsonSchema>;

const COMPONENT_SCHEMA = '#/components/schemas/';

/**
 * An OpenAPI 3.0 schema as JSON Schema: `$ref`s inlined (or, with `defs`, pointed into the
 * tool's own `$defs`), `nullable` as a `null` type, documentation-only keys and formats dropped.
 * Input schemas are inlined whole: a model reads them, and not every client follows `$ref`.
 */
export function jsonSchema(spec: Node, schema: Node, defs?: Definitions, trail: string[] = []): JsonSchema {
  if (schema.$ref) {
    const { $ref, ...siblings } = schema;
    const rest = jsonSchema(spec, siblings, defs, trail);
    if (defs && ($ref as string).startsWith(COMPONENT_SCHEMA)) {
      const name = ($ref as string).slice(COMPONENT_SCHEMA.length);
      if (!defs.has(name)) {
        defs.set(name, {}); // taken before converting: a recursive schema points at itself
        defs.set(name, jsonSchema(spec, resolve(spec, { $ref }), defs, trail));
      }
      return { $ref: `#/$defs/${name}`, ...rest };
    }
    if (trail.includes($ref)) throw new Error(`x-mcp: the recursive schema ${$ref} cannot be inlined`);
    return { ...jsonSchema(spec, resolve(spec, { $ref }), defs, [...trail, $ref]), ...rest };
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYS.has(key) || key.startsWith('x-')) continue;
    if (key === 'format' && DOCUMENTATION_FORMATS.has(value)) continue;
    if (key === 'properties') out.properties = Object.fromEntries(Object.entries<Node>(value).map(([name, child]) => [name, jsonSchema(spec, child, defs, trail)]));
    else if (['items', 'additionalProperties', 'not'].includes(key) && value && typeof value === 'object') out[key] = jsonSchema(spec, value, defs, trail);
    else if (['allOf', 'anyOf', 'oneOf'].includes(key)) out[key] = (value as Node[]).map((member) => jsonSchema(spec, member, defs, trail));
    else out[key] = value;
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}
