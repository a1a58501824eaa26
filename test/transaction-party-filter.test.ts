// `party_ids` on GET /v1/transactions (issue 41's leftover): only transactions with one of the
// parties, with totals over the filtered rows; over HTTP and through the MCP tool
// list-transactions, which takes it because the operation does.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();

const post = api.created;
const wallet = await post(owner.token, '/api/v1/wallets', { name: 'Checking', type: 'bank', currency: 'USD', balance: 1000 });
const shop = await post(owner.token, '/api/v1/parties', { name: 'Corner shop' });
const landlord = await post(owner.token, '/api/v1/parties', { name: 'Landlord' });
const theirParty = await post(stranger.token, '/api/v1/parties', { name: 'Their shop' });
const theirWallet = await post(stranger.token, '/api/v1/wallets', { name: 'Theirs', type: 'bank', currency: 'USD', balance: 100 });
const record = (body: Record<string, unknown>) => post(owner.token, '/api/v1/transactions', { type: 'expense', wallet_id: wallet.id, ...body });
const bread = await record({ amount: 3.5, party_id: shop.id, datetime: '2026-01-02T10:00:00Z' });
const milk = await record({ amount: 1.25, party_id: shop.id, datetime: '2026-01-03T10:00:00Z' });
const rent = await record({ amount: 700, party_id: landlord.id, datetime: '2026-01-01T10:00:00Z' });
const refund = await record({ type: 'income', amount: 2, party_id: shop.id, datetime: '2026-01-04T10:00:00Z' });
await record({ amount: 9, datetime: '2026-01-05T10:00:00Z' }); // no party
await post(stranger.token, '/api/v1/transactions', { type: 'expense', amount: 4, wallet_id: theirWallet.id, party_id: theirParty.id });

const list = (query: string, token = owner.token) => api.request('GET', `/api/v1/transactions?${query}`, { token });
const ids = (res: { body: any }) => res.body.data.data.map((row: { id: number }) => row.id);

t.test('party_ids keeps the transactions of those parties, newest first, with their totals', async (t) => {
  const one = await list(`party_ids=${shop.id}`);
  t.equal(one.status, 200);
  t.same(ids(one), [refund.id, milk.id, bread.id]);
  t.match(one.body.data, { total: 3, totals: { income: 2, expenses: 4.75, net: -2.75 } });
  const both = await list(`party_ids=${shop.id},${landlord.id}&type=expense`);
  t.same(ids(both), [milk.id, bread.id, rent.id], 'with another filter, two parties');
  t.match(both.body.data.totals, { income: 0, expenses: 704.75 });
  const walked = await list(`party_ids=${shop.id}&limit=2`);
  t.same(ids(walked), [refund.id, milk.id]);
  const next = await list(`party_ids=${shop.id}&limit=2&cursor=${walked.body.data.next_cursor}`);
  t.same(ids(next), [bread.id], 'the cursor keeps the filter');
});

t.test("another user's party matches nothing; bad ids are 422 on party_ids; no token is 401", async (t) => {
  const theirs = await list(`party_ids=${theirParty.id}`);
  t.equal(theirs.status, 200);
  t.same(ids(theirs), []);
  t.match(theirs.body.data, { total: 0, totals: { income: 0, expenses: 0 } });
  t.same(ids(await list(`party_ids=${theirParty.id}`, stranger.token)).length, 1, 'the stranger sees their own');
  for (const bad of ['abc', '0', '1,x', '-3']) {
    const res = await list(`party_ids=${bad}`);
    t.equal(res.status, 422, bad);
    t.ok(Object.keys(res.body.errors ?? {}).some((field) => field.startsWith('party_ids')), `${bad}: ${JSON.stringify(res.body.errors)}`);
  }
  t.equal((await api.request('GET', `/api/v1/transactions?party_ids=${shop.id}`)).status, 401);
});

t.test('the MCP tool list-transactions takes party_ids', async (t) => {
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const address = api.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const token = (await api.request('POST', '/api/v1/ai/mcp/tokens', { token: owner.token, body: { name: 'agent', scopes: ['read'] } })).body.data.token as string;
  const client = new Client({ name: 'finance-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  t.teardown(() => client.close());
  const tool = (await client.listTools()).tools.find((row) => row.name === 'list-transactions')!;
  t.ok((tool.inputSchema.properties as Record<string, unknown>).party_ids, 'the tool offers party_ids');
  const found: any = await client.callTool({ name: 'list-transactions', arguments: { party_ids: [landlord.id] } });
  t.notOk(found.isError, found.content[0].text);
  t.same(found.structuredContent.data.map((row: any) => row.id), [rent.id]);
  const theirs: any = await client.callTool({ name: 'list-transactions', arguments: { party_ids: [theirParty.id] } });
  t.same(theirs.structuredContent.data, [], "another user's party matches nothing");
  const bad: any = await client.callTool({ name: 'list-transactions', arguments: { party_ids: ['shop'] } });
  t.ok(bad.isError);
  t.ok(Object.keys(JSON.parse(bad.content[0].text).errors ?? {}).some((field) => field.startsWith('party_ids')), bad.content[0].text);
});
