// A webhook (or push service) receiver on 127.0.0.1 for tests: records every request (headers, raw body, when it
// arrived) and answers as its current `behaviour` says: ok, a status, hang (never answer),
// slow (answer after a delay), close (drop the connection), redirect.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes (an encrypted Web Push body is no text). */
  raw: Buffer;
  url: string;
  at: number;
}

export type Behaviour = { kind: 'ok' } | { kind: 'status'; status: number } | { kind: 'hang' } | { kind: 'slow'; ms: number } | { kind: 'close' } | { kind: 'redirect'; to: string };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  behaviour: Behaviour;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const receiver = { received, behaviour: { kind: 'ok' } as Behaviour } as WebhookReceiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({ headers: req.headers, body: raw.toString('utf8'), raw, url: req.url ?? '', at: performance.now() });
      const behaviour = receiver.behaviour;
      if (behaviour.kind === 'hang') return;
      if (behaviour.kind === 'close') return req.socket.destroy();
      if (behaviour.kind === 'redirect') return res.writeHead(307, { location: behaviour.to }).end();
      const answer = () => res.writeHead(behaviour.kind === 'status' ? behaviour.status : 200, { 'content-type': 'text/plain' }).end('x'.repeat(100_000));
      if (behaviour.kind === 'slow') setTimeout(answer, behaviour.ms);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
