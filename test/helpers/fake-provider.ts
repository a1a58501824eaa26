// A tiny HTTP server on a loopback port, standing in for an external provider in tests.
// Each test sets how it answers (a JSON body, a status, a delay, a raw malformed body) and
// reads which requests it received.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnswer {
  status?: number;
  /** Sent as JSON unless `raw` is given. */
  json?: unknown;
  /** Sent as it is (for malformed bodies). */
  raw?: string;
  /** Wait this long before answering (for timeouts). */
  delayMs?: number;
}

export interface FakeRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface FakeProvider {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: FakeRequest[];
  /** Sets how the next requests are answered. */
  answer(respond: (request: FakeRequest) => FakeAnswer): void;
  close(): Promise<void>;
}

export async function startFakeProvider(t: { teardown(fn: () => unknown): void }): Promise<FakeProvider> {
  let respond: (request: FakeRequest) => FakeAnswer = () => ({ status: 404, json: { error: 'not set' } });
  const requests: FakeRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parsed = new URL(req.url ?? '/', 'http://fake');
    const request = { path: parsed.pathname, query: parsed.searchParams, headers: req.headers };
    requests.push(request);
    const answer = respond(request);
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      res.end(answer.raw ?? JSON.stringify(answer.json ?? null));
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.teardown(close);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (fn) => {
      respond = fn;
    },
    close,
  };
}
