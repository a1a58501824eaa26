// The push services, one adapter each, behind one `send`: Web Push (RFC 8030, encrypted per
// RFC 8291 aes128gcm and signed with VAPID per RFC 8292 by the web-push package, then POSTed
// under the webhooks' address rules), Firebase Cloud Messaging (firebase-admin, when a service
// account is configured) and ntfy topics (a plain POST, per ntfy's publish API). Each answer is
// sorted into what the outbox does next: sent, retry later, failed for good, or gone (the
// service no longer knows the subscription: 404/410, FCM's UNREGISTERED).
import { randomUUID } from 'node:crypto';
import type { App } from 'firebase-admin/app';
import webpush from 'web-push';
import type { PushMessage, PushSubscriptionRow } from '../db/push-deliveries.js';
import type { VapidKeyPair } from '../db/vapid-keys.js';
import type { PushConfig } from './push-config.js';
import { postToTarget, type AttemptOutcome } from './webhook-sender.js';
import type { TargetPolicy } from './webhook-targets.js';

export type PushOutcome = { kind: 'sent' } | { kind: 'retry'; error: string } | { kind: 'failed'; error: string } | { kind: 'gone'; error: string };

/** A Web Push record holds at most 4096 bytes; encryption adds 103 to the plaintext. */
const PAYLOAD_LIMIT = 3800;
/** How long a push service keeps a message for a device that is offline (Web Push TTL). */
const TIME_TO_LIVE_SECONDS = 24 * 3600;
/** FCM answers that are worth another try later; anything else will not improve. */
const FCM_TRANSIENT = new Set(['server-unavailable', 'internal-error', 'message-rate-exceeded', 'device-message-rate-exceeded', 'unknown-error', 'network-error', 'network-timeout']);

/**
 * The message as JSON within the services' size limit: the extra `data` goes first, then the
 * body is shortened.
 */
export function pushPayload(message: PushMessage): string {
  let text = JSON.stringify(message);
  if (Buffer.byteLength(text) <= PAYLOAD_LIMIT) return text;
  const lean = { ...message, data: {} };
  text = JSON.stringify(lean);
  const excess = Buffer.byteLength(text) - PAYLOAD_LIMIT;
  if (excess <= 0) return text;
  return JSON.stringify({ ...lean, body: truncate(message.body, Buffer.byteLength(message.body) - excess - 8) });
}

function truncate(text: string, bytes: number): string {
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > bytes) break;
    out += char;
  }
  return `${out}…`;
}

/** An HTTP push service's answer: 2xx sent; 404/410 gone; 429, 5xx and no answer retried; any other failed. */
function outcomeOfPost(outcome: AttemptOutcome): PushOutcome {
  if (outcome.ok) return { kind: 'sent' };
  const error = outcome.error ?? `HTTP ${outcome.statusCode}`;
  const status = outcome.statusCode;
  if (status === 404 || status === 410) return { kind: 'gone', error };
  if (status === null ? !error.startsWith('refused:') : status === 429 || status >= 500) return { kind: 'retry', error };
  return { kind: 'failed', error };
}

/** ntfy reads the title from a header: non-ASCII text is sent RFC 2047-encoded, which ntfy decodes. */
function headerText(text: string): string {
  const oneLine = text.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine).toString('base64')}?=`;
}

export class PushSenders {
  private fcmApp: Promise<App> | undefined;

  constructor(
    private readonly config: PushConfig,
    private readonly policy: TargetPolicy,
    private readonly vapidKeys: () => Promise<VapidKeyPair>,
  ) {}

  async send(subscription: PushSubscriptionRow, message: PushMessage): Promise<PushOutcome> {
    switch (subscription.kind) {
      case 'webpush':
        return this.sendWebPush(subscription, message);
      case 'ntfy':
        return this.sendNtfy(subscription, message);
      case 'fcm':
        return this.sendFcm(subscription, message);
    }
  }

  private async sendWebPush(subscription: PushSubscriptionRow, message: PushMessage): Promise<PushOutcome> {
    const keys = await this.vapidKeys();
    const request = webpush.generateRequestDetails({ endpoint: subscription.address, keys: { p256dh: subscription.p256dh!, auth: subscription.auth! } }, pushPayload(message), {
      vapidDetails: { subject: this.config.vapidSubject, publicKey: keys.publicKey, privateKey: keys.privateKey },
      TTL: TIME_TO_LIVE_SECONDS,
      contentEncoding: 'aes128gcm',
    });
    // content-length is set by the sender from the body
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'content-length').map(([name, value]) => [name, String(value)]));
    return outcomeOfPost(await postToTarget({ url: request.endpoint, headers, body: request.body ?? Buffer.alloc(0) }, this.policy, this.config.timeoutMs));
  }

  private async sendNtfy(subscription: PushSubscriptionRow, message: PushMessage): Promise<PushOutcome> {
    const outcome = await postToTarget(
      {
        url: subscription.address,
        headers: { 'content-type': 'text/plain; charset=utf-8', title: headerText(message.title), tags: message.type, 'user-agent': 'finance-push/1' },
        body: message.body || message.title,
      },
      this.policy,
      this.config.timeoutMs,
    );
    return outcomeOfPost(outcome);
  }

  private async sendFcm(subscription: PushSubscriptionRow, message: PushMessage): Promise<PushOutcome> {
    if (!this.config.fcm) return { kind: 'failed', error: 'FCM is not configured on this server (FCM_SERVICE_ACCOUNT)' };
    const { getMessaging } = await import('firebase-admin/messaging');
    const messaging = getMessaging(await this.firebaseApp());
    const payload = JSON.parse(pushPayload(message)) as PushMessage;
    const send = messaging.send({
      token: subscription.address,
      notification: { title: payload.title, body: payload.body },
      // FCM data values are strings
      data: { type: payload.type, topic: payload.topic, notification_id: String(payload.notification_id ?? ''), data: JSON.stringify(payload.data) },
      android: { priority: 'high', ttl: TIME_TO_LIVE_SECONDS * 1000 },
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`timed out after ${this.config.timeoutMs} ms`), { code: 'app/network-timeout' })), this.config.timeoutMs);
    });
    try {
      await Promise.race([send, deadline]);
      return { kind: 'sent' };
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '').replace(/^(messaging|app)\//, '');
      const text = `${code || 'error'}: ${(error as Error).message}`;
      if (code === 'registration-token-not-registered') return { kind: 'gone', error: text };
      return FCM_TRANSIENT.has(code) ? { kind: 'retry', error: text } : { kind: 'failed', error: text };
    } finally {
      clearTimeout(timer);
      send.catch(() => {}); // an attempt abandoned at the deadline may still fail later
    }
  }

  /** One firebase-admin app per sender, made on first use. */
  private firebaseApp(): Promise<App> {
    const fcm = this.config.fcm!;
    return (this.fcmApp ??= import('firebase-admin/app').then(({ initializeApp, cert }) =>
      initializeApp(
        {
          credential: cert({ projectId: fcm.serviceAccount.project_id, clientEmail: fcm.serviceAccount.client_email, privateKey: fcm.serviceAccount.private_key }, fcm.agent),
          projectId: fcm.serviceAccount.project_id,
          httpAgent: fcm.agent,
        },
        `finance-push-${randomUUID()}`,
      ),
    ));
  }

  /** Releases the firebase-admin app, if one was made. */
  async close(): Promise<void> {
    const app = await this.fcmApp?.catch(() => undefined);
    this.fcmApp = undefined;
    if (app) await (await import('firebase-admin/app')).deleteApp(app);
  }
}
