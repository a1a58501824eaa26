// A webhook (or push service) receiver on 127.0.0.1 for tests: records every request (headers, raw body, when it
// arrived) and answers as its current `behaviour` says: ok, a status, hang (never answer),
// slow (answer after a delay), close (drop the connection), redirect. Given the endpoint's
// `secret`, it checks every request as a Standard Webhooks receiver does, with the
// specification's own library, and answers 401 to one that does not verify.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes (an encrypted Web Push body is no text). */
  raw: Buffer;
  url: string;
  at: number;
  /** With a `secret`: whether the Standard Webhooks library verified the request; undefined without one. */
  verified?: boolean;
  /** The library's reason when it did not. */
  refusal?: string;
}

export type Behaviour = { kind: 'ok' } | { kind: 'status'; status: number } | { kind: 'hang' } | { kind: 'slow'; ms: number } | { kind: 'close' } | { kind: 'redirect'; to: string };

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  behaviour: Behaviour;
  /** The endpoint's `whsec_` secret: set, every request is verified (and refused with 401 when it does not verify). */
  secret?: string;
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
      const hook: ReceivedWebhook = { headers: req.headers, body: raw.toString('utf8'), raw, url: req.url ?? '', at: performance.now() };
      received.push(hook);
      if (receiver.secret !== undefined) {
        try {
          new Webhook(receiver.secret).verify(hook.body, req.headers as Record<string, string>);
          hook.verified = true;
        } catch (error) {
          hook.verified = false;
          hook.refusal = (error as Error).message;
          return res.writeHead(401, { 'content-type': 'text/plain' }).end(hook.refusal);
        }
      }
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
