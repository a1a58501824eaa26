// The records as each reference client reads them (reference/clients.md §2.4, §4, §5), built
// from the shapes of shapes.ts. Mobile shapes are what its strict decoders require.
import { oneOf, oneOfOrNull, optional, type Shape } from './shapes.js';

/** Enum values the mobile app decodes strictly (clients.md §0.9). */
export const ENUMS = {
  walletType: ['bank', 'cash', 'credit_card', 'mobile'],
  entryType: ['income', 'expense'],
  partyType: ['individual', 'organization', 'business', 'partnership', 'non_profit', 'government_agency', 'educational_institution', 'healthcare_provider'],
  configType: ['string', 'int', 'float', 'bool', 'array', 'json', 'date'],
  notificationType: ['reminder', 'alert', 'achievement', 'system'],
  iconType: ['emoji', 'image', 'icon'],
} as const;

export const envelope = (data: Shape): Shape => ({ success: oneOf(true), message: 'string', data });
/** A list page as mobile reads it: the counters it pages with and the rows. */
export const mobilePage = (item: Shape): Shape => envelope({ data: [item], current_page: 'int', last_page: 'int', per_page: 'int' });
/** A list page as the web reads it. */
export const webPage = (item: Shape, extra: Record<string, Shape> = {}): Shape => envelope({ data: [item], last_sync: 'iso?', ...extra });

// ------------------------------------------------------------------ mobile (§2.4, §5)

const mobileIcon = optional({ id: 'int?', content: 'string?', type: oneOf(...ENUMS.iconType), image: 'any?' });

export const mobileSyncState: Shape = {
  id: 'int',
  syncable_type: 'string',
  syncable_id: 'int',
  source: 'string?',
  client_generated_id: 'string?',
  last_synced_at: 'iso',
  created_at: 'iso',
  updated_at: 'iso',
};

const syncTail = { created_at: 'iso', updated_at: 'iso', deleted_at: 'iso?', last_synced_at: 'iso?' } as const;

/** `client_generated_id`: nullable in lists, required in single responses and when nested (§5). */
function withClientId(fields: Record<string, Shape>, single: boolean): Shape {
  return { ...fields, client_generated_id: single ? 'string' : 'string?' };
}

export const mobileWallet = (single = false): Shape =>
  withClientId(
    {
      id: 'int',
      user_id: 'int',
      name: 'string',
      currency: 'string',
      balance: 'numeric',
      type: oneOfOrNull(...ENUMS.walletType),
      description: 'string?',
      stats: optional({ total_income: 'number', total_expense: 'number' }),
      icon: mobileIcon,
      sync_state: mobileSyncState,
      ...syncTail,
    },
    single,
  );

export const mobileCategory = (single = false): Shape =>
  withClientId({ id: 'int', user_id: 'int?', name: 'string', slug: 'string', type: oneOf(...ENUMS.entryType), description: 'string?', icon: mobileIcon, ...syncTail }, single);

export const mobileParty = (single = false): Shape =>
  withClientId({ id: 'int', user_id: 'int?', name: 'string', type: oneOfOrNull(...ENUMS.partyType), description: 'string?', icon: mobileIcon, ...syncTail }, single);

export const mobileGroup = (single = false): Shape =>
  withClientId({ id: 'int', user_id: 'int?', name: 'string', description: 'string?', icon: mobileIcon, ...syncTail }, single);

export const mobileConfig = (single = false): Shape =>
  withClientId({ id: 'int', user_id: 'int?', key: 'string', type: oneOf(...ENUMS.configType), value: 'any?', ...syncTail }, single);

export const mobileNotification: Shape = {
  id: 'int',
  user_id: 'int?',
  type: oneOf(...ENUMS.notificationType),
  title: 'string',
  body: 'string',
  data: 'object',
  read_at: 'iso?',
  client_generated_id: 'string?',
  ...syncTail,
};

