// The MCP server's cost against the API's (docs/mcp.md, "Cost"): one run, sequential calls over
// real HTTP on loopback, of a read tool through the official SDK's client (a stateless POST to
// /mcp: JSON-RPC, a fresh server instance, the tool's contract check and handler) and of the
// same operation over REST (GET with an API token). Prints ms per call and the ratio, and the
// size of tools/list as a client receives it (characters, and tokens counted as chars / 4).
//
//   npx tsx scripts/bench/mcp.ts            (BENCH_MCP_CALLS, default 300; embedded database
//                                            in a fresh folder, or DATABASE_URL's bench database)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { openBenchApp } from './bench-database.js';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 300);
process.env.BENCH_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'finance-bench-mcp-'));
const { app, database } = await openBenchApp();
try {
  const inject = async (method: string, url: string, payload: unknown, token?: string) => {
    const res = await app.inject({ method: method as 'POST', url, payload: payload as object, headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json().data;
  };
  const email = `mcp-bench-${Date.now()}@example.test`;
  const token = (await inject('POST', '/api/register', { email, password: 'a long bench password', first_name: 'Bench' })).token as string;
  const wallets = [];
  for (const name of ['Checking', 'Savings', 'Cash']) wallets.push(await inject('POST', '/api/v1/wallets', { name, type: 'bank', currency: 'USD', balance: 10_000 }, token));
  for (let i = 0; i < 60; i++) await inject('POST', '/api/v1/transactions', { type: 'expense', amount: 1 + i, wallet_id: wallets[i % 3].id, description: `Bench ${i}` }, token);
  const mcpToken = (await inject('POST', '/api/v1/ai/mcp/tokens', { name: 'bench' }, token)).token as string;

  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } }));
  const listed = await client.listTools();
  const wire = JSON.stringify(listed);
  console.log(`tools/list: ${listed.tools.length} tools, ${wire.length} characters, ~${Math.round(wire.length / 4)} tokens`);
  const modelFacing = JSON.stringify(listed.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));
  console.log(`  of which name + description + inputSchema: ${modelFacing.length} characters, ~${Math.round(modelFacing.length / 4)} tokens`);

  const time = async (label: string, call: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await call(); // warm-up
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    const ms = (performance.now() - started) / CALLS;
    console.log(`${label}: ${ms.toFixed(2)} ms per call`);
    return ms;
  };
  const rest = (url: string) => async () => {
    const res = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    await res.arrayBuffer();
  };
  const tool = (name: string) => async () => {
    const result = await client.callTool({ name, arguments: {} });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  };
  for (const [name, url] of [['list-wallets', '/api/v1/wallets'], ['list-transactions', '/api/v1/transactions']] as const) {
    const restMs = await time(`GET ${url}`, rest(url));
    const mcpMs = await time(`tools/call ${name}`, tool(name));
    console.log(`  ${name} / GET ${url}: ${(mcpMs / restMs).toFixed(2)}x`);
  }
  await client.close();
} finally {
  await app.close();
  await database.close();
}
