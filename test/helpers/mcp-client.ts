// The official MCP SDK's client against an app of the harness, over real HTTP (tests of /mcp).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TestApp, TestContext } from './harness.js';

/** Makes the app listen on 127.0.0.1 (once) and returns how to connect to its /mcp with a bearer token. */
export async function mcpClients(api: TestApp) {
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const address = api.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    base,
    /** A connected client for `token`, closed when `t` ends. */
    async connect(t: TestContext, token: string): Promise<Client> {
      const client = new Client({ name: 'finance-tests', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      t.teardown(() => client.close());
      return client;
    },
  };
}
