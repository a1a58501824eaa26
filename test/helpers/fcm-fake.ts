// A local fake of the two Google endpoints firebase-admin talks to when it sends a message: the
// OAuth 2 token endpoint (it checks the service account's signed assertion) and FCM's HTTP v1
// `messages:send` (it checks the bearer token it issued). The SDK's URLs are fixed
// (https://oauth2.googleapis.com/token, https://fcm.googleapis.com), so the fake serves TLS with a
// certificate made for those names and `agent` connects every request to it. The SDK takes that
// agent as its documented `httpAgent` option for messaging; for the token it does not reach
// google-auth-library (firebase-admin 13.9 builds the service account's client without it), which
// then uses Node's default agent: while the fake runs, https.globalAgent is the loopback agent too.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https, { Agent, createServer, type AgentOptions, type RequestOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { importSPKI, jwtVerify } from 'jose';
import type { FcmServiceAccount } from '../../server/push-config.js';

export interface FcmFake {
  serviceAccount: FcmServiceAccount;
  agent: Agent;
  /** Every message FCM accepted or refused, as sent. */
  messages: Array<{ token: string; notification?: { title?: string; body?: string }; data?: Record<string, string>; android?: unknown }>;
  /** Tokens FCM answers UNREGISTERED (404) for, and tokens it answers INTERNAL (500) for. */
  unregistered: Set<string>;
  failing: Set<string>;
  tokensIssued: number;
  close(): Promise<void>;
}

/** A certificate for Google's API hosts, signed by itself (the agent trusts it and nothing else). */
function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'fcm-fake-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=fcm.googleapis.com', '-addext', 'subjectAltName=DNS:fcm.googleapis.com,DNS:oauth2.googleapis.com',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Connects every request, whatever its host, to the fake on 127.0.0.1, checking its certificate as the host's. */
class LoopbackAgent extends Agent {
  constructor(private readonly port: number, options: AgentOptions) {
    super(options);
  }

  // as https.Agent's own: the socket is returned, the callback is not used
  override createConnection(options: RequestOptions): Duplex {
    const tlsOptions = options as ConnectionOptions;
    return connect({ ...tlsOptions, host: '127.0.0.1', port: this.port, servername: tlsOptions.servername || options.host || undefined, ca: this.options.ca });
  }
}

export async function startFcmFake(): Promise<FcmFake> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const projectId = 'finance-test';
  const serviceAccount: FcmServiceAccount = {
    type: 'service_account',
    project_id: projectId,
    client_email: `push@${projectId}.iam.gserviceaccount.com`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  const verifyKey = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'RS256');
  const issued = new Set<string>();
  const { key, cert } = selfSignedCertificate();
  const fake = { serviceAccount, messages: [], unregistered: new Set<string>(), failing: new Set<string>(), tokensIssued: 0 } as unknown as FcmFake;
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      void (async () => {
        if (req.headers.host === 'oauth2.googleapis.com' && req.url === '/token') {
          const form = new URLSearchParams(text);
          try {
            const { payload } = await jwtVerify(form.get('assertion') ?? '', verifyKey, { issuer: serviceAccount.client_email });
            if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !String(payload.scope).includes('firebase.messaging')) throw new Error('bad grant');
          } catch {
            return json(res, 400, { error: 'invalid_grant' });
          }
          const token = `ya29.fake-${randomUUID()}`;
          issued.add(token);
          fake.tokensIssued += 1;
          return json(res, 200, { access_token: token, expires_in: 3600, token_type: 'Bearer' });
        }
        if (req.headers.host === 'fcm.googleapis.com' && req.url === `/v1/projects/${projectId}/messages:send`) {
          if (!issued.has(String(req.headers.authorization).replace(/^Bearer /, ''))) return json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED', message: 'bad token' } });
          const { message } = JSON.parse(text);
          fake.messages.push(message);
          const fcmError = (status: number, code: string, errorCode: string) =>
            json(res, status, { error: { code: status, status: code, message: errorCode, details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }] } });
          if (fake.unregistered.has(message.token)) return fcmError(404, 'NOT_FOUND', 'UNREGISTERED');
          // (a 503 the SDK retries by itself, for seconds, within one send)
          if (fake.failing.has(message.token)) return fcmError(500, 'INTERNAL', 'INTERNAL');
          return json(res, 200, { name: `projects/${projectId}/messages/${fake.messages.length}` });
        }
        json(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: `no fake for ${req.headers.host}${req.url}` } });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.agent = new LoopbackAgent((server.address() as AddressInfo).port, { ca: cert });
  const defaultAgent = https.globalAgent;
  https.globalAgent = fake.agent;
  fake.close = () =>
    new Promise<void>((resolve) => {
      https.globalAgent = defaultAgent;
      fake.agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
