// What the assistant tests share: a fake OpenAI-compatible provider on a loopback port that
// answers scripted replies in order (and records what it was sent), and an app configured to
// use it, with the answering job run by hand and job nudges recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerChatMessageJob } from '../../jobs/answer-chat-message.js';
import { startApp, type TestContext } from './harness.js';
import { ledgerFixtures } from './transaction-fixtures.js';

export type Scripted = { status?: number; body?: unknown; delayMs?: number };

/** A completion answering with text. */
export const text = (content: string): Scripted => ({ body: { choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: 11, completion_tokens: 7 } } });

/** A completion calling one tool. */
export const toolCall = (name: string, args: object, id = 'call_1'): Scripted => ({
  body: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] } }], usage: { prompt_tokens: 20, completion_tokens: 5 } },
});

export const silentLog = { info() {}, error() {}, warn() {}, debug() {} } as any;

export async function startFakeLlm(t: TestContext) {
  const script: Scripted[] = [];
  const received: Array<{ url: string | undefined; authorization: string | undefined; body: any }> = [];
  const state = { modelsStatus: 200 };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(state.modelsStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'fake-model' }] }));
      return;
    }
    received.push({ url: req.url, authorization: req.headers.authorization, body: JSON.parse(body || '{}') });
    const next = script.shift() ?? { status: 500, body: { error: 'nothing scripted' } };
    if (next.delayMs) await new Promise((resolve) => setTimeout(resolve, next.delayMs));
    res.writeHead(next.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(next.body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, script, received, state };
}

/** An app whose language model is the fake provider, two users, and the helpers the tests use. */
export async function assistantTestApp(t: TestContext) {
  const llm = await startFakeLlm(t);
  const api = await startApp(t, { llmBaseUrl: llm.url, llmApiKey: 'sk-test', llmModel: 'fake-model' });
  const nudges: string[] = [];
  api.app.services.jobs.attach({ send: async (name) => void nudges.push(name) });
  const owner = await api.newUser();
  const stranger = await api.newUser();

  async function newChat(token: string, message = 'How much did I spend?', extra: object = {}) {
    const res = await api.request('POST', '/api/v1/ai/chats', { token, body: { message, ...extra } });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    return res.body.data;
  }

  return {
    api,
    llm,
    script: llm.script,
    received: llm.received,
    nudges,
    owner,
    stranger,
    fx: ledgerFixtures(api),
    newChat,
    getChat: async (id: number, token = owner.token) => (await api.request('GET', `/api/v1/ai/chats/${id}`, { token })).body.data,
    runJob: () => answerChatMessageJob.run({ db: api.db, services: api.app.services, log: silentLog }, {}),
    balanceOf: async (walletId: number) => (await api.db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirstOrThrow()).balance,
  };
}
