// The MCP tools are derived from the spec (scripts/mcp-tools.ts): the committed table is what
// the bundled spec gives, an edit of a marked operation changes its tool, and the marks obey
// their rules (reference names, read-only exactly for GETs, nothing that deletes, at most 30).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import t from 'tap';
import { MAX_TOOLS, mcpToolsOf } from '../../scripts/mcp-tools.js';
import { SPEC_FILE } from '../../server/contract.js';
import { loadMcpTools } from '../../server/mcp-tools.js';

const addFormats = ajvFormats as unknown as typeof ajvFormats.default;
const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8'));
const committed = loadMcpTools();
const toolOf = (tools: ReturnType<typeof mcpToolsOf>, name: string) => tools.find((tool) => tool.name === name)!;

t.test('the committed table is the one the spec gives (make generate was run)', async (t) => {
  t.same(committed, mcpToolsOf(spec));
  t.equal(path.basename(path.dirname(SPEC_FILE)), 'generated');
});

t.test('an edit of a marked operation in the spec changes its tool', async (t) => {
  const edited = structuredClone(spec);
  const list = edited.paths['/v1/transactions'].get;
  list.parameters.push({ name: 'group_ids', in: 'query', description: 'Groups to keep.', schema: { type: 'array', items: { type: 'integer' } } });
  list['x-mcp'].description = 'Lists the transactions, filtered; a description for a model that changed.';
  const body = edited.components.schemas.TransactionInput.properties;
  body.description = { ...body.description, maxLength: 12 };
  const tools = mcpToolsOf(edited);
  const listed = toolOf(tools, 'list-transactions');
  t.same(listed.inputSchema.properties && (listed.inputSchema.properties as any).group_ids, { type: 'array', items: { type: 'integer' }, description: 'Groups to keep.' });
  t.ok(listed.arguments.query.includes('group_ids'));
  t.equal(listed.description, list['x-mcp'].description);
  t.equal((toolOf(tools, 'record-transaction').inputSchema.properties as any).description.maxLength, 12, 'a body field edit reaches the tool');
  t.not(JSON.stringify(tools), JSON.stringify(committed), 'so the committed table would be stale');

  const response = structuredClone(spec);
  response.components.schemas.Wallet.allOf.at(-1).properties.nickname = { type: 'string' };
  t.ok((toolOf(mcpToolsOf(response), 'get-wallet').outputSchema as any).$defs.Wallet.allOf.at(-1).properties.nickname, 'a response edit reaches the output schema');
});

t.test('the marks follow their rules', async (t) => {
  const names = committed.map((tool) => tool.name);
  for (const name of ['list-wallets', 'list-transactions', 'list-categories', 'list-parties', 'get-stats', 'create-wallet', 'record-transaction']) t.ok(names.includes(name), `the reference's ${name}`);
  t.ok(committed.length <= MAX_TOOLS);
  for (const tool of committed) {
    t.equal(tool.annotations.readOnlyHint, tool.method === 'GET', `${tool.name}: read-only exactly when a GET`);
    t.not(tool.method, 'DELETE', `${tool.name} deletes nothing`);
    t.equal(tool.annotations.destructiveHint, false);
    t.ok(tool.description.length >= 60, `${tool.name} is described for a model`);
    t.equal(tool.inputSchema.additionalProperties, false);
  }
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  for (const tool of committed) {
    t.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name} input compiles`);
    t.doesNotThrow(() => ajv.compile(tool.outputSchema), `${tool.name} output compiles`);
  }
  t.same(toolOf(committed, 'get-stats').arguments.query.includes('section'), true, "get-stats takes the reference's section");

  const bad = (edit: (copy: any) => void) => {
    const copy = structuredClone(spec);
    edit(copy);
    return () => mcpToolsOf(copy);
  };
  t.throws(bad((copy) => (copy.paths['/v1/wallets'].get['x-mcp'].readOnly = false)), /readOnly is true exactly for a GET/);
  t.throws(bad((copy) => (copy.paths['/v1/wallets/{id}'].delete['x-mcp'] = { tool: 'delete-wallet', description: 'Deletes a wallet and every transaction in it.', readOnly: false, destructive: false, idempotent: true })), /a DELETE is destructive/);
  t.throws(bad((copy) => (copy.paths['/v1/parties'].get['x-mcp'].tool = 'list-wallets')), /used twice/);
  t.throws(bad((copy) => (copy.paths['/v1/wallets'].get['x-mcp'].omit = ['nonsense'])), /omit names what the operation does not take/);
  t.throws(bad((copy) => (copy.paths['/v1/info'].get['x-mcp'] = { tool: 'server-info', description: 'What this server is and how much it implements.', readOnly: true, destructive: false, idempotent: true })), /public operation/);
  // byName: an argument naming a record the server can find by name, in place of its id argument
  t.same(toolOf(committed, 'record-transaction').byName, { wallet_name: 'wallet_id' });
  t.notOk((toolOf(committed, 'record-transaction').inputSchema.required as string[]).includes('wallet_id'), 'the id is no longer required by the tool');
  t.throws(bad((copy) => (copy.paths['/v1/transactions'].post['x-mcp'].byName = { wallet_name: 'wallet' })), /must name a body or query argument/);
  t.throws(bad((copy) => (copy.paths['/v1/transactions'].post['x-mcp'].byName = { party_name: 'party_id' })), /cannot be found by name/);
  t.throws(bad((copy) => (copy.paths['/v1/transactions'].post['x-mcp'].byName = { wallet: 'wallet_id' })), /must end in _name/);
});
