// One HTTP attempt of a webhook delivery or a push: POST the body to the URL, connected to the
// address TargetPolicy checked, within a time limit, reading at most a few KB of the answer.
// A redirect is not followed (a 3xx counts as a failure): following it would reach a target
// nobody checked.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { TargetRefused, type TargetPolicy } from './webhook-targets.js';

/** The most of an answer's body read (kept for nothing but the connection's sake). */
const RESPONSE_READ_LIMIT = 4096;

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export function sendWebhook(request: WebhookRequest, policy: TargetPolicy, timeoutMs: number): Promise<AttemptOutcome> {
  return postToTarget({ ...request, headers: { ...request.headers, 'content-type': 'application/json', 'user-agent': 'finance-webhooks/1' } }, policy, timeoutMs);
}

export interface OutboundPost {
  url: string;
  /** Sent as given, with content-length added. */
  headers: Record<string, string>;
  body: string | Buffer;
}

/** One POST to a URL a user gave (a webhook, a push endpoint), under the address rules. */
export async function postToTarget(request: OutboundPost, policy: TargetPolicy, timeoutMs: number): Promise<AttemptOutcome> {
  const started = performance.now();
  const finish = (statusCode: number | null, error: string | null): AttemptOutcome => ({
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error: error ?? (statusCode !== null && (statusCode < 200 || statusCode >= 300) ? `HTTP ${statusCode}` : null),
    durationMs: Math.round(performance.now() - started),
  });
  const url = new URL(request.url);
  const deadline = AbortSignal.timeout(timeoutMs);
  let target: { address: string; family: 4 | 6 };
  try {
    target = await policy.resolve(url);
  } catch (error) {
    if (error instanceof TargetRefused) return finish(null, `refused: ${error.message}`);
    throw error;
  }
  // the connection goes to the checked address whatever the name resolves to by then
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as any)(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const body = Buffer.from(request.body);
  return new Promise<AttemptOutcome>((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup,
        signal: deadline,
        headers: { ...request.headers, 'content-length': String(body.length) },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_READ_LIMIT) res.destroy(); // the status is all we need
        });
        const done = () => resolve(finish(res.statusCode ?? null, null));
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason = deadline.aborted ? `timed out after ${timeoutMs} ms` : (error.code ?? error.message);
      resolve(finish(null, reason));
    });
    req.end(body);
  });
}