export const mobileTransaction = (single = false): Shape => ({
  id: 'int',
  user_id: 'int',
  amount: 'numeric',
  type: oneOf(...ENUMS.entryType),
  created_at: 'iso',
  updated_at: 'iso',
  last_synced_at: 'iso',
  deleted_at: 'iso?',
  client_generated_id: single ? 'string' : 'string?',
  description: 'string?',
  datetime: 'iso?',
  wallet_id: 'int?',
  sync_state: mobileSyncState,
  wallet: mobileWallet(true),
  categories: [mobileCategory(true)],
  party: optional(mobileParty(true)),
  group: optional(mobileGroup(true)),
  files: optional([{ path: 'string', id: 'int?' }]),
});

// ------------------------------------------------------------------ web (§4.1)

const webIcon = optional({ path: 'string?', content: 'string?' });

export const webWallet: Shape = {
  id: 'int',
  name: 'string',
  type: oneOf(...ENUMS.walletType),
  description: 'string?',
  currency: 'string',
  balance: 'number',
  stats: { total_income: 'number', total_expense: 'number' },
  icon: webIcon,
  client_generated_id: 'string?',
  sync_state: { client_generated_id: 'string?' },
};
export const webCategory: Shape = { id: 'int', name: 'string', description: 'string?', type: oneOf(...ENUMS.entryType), icon: webIcon };
export const webParty: Shape = { id: 'int', name: 'string', type: oneOfOrNull(...ENUMS.partyType), description: 'string?', icon: 'any?', sync_state: { client_generated_id: 'string?' }, updated_at: 'iso' };
export const webGroup: Shape = { id: 'int', name: 'string', description: 'string?', icon: optional({ content: 'string?' }), client_generated_id: 'string?' };
export const webConfig: Shape = { key: 'string', value: 'any?' };
export const webTransaction: Shape = {
  id: 'int',
  type: oneOf(...ENUMS.entryType),
  amount: 'numeric',
  description: 'string?',
  datetime: 'iso',
  group_id: 'int?',
  categories: [{ id: 'int', name: 'string' }],
  is_recurring: 'bool',
  transfer_id: 'int?',
  wallet: optional({ id: 'int', name: 'string', currency: 'string' }),
  wallet_client_generated_id: 'string?',
  party: optional({ id: 'int', name: 'string' }),
  party_client_generated_id: 'string?',
  files: ['object'],
};
export const webReminder: Shape = {
  id: 'int',
  title: 'string',
  description: 'string?',
  type: oneOf('daily_tracking', 'weekly_review', 'monthly_summary', 'bill_due', 'budget_alert', 'custom'),
  trigger_at: 'iso?',
  timezone: 'string',
  repeat_rule: 'string?',
  next_trigger_at: 'iso?',
  status: oneOf('active', 'paused', 'snoozed', 'completed', 'cancelled'),
  priority: oneOf(0, 1, 2),
};
export const webNotification: Shape = { id: 'int', type: oneOf(...ENUMS.notificationType), title: 'string', body: 'string', read_at: 'iso?', created_at: 'iso' };
export const webUser: Shape = { id: 'int', first_name: 'string', last_name: 'string?', email: 'string', username: 'string?', avatar_url: 'string?' };
/** Mobile's local users table (§1.2). */
export const mobileUser: Shape = {
  id: 'int',
  email: 'string',
  first_name: 'string',
  last_name: 'string?',
  username: 'string?',
  phone: 'string?',
  avatar: 'any?',
  created_at: 'iso?',
  updated_at: 'iso?',
};
const share: Shape = { name: 'string', amount: 'number', percentage: 'number', transaction_count: 'int' };
export const webStats: Shape = {
  overview: { net_cash_flow: 'number', total_income: 'number', total_expenses: 'number', avg_monthly_income: 'number', avg_monthly_expenses: 'number', savings_rate: 'number' },
  comparisons: { previous_period: { income_change_percent: 'number?' } },
  top_categories: { income: [{ name: 'string', amount: 'number', percentage: 'number' }], expenses: [{ name: 'string', amount: 'number', percentage: 'number' }] },
  charts: {
    party_income: [share],
    party_spending: [share],
    income_sources: [share],
    category_spending: [share],
    monthly_cash_flow: [{ period: 'string', income: 'number', expense: 'number', net: 'number' }],
  },
};
