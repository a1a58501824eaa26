// The admin area as the API shows it: metrics in their generic shape, users with their
// details, outreach campaigns.
import type { components } from '../../generated/api.js';
import type { AdminUserRow } from '../../db/admin-users.js';
import type { OutreachRow, StoredAttachment } from '../../db/outreach.js';
import { toUser, type UserView } from './user.js';

type Schemas = components['schemas'];
export type AdminMetricView = Schemas['AdminMetric'];
export type AdminMetricGroupView = Schemas['AdminMetricGroup'];
export type OutreachView = Schemas['Outreach'];

const metric = (key: string, label: string, type: AdminMetricView['type']): AdminMetricView => ({
  key,
  label,
  type,
  value: null,
  series: [],
  rows: [],
  unit: null,
});

/** A single figure (`count`, or `sum` for a computed figure). */
export const countMetric = (key: string, label: string, value: number, type: 'count' | 'sum' = 'count'): AdminMetricView => ({
  ...metric(key, label, type),
  value,
});

export const seriesMetric = (key: string, label: string, series: Array<{ date: string; value: number }>): AdminMetricView => ({
  ...metric(key, label, 'series'),
  series,
});

export const rankingMetric = (key: string, label: string, rows: Array<{ label: string; value: number }>): AdminMetricView => ({
  ...metric(key, label, 'ranking'),
  rows,
});

export const metricGroup = (key: string, label: string, metrics: AdminMetricView[]): AdminMetricGroupView => ({ key, label, metrics });

export function toAdminUser(row: AdminUserRow): UserView {
  const { avatar_url, ...user } = row;
  return toUser(user, avatar_url);
}

export interface AdminUserDetails {
  counts: Schemas['AdminUserDetail']['counts'];
  preferences: Schemas['AdminUserDetail']['preferences'];
  lastTransactionAt: Date | null;
}

export function toAdminUserDetail(row: AdminUserRow, details: AdminUserDetails): Schemas['AdminUserDetail'] {
  return {
    user: toAdminUser(row),
    counts: details.counts,
    preferences: details.preferences,
    last_transaction_at: details.lastTransactionAt?.toISOString() ?? null,
  };
}

export function toOutreach(row: OutreachRow): OutreachView {
  return {
    id: row.id,
    sender_id: row.sender_id,
    subject: row.subject,
    body: row.body,
    cta_label: row.cta_label,
    cta_url: row.cta_url,
    image_url: row.image_url,
    audience: row.audience,
    attachments: (row.attachments as StoredAttachment[]).map((a) => ({ name: a.name, mime_type: a.mime_type, size: a.size ?? 0 })),
    recipients: row.recipients_count,
    sent: row.sent,
    failed: row.failed,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
