// A real SMTP server on a loopback port (the `smtp-server` package) that captures what it
// receives, and a small RFC 822 / MIME reader for the messages the service writes (over SMTP
// or as .eml files). Enough for nodemailer's output: multipart/alternative with 7bit,
// quoted-printable or base64 parts, and attachments (multipart/mixed).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ParsedMessage {
  headers: Record<string, string>;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
}

export interface CapturedMessage extends ParsedMessage {
  envelope: { from: string; to: string[] };
  user: string | undefined;
  raw: string;
}

export interface FakeSmtp {
  url: string;
  port: number;
  messages: CapturedMessage[];
  /** Answer RCPT TO with this SMTP code and text for matching recipients. */
  refuseRecipient(match: (address: string) => boolean, code: number, text: string): void;
  /**
   * While on, a message's data is read to the end and then left unanswered: no 250, so it is
   * not accepted (not in `messages`) and its sender waits, until `acceptStalled()`. Turning
   * it off forgets the held messages, unaccepted (as when their sender died waiting).
   */
  stall(on: boolean): void;
  /** Resolves with the next message held unanswered (or one already held). */
  stalled(): Promise<CapturedMessage>;
  /** Answers 250 to every held message whose sender is still connected: they join `messages`. */
  acceptStalled(): void;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<FakeSmtp> {
  const messages: CapturedMessage[] = [];
  const refusals: Array<{ match: (address: string) => boolean; code: number; text: string }> = [];
  let stalling = false;
  let held: Array<{ message: CapturedMessage; accept: () => void }> = [];
  let heldWaiters: Array<(message: CapturedMessage) => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 'secret') return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const refusal = refusals.find((r) => r.match(address.address));
      if (refusal) return callback(Object.assign(new Error(refusal.text), { responseCode: refusal.code }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const message: CapturedMessage = {
          ...parseMessage(raw),
          raw,
          user: session.user,
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          },
        };
        if (!stalling) {
          messages.push(message);
          return callback();
        }
        held.push({ message, accept: () => (messages.push(message), callback()) });
        for (const waiter of heldWaiters) waiter(message);
        heldWaiters = [];
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://mailer:secret@127.0.0.1:${port}`,
    port,
    messages,
    refuseRecipient: (match, code, text) => void refusals.push({ match, code, text }),
    stall: (on) => {
      stalling = on;
      if (!on) held = [];
    },
    stalled: () => (held.length > 0 ? Promise.resolve(held[held.length - 1].message) : new Promise((resolve) => heldWaiters.push(resolve))),
    acceptStalled: () => {
      for (const { accept } of held) accept();
      held = [];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Headers (lower-case names, unfolded) and the text/plain and text/html bodies of a message. */
export function parseMessage(raw: string): ParsedMessage {
  const { headers, body } = splitHeaders(raw.replace(/\r\n/g, '\n'));
  const leaves = leafParts(headers, body);
  const isAttachment = (p: Part) => /^attachment/i.test(p.headers['content-disposition'] ?? '');
  const parts = leaves.filter((p) => !isAttachment(p));
  const part = (type: string) => parts.find((p) => (p.headers['content-type'] ?? 'text/plain').startsWith(type));
  return {
    headers,
    from: headers.from ?? '',
    to: headers.to ?? '',
    subject: headers.subject ?? '',
    text: part('text/plain') ? decodeBody(part('text/plain')!) : '',
    html: part('text/html') ? decodeBody(part('text/html')!) : '',
    attachments: leaves.filter(isAttachment).map((p) => ({
      filename: /filename="?([^";]+)"?/i.exec(p.headers['content-disposition'])?.[1] ?? '',
      contentType: (p.headers['content-type'] ?? '').split(';')[0].trim(),
      content: decodeBytes(p),
    })),
  };
}

interface Part {
  headers: Record<string, string>;
  body: string;
}

function splitHeaders(text: string): Part {
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: end === -1 ? '' : text.slice(end + 2) };
}

function leafParts(headers: Record<string, string>, body: string): Part[] {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.startsWith('multipart/') || !boundary) return [{ headers, body }];
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((chunk) => !chunk.startsWith('--'))
    .flatMap((chunk) => {
      const part = splitHeaders(chunk.replace(/^\n/, ''));
      return leafParts(part.headers, part.body);
    });
}

function decodeBody(part: Part): string {
  return decodeBytes(part).toString('utf8');
}

function decodeBytes(part: Part): Buffer {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const body = part.body.replace(/\n$/, '');
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1');
  }
  return Buffer.from(body, 'utf8');
}
