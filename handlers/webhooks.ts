// Webhooks: the caller's endpoints (an addition to the interface; docs/webhooks.md), their
// deliveries with the attempts made, and re-sends. Events themselves are written by the code
// that makes each change (db/webhook-outbox.ts) and sent by the deliver-webhooks job.
import { DELIVER_WEBHOOKS_JOB } from '../db/job-names.js';
import {
  attemptsOf,
  deleteEndpoint,
  deliveryPage,
  endpointPage,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  requeueDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookEndpointRow,
} from '../db/webhook-endpoints.js';
import { created, done, ok } from '../server/envelope.js';
import { notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { pageRequest } from './shared/records.js';
import { checkedTargetUrl } from './shared/target-url.js';
import { toWebhookDelivery, toWebhookEndpoint, withSecret } from './views/webhook.js';

/** The URL as stored; 422 on `url` for one that must not be an endpoint. */
const checkedUrl = (text: string, services: AppServices) => checkedTargetUrl(text, 'url', services, 'authenticate requests by their signature');

async function endpointOr404(ctx: { db: HandlerContext<'getWebhookEndpoint'>['db']; user: { id: number } }, id: number): Promise<WebhookEndpointRow> {
  const endpoint = await findEndpoint(ctx.db, ctx.user.id, id);
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

export const webhookHandlers = {
  listWebhookEndpoints: async ({ db, user, query, services }: HandlerContext<'listWebhookEndpoints'>) => {
    const { rows, meta } = await endpointPage(db, user.id, { ...pageRequest(query), now: services.now() });
    return ok({ ...meta, data: rows.map(toWebhookEndpoint) });
  },

  createWebhookEndpoint: async ({ db, user, body, services }: HandlerContext<'createWebhookEndpoint'>) => {
    const url = checkedUrl(body.url, services);
    const row = await insertEndpoint(db, user.id, { url, event_kinds: body.event_kinds, active: body.active ?? true }, services.now());
    return created(withSecret(row), 'Webhook endpoint created. Store its secret now: it is not shown again.');
  },

  getWebhookEndpoint: async (ctx: HandlerContext<'getWebhookEndpoint'>) => ok(toWebhookEndpoint(await endpointOr404(ctx, ctx.params.id))),

  updateWebhookEndpoint: async ({ db, user, params, body, services }: HandlerContext<'updateWebhookEndpoint'>) => {
    const url = body.url === undefined ? undefined : checkedUrl(body.url, services);
    const row = await updateEndpoint(db, user.id, params.id, { url, event_kinds: body.event_kinds, active: body.active }, services.now());
    if (!row) throw notFound('Webhook endpoint');
    // turned on again: its pending deliveries go out now
    if (body.active === true) await services.jobs.send(DELIVER_WEBHOOKS_JOB);
    return ok(toWebhookEndpoint(row), 'Webhook endpoint updated');
  },

  deleteWebhookEndpoint: async ({ db, user, params }: HandlerContext<'deleteWebhookEndpoint'>) => {
    if (!(await deleteEndpoint(db, user.id, params.id))) throw notFound('Webhook endpoint');
    return done('Webhook endpoint deleted');
  },

  rotateWebhookSecret: async ({ db, user, params, services }: HandlerContext<'rotateWebhookSecret'>) => {
    const row = await rotateEndpointSecret(db, user.id, params.id, services.now(), services.config.webhooks.secretGraceSeconds);
    if (!row) throw notFound('Webhook endpoint');
    return ok(withSecret(row), 'Webhook secret rotated. Store it now: it is not shown again.');
  },

  listWebhookDeliveries: async (ctx: HandlerContext<'listWebhookDeliveries'>) => {
    const { db, user, params, query, services } = ctx;
    const endpoint = await endpointOr404(ctx, params.id);
    const { rows, meta } = await deliveryPage(db, user.id, endpoint.id, { ...pageRequest(query), now: services.now(), status: query.status });
    const attempts = await attemptsOf(db, rows.map((row) => row.id));
    return ok({ ...meta, data: rows.map((row) => toWebhookDelivery(row, attempts.get(row.id) ?? [])) });
  },

  redeliverWebhook: async (ctx: HandlerContext<'redeliverWebhook'>) => {
    const { db, user, params, services } = ctx;
    const endpoint = await endpointOr404(ctx, params.id);
    const delivery = await findDelivery(db, user.id, endpoint.id, params.delivery);
    if (!delivery) throw notFound('Webhook delivery');
    await requeueDelivery(db, delivery.id, services.now());
    await services.jobs.send(DELIVER_WEBHOOKS_JOB);
    const requeued = (await findDelivery(db, user.id, endpoint.id, delivery.id))!;
    const attempts = await attemptsOf(db, [delivery.id]);
    return ok(toWebhookDelivery(requeued, attempts.get(delivery.id) ?? []), 'Webhook delivery queued again');
  },
} satisfies Partial<Handlers>;
