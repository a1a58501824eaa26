import type { components } from '../../generated/api.js';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../db/webhook-endpoints.js';

export type WebhookEndpointView = components['schemas']['WebhookEndpoint'];
export type WebhookDeliveryView = components['schemas']['WebhookDelivery'];

/** The endpoint as the API shows it: never its secret (see withSecret). */
export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    event_kinds: row.event_kinds,
    active: row.active,
    failing_since: row.failing_since?.toISOString() ?? null,
    consecutive_failures: row.consecutive_failures,
    previous_secret_expires_at: row.previous_secret_until?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The endpoint with its secret: only in the answers that make one. */
export function withSecret(row: WebhookEndpointRow): components['schemas']['WebhookEndpointWithSecret'] {
  return { ...toWebhookEndpoint(row), secret: row.secret };
}

export function toWebhookDelivery(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): WebhookDeliveryView {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_kind: row.event_kind,
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    attempts: attempts.map((attempt) => ({
      attempted_at: attempt.attempted_at.toISOString(),
      duration_ms: attempt.duration_ms,
      status_code: attempt.status_code,
      error: attempt.error,
    })),
  };
}
