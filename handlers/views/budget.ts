// A budget as the API shows it: its columns, its live targets and its current progress; and
// the snapshot of a closed window (period state).
import type { components } from '../../generated/api.js';
import type { BudgetRow, TargetView } from '../../db/budgets.js';
import type { SyncedRow } from '../../db/sync.js';
import type { BudgetProgress } from '../../domain/budget-progress.js';
import { moneyToJson } from '../../domain/money.js';
import { syncFields } from './sync.js';

export type BudgetView = components['schemas']['Budget'];
export type BudgetPeriodStateView = components['schemas']['BudgetPeriodState'];
export type BudgetPeriodStateRow = SyncedRow<'budget_period_states'>;

export function toBudget(row: BudgetRow, targets: TargetView[], progress: BudgetProgress): BudgetView {
  return Object.assign(syncFields(row, 'budget'), {
    owner_id: row.user_id,
    owner_type: 'App\\Models\\User' as const,
    name: row.name,
    slug: row.slug,
    description: row.description,
    amount: moneyToJson(row.amount),
    currency: row.currency,
    period_type: row.period_type,
    start_date: row.start_date,
    end_date: row.end_date,
    rollover_enabled: row.rollover_enabled,
    threshold_percent: row.threshold_percent,
    forecast_alerts_enabled: row.forecast_alerts_enabled,
    is_active: row.is_active,
    targets,
    progress,
  });
}

export function toBudgetPeriodState(row: BudgetPeriodStateRow): BudgetPeriodStateView {
  const { id, client_generated_id, last_synced_at, created_at, updated_at } = syncFields(row, 'budget_period_state');
  return {
    id,
    budget_id: row.budget_id,
    period_start: row.period_start,
    period_end: row.period_end,
    net_spent: moneyToJson(row.net_spent),
    rollover_in: moneyToJson(row.rollover_in),
    rollover_out: moneyToJson(row.rollover_out),
    closed_at: row.closed_at?.toISOString() ?? null,
    client_generated_id,
    last_synced_at,
    created_at,
    updated_at,
  };
}
