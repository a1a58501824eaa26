// The mail adapter: turns an outbox row into a delivered message. With SMTP_URL it speaks SMTP
// (nodemailer); without, it writes each message as an RFC 822 .eml file under DATA_DIR/outbox,
// built by the same nodemailer composer, so a fresh install can open its codes in any mail
// reader. Only the deliver-emails job uses it: requests queue mail, they never send it.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from './config.js';

export interface MailMessage {
  /** The outbox row's id: names the .eml file. */
  id: number;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  /** Files sent along (an outreach campaign's attachments). */
  attachments?: MailAttachment[];
  /** The Message-ID header to send: the same on every attempt of one outbox row (see deliver-emails). */
  messageId?: string;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailTransport {
  /** 'smtp' or 'outbox', for logs. */
  readonly kind: 'smtp' | 'outbox';
  /** The right-hand side of the Message-IDs it sends: the sender's domain. */
  readonly messageDomain?: string;
  /** Resolves with the Message-ID once the message is accepted; rejects when it is not. */
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

// Far below nodemailer's defaults (minutes): a stuck server must not hold a job run for long.
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export function createMailTransport(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): MailTransport {
  return config.smtpUrl
    ? smtpTransport(config.smtpUrl, config.mailFrom)
    : outboxTransport(path.join(config.dataDir, 'outbox'), config.mailFrom);
}

function mailOptions(message: MailMessage, from: string) {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html ? { html: message.html } : {}),
    ...(message.attachments?.length ? { attachments: message.attachments } : {}),
    ...(message.messageId ? { messageId: message.messageId } : {}),
  };
}

/** The domain of a sender such as `Finance <no-reply@example.com>`. */
function domainOf(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ url, ...SMTP_TIMEOUTS });
  return {
    kind: 'smtp',
    messageDomain: domainOf(from),
    async send(message) {
      const info = await transporter.sendMail(mailOptions(message, from));
      return { messageId: info.messageId };
    },
    close: () => transporter.close(),
  };
}

function outboxTransport(directory: string, from: string): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    messageDomain: domainOf(from),
    async send(message) {
      const info = await composer.sendMail(mailOptions(message, from));
      await mkdir(directory, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${message.id}.eml`;
      // Written aside and renamed, so a reader never sees half a message.
      const partial = path.join(directory, `.${name}.partial`);
      await writeFile(partial, info.message as Buffer);
      await rename(partial, path.join(directory, name));
      return { messageId: info.messageId };
    },
    close: () => composer.close(),
  };
}

/** An SMTP 5xx answer: the server refused for good (bad address, policy); retrying will not help. */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
