// `wallet_name` in the MCP tool record-transaction (the reference's input, issue 41's leftover):
// the tool resolves the name to one of the token user's wallets (server/mcp-names.ts) and runs
// POST /v1/transactions with its id, which REST keeps requiring.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { mcpClients } from './helpers/mcp-client.js';

const api = await startApp(t);
const owner = await api.newUser();
const stranger = await api.newUser();

const post = api.created;
const cash = await post(owner.token, '/api/v1/wallets', { name: 'Cash', type: 'cash', currency: 'USD', balance: 100 });
const checking = await post(owner.token, '/api/v1/wallets', { name: 'Checking', type: 'bank', currency: 'USD', balance: 500 });
// two wallets that differ only by case: neither is found by a name of another case
await post(owner.token, '/api/v1/wallets', { name: 'Travel', type: 'bank', currency: 'USD', balance: 50 });
await post(owner.token, '/api/v1/wallets', { name: 'TRAVEL', type: 'bank', currency: 'EUR', balance: 50 });
const theirs = await post(stranger.token, '/api/v1/wallets', { name: 'Savings', type: 'bank', currency: 'USD', balance: 100 });

const { connect } = await mcpClients(api);
const mcpToken = async (user: { token: string }) => (await api.request('POST', '/api/v1/ai/mcp/tokens', { token: user.token, body: { name: 'agent', scopes: ['read', 'write'] } })).body.data.token as string;
const payload = (result: any) => (result.isError ? JSON.parse(result.content[0].text) : result.structuredContent);
const count = async (userId: number) =>
  Number((await api.db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()).n);

t.test('record-transaction takes the wallet by name: exact, or the only one of that name in another case', async (t) => {
  const client = await connect(t, await mcpToken(owner));
  const tool = (await client.listTools()).tools.find((row) => row.name === 'record-transaction')!;
  t.ok((tool.inputSchema.properties as Record<string, unknown>).wallet_name, 'the tool offers wallet_name');
  t.notOk((tool.inputSchema.required ?? []).includes('wallet_id'), 'wallet_id is no longer required by the tool');
  for (const [name, wallet] of [['Cash', cash], ['checking', checking], ['  Cash ', cash], ['TRAVEL', undefined]] as const) {
    const result: any = await client.callTool({ name: 'record-transaction', arguments: { type: 'expense', amount: 2.5, wallet_name: name, description: `by ${name}` } });
    t.notOk(result.isError, result.content[0].text);
    const read = await api.request('GET', `/api/v1/transactions/${result.structuredContent.id}`, { token: owner.token });
    t.equal(read.status, 200);
    if (wallet) t.equal(read.body.data.wallet_id, wallet.id, `"${name}" is ${wallet.name}`);
    else t.equal(read.body.data.wallet.name, 'TRAVEL', 'the exact name wins over another case');
  }
  const agreeing: any = await client.callTool({ name: 'record-transaction', arguments: { type: 'income', amount: 1, wallet_name: 'Cash', wallet_id: cash.id } });
  t.notOk(agreeing.isError, 'an id and a name of the same wallet');
  t.equal((await api.request('GET', `/api/v1/wallets/${cash.id}`, { token: owner.token })).body.data.balance, 100 - 2.5 - 2.5 + 1, 'the balance moved');
});

t.test('an unknown, ambiguous, disagreeing or malformed name is an error on wallet_name; nothing is recorded', async (t) => {
  const client = await connect(t, await mcpToken(owner));
  const before = await count(owner.user.id);
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ wallet_name: 'Wallet of nobody' }, 'wallet_name', /None of your wallets is named/],
    [{ wallet_name: 'travel' }, 'wallet_name', /Several of your wallets/],
    [{ wallet_name: 'Savings' }, 'wallet_name', /None of your wallets/],
    [{ wallet_name: 'Cash', wallet_id: checking.id }, 'wallet_name', /not the one wallet_id gives/],
    [{ wallet_name: '' }, 'wallet_name', /must be the name/],
    [{ wallet_name: 42 }, 'wallet_name', /must be the name/],
    [{}, 'wallet_id', /required/],
  ];
  for (const [args, field, message] of cases) {
    const result: any = await client.callTool({ name: 'record-transaction', arguments: { type: 'expense', amount: 1, ...args } });
    t.ok(result.isError, JSON.stringify(args));
    t.match(payload(result).errors?.[field]?.[0], message, `${JSON.stringify(args)}: ${result.content[0].text}`);
  }
  t.equal(await count(owner.user.id), before, 'nothing recorded');
});

t.test("another user's wallet name is not found; their own is", async (t) => {
  const client = await connect(t, await mcpToken(stranger));
  const mine: any = await client.callTool({ name: 'record-transaction', arguments: { type: 'expense', amount: 1, wallet_name: 'Savings' } });
  t.notOk(mine.isError, mine.content[0].text);
  t.equal(mine.structuredContent.wallet_id, theirs.id);
  const notTheirs: any = await client.callTool({ name: 'record-transaction', arguments: { type: 'expense', amount: 1, wallet_name: 'Cash' } });
  t.ok(notTheirs.isError);
  t.ok(payload(notTheirs).errors?.wallet_name);
});

t.test('REST still takes the wallet by id only: a wallet_name in the body is ignored like any unknown field', async (t) => {
  const res = await api.request('POST', '/api/v1/transactions', { token: owner.token, body: { type: 'expense', amount: 1, wallet_name: 'Cash' } });
  t.equal(res.status, 422);
  t.ok(res.body.errors?.wallet_id);
});
