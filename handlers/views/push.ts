import type { components } from '../../generated/api.js';
import type { PushSubscriptionRow } from '../../db/push-deliveries.js';

export type PushSubscriptionView = components['schemas']['PushSubscription'];

/** The subscription as the API shows it: never a browser's keys. */
export function toPushSubscription(row: PushSubscriptionRow): PushSubscriptionView {
  return {
    id: row.id,
    kind: row.kind,
    endpoint: row.kind === 'fcm' ? null : row.address,
    token: row.kind === 'fcm' ? row.address : null,
    expires_at: row.expires_at?.toISOString() ?? null,
    last_success_at: row.last_success_at?.toISOString() ?? null,
    last_failure_at: row.last_failure_at?.toISOString() ?? null,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
