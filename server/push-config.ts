// The push settings of the configuration (VAPID_*, FCM_SERVICE_ACCOUNT, PUSH_*), read and
// checked with the rest in server/config.ts. Addresses follow the webhooks' rules
// (WEBHOOK_ALLOWED_NETWORKS), so they are not repeated here.
import { existsSync, readFileSync } from 'node:fs';
import type { Agent } from 'node:https';
import { outboxDeliveryFrom, type Env, type IntReader, type OutboxDeliveryConfig } from './outbox-config.js';

/** The fields of a Google service account key file that sending through FCM needs. */
export interface FcmServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  [field: string]: unknown;
}

/** PUSH_TIMEOUT_MS, _MAX_ATTEMPTS (default 6), _RETRY_BASE_MS, _RETRY_MAX_MS, _CONCURRENCY, and: */
export interface PushConfig extends OutboxDeliveryConfig {
  /** VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (base64url) when both are set; unset, the key pair kept in the database is used. */
  vapidKeys: { publicKey: string; privateKey: string } | undefined;
  /** VAPID_SUBJECT: a mailto: or https: URL a push service can reach the operator at; default mailto: the MAIL_FROM address. */
  vapidSubject: string;
  /** FCM_SERVICE_ACCOUNT (a key file's path or its JSON); unset, pushes to FCM device tokens are failed with a reason. */
  fcm: { serviceAccount: FcmServiceAccount; agent?: Agent } | undefined;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function pushConfigFrom(env: Env, int: IntReader, mailFrom: string, problems: string[]): PushConfig {
  const publicKey = env.VAPID_PUBLIC_KEY?.trim() || undefined;
  const privateKey = env.VAPID_PRIVATE_KEY?.trim() || undefined;
  let vapidKeys: PushConfig['vapidKeys'];
  if (publicKey || privateKey) {
    if (!publicKey || !privateKey) problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together');
    else if (!isBase64urlOf(publicKey, 65) || Buffer.from(publicKey, 'base64url')[0] !== 4) problems.push('VAPID_PUBLIC_KEY must be an uncompressed P-256 public key in base64url (65 bytes)');
    else if (!isBase64urlOf(privateKey, 32)) problems.push('VAPID_PRIVATE_KEY must be a P-256 private key in base64url (32 bytes)');
    else vapidKeys = { publicKey, privateKey };
  }
  const address = /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom;
  const vapidSubject = env.VAPID_SUBJECT?.trim() || `mailto:${address}`;
  if (!/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/.test(vapidSubject)) problems.push('VAPID_SUBJECT must be a mailto: address or an https: URL');
  return {
    vapidKeys,
    vapidSubject,
    fcm: fcmFrom(env.FCM_SERVICE_ACCOUNT?.trim(), problems),
    ...outboxDeliveryFrom('PUSH', int, 6),
  };
}

function isBase64urlOf(text: string, bytes: number): boolean {
  return BASE64URL.test(text) && Buffer.from(text, 'base64url').length === bytes;
}

/** The service account from inline JSON or a file; undefined (with a problem) when unusable. */
function fcmFrom(setting: string | undefined, problems: string[]): PushConfig['fcm'] {
  if (!setting) return undefined;
  let json: string;
  if (setting.startsWith('{')) json = setting;
  else if (existsSync(setting)) json = readFileSync(setting, 'utf8');
  else {
    problems.push(`FCM_SERVICE_ACCOUNT: no file at ${setting} (give a service account key file's path or its JSON)`);
    return undefined;
  }
  let account: Partial<FcmServiceAccount>;
  try {
    account = JSON.parse(json);
  } catch {
    problems.push('FCM_SERVICE_ACCOUNT is not valid JSON');
    return undefined;
  }
  const missing = (['project_id', 'client_email', 'private_key'] as const).filter((field) => typeof account[field] !== 'string' || account[field] === '');
  if (missing.length > 0) {
    problems.push(`FCM_SERVICE_ACCOUNT lacks ${missing.join(', ')} (a Firebase service account key file has them)`);
    return undefined;
  }
  return { serviceAccount: account as FcmServiceAccount };
}
