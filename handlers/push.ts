// Push: the caller's subscriptions (an addition to the interface; docs/push.md) and what a
// browser needs to subscribe. Pushes themselves are queued by notifyUser
// (db/notification-delivery.ts) and sent by the deliver-push job.
import { deleteSubscription, subscriptionPage, upsertSubscription, type SubscriptionValues } from '../db/push-subscriptions.js';
import { base64Bytes, isP256Point } from '../domain/push-keys.js';
import type { components } from '../generated/api.js';
import { created, done, ok } from '../server/envelope.js';
import { HttpError, notFound, validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { pageRequest } from './shared/records.js';
import { checkedTargetUrl } from './shared/target-url.js';
import { toPushSubscription } from './views/push.js';

type SubscriptionRequest = components['schemas']['PushSubscriptionRequest'];

/** The request checked for its kind, as stored; 422 keyed by every field that is wrong. */
function subscriptionValues(body: SubscriptionRequest, services: AppServices): SubscriptionValues {
  const kind = body.kind ?? 'webpush';
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);
  const refuseUnless = (field: 'endpoint' | 'keys' | 'token' | 'expirationTime', allowed: boolean) => {
    if (!allowed && body[field] !== undefined && body[field] !== null) fail(field, `The ${field} field is not used by ${kind} subscriptions.`);
  };
  refuseUnless('endpoint', kind !== 'fcm');
  refuseUnless('keys', kind === 'webpush');
  refuseUnless('token', kind === 'fcm');
  refuseUnless('expirationTime', kind === 'webpush');

  let address = '';
  if (kind === 'fcm') {
    if (body.token === undefined) fail('token', 'The token field is required for fcm subscriptions.');
    else address = body.token;
  } else if (body.endpoint === undefined) {
    fail('endpoint', `The endpoint field is required for ${kind} subscriptions.`);
  } else {
    try {
      address = checkedTargetUrl(body.endpoint, 'endpoint', services, kind === 'ntfy' ? "give an ntfy access token as ?auth= instead" : 'a push service URL has none');
      if (kind === 'ntfy' && new URL(address).pathname.replace(/\/+$/, '') === '') fail('endpoint', 'The endpoint must be a topic URL, such as https://ntfy.sh/my-topic.');
    } catch (error) {
      if (!(error instanceof HttpError) || !error.errors) throw error;
      Object.assign(errors, error.errors);
    }
  }

  let p256dh: string | null = null;
  let auth: string | null = null;
  if (kind === 'webpush') {
    if (!body.keys) fail('keys', 'The keys field (p256dh and auth) is required for webpush subscriptions.');
    else {
      const point = base64Bytes(body.keys.p256dh);
      if (!point || !isP256Point(point)) fail('keys.p256dh', 'The keys.p256dh must be an uncompressed P-256 public key in base64url (65 bytes).');
      else p256dh = point.toString('base64url');
      const secret = base64Bytes(body.keys.auth);
      if (!secret || secret.length !== 16) fail('keys.auth', 'The keys.auth must be a 16-byte secret in base64url.');
      else auth = secret.toString('base64url');
    }
  }
  let expiresAt: Date | null = null;
  if (kind === 'webpush' && typeof body.expirationTime === 'number') {
    expiresAt = new Date(body.expirationTime);
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getUTCFullYear() > 9999) fail('expirationTime', 'The expirationTime must be a time in milliseconds since the epoch.');
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { kind, address, p256dh, auth, expires_at: expiresAt };
}

export const pushHandlers = {
  getPushServer: async ({ services }: HandlerContext<'getPushServer'>) => {
    const keys = await services.vapidKeys();
    return ok({ vapid_public_key: keys.publicKey, kinds: services.config.push.fcm ? ['webpush', 'fcm', 'ntfy'] : ['webpush', 'ntfy'] });
  },

  listPushSubscriptions: async ({ db, user, query, services }: HandlerContext<'listPushSubscriptions'>) => {
    const { rows, meta } = await subscriptionPage(db, user.id, { ...pageRequest(query), now: services.now() });
    return ok({ ...meta, data: rows.map(toPushSubscription) });
  },

  registerPushSubscription: async ({ db, user, body, services }: HandlerContext<'registerPushSubscription'>) => {
    const { row, created: isNew } = await upsertSubscription(db, user.id, subscriptionValues(body, services), services.now());
    return isNew ? created(toPushSubscription(row), 'Push subscription registered') : ok(toPushSubscription(row), 'Push subscription updated');
  },

  deletePushSubscription: async ({ db, user, params }: HandlerContext<'deletePushSubscription'>) => {
    if (!(await deleteSubscription(db, user.id, params.id))) throw notFound('Push subscription');
    return done('Push subscription deleted');
  },
} satisfies Partial<Handlers>;
