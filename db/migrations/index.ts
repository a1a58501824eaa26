// The numbered migrations, for a Kysely Migrator with a custom provider:
//
//   new Migrator({ db, provider: { getMigrations: async () => migrations } })
//
// Keys sort in execution order. Never edit a migration that has run anywhere: add the next
// number instead.
import type { Migration } from 'kysely';
import * as m001 from './001_accounts.js';
import * as m002 from './002_ledger.js';
import * as m003 from './003_budgets.js';
import * as m004 from './004_notifications.js';
import * as m005 from './005_imports.js';
import * as m006 from './006_assistant.js';
import * as m007 from './007_market.js';
import * as m008 from './008_mail.js';
import * as m009 from './009_oauth_states.js';
import * as m010 from './010_engagement_sends.js';
import * as m011 from './011_import_suggestion_matches.js';
import * as m012 from './012_sync_stamps.js';
import * as m013 from './013_statistics_index.js';
import * as m014 from './014_import_column_mappings.js';
import * as m015 from './015_zero_budgets.js';
import * as m019 from './019_code_guess_window.js';
import * as m020 from './020_duplicate_lookup.js';
import * as m021 from './021_statistics_summary.js';
import * as m022 from './022_transaction_list_totals.js';
import * as m023 from './023_budget_summary.js';
import * as m024 from './024_statistics_month_sums.js';
import * as m025 from './025_import_suggestion_counts.js';
import * as m026 from './026_link_wallet_locks.js';
import * as m027 from './027_import_suggestions_user_key.js';
import * as m028 from './028_statistics_year_sums.js';
import * as m029 from './029_cheaper_ledger_inserts.js';
import * as m030 from './030_import_suggestion_matches_unkeyed.js';
import * as m031 from './031_import_suggestion_marks_hot.js';
import * as m032 from './032_app_key.js';
import * as m033 from './033_user_versions.js';
import * as m034 from './034_webhooks.js';
import * as m035 from './035_file_blobs.js';
import * as m036 from './036_push_subscriptions.js';
import * as m037 from './037_webhook_standard_secrets.js';
import * as m039 from './039_mcp_tokens.js';
import * as m040 from './040_rules.js';
import * as m042 from './042_bank_connections.js';
import * as m043 from './043_rule_proposals.js';
import * as m044 from './044_mcp_oauth.js';
import * as m046 from './046_transaction_splits.js';
import * as m047 from './047_transaction_day_counts.js';
import * as m049 from './049_link_trigger_plans.js';

export const migrations: Record<string, Migration> = {
  '001_accounts': m001,
  '002_ledger': m002,
  '003_budgets': m003,
  '004_notifications': m004,
  '005_imports': m005,
  '006_assistant': m006,
  '007_market': m007,
  '008_mail': m008,
  '009_oauth_states': m009,
  '010_engagement_sends': m010,
  '011_import_suggestion_matches': m011,
  '012_sync_stamps': m012,
  '013_statistics_index': m013,
  '014_import_column_mappings': m014,
  '015_zero_budgets': m015,
  '019_code_guess_window': m019,
  '020_duplicate_lookup': m020,
  '021_statistics_summary': m021,
  '022_transaction_list_totals': m022,
  '023_budget_summary': m023,
  '024_statistics_month_sums': m024,
  '025_import_suggestion_counts': m025,
  '026_link_wallet_locks': m026,
  '027_import_suggestions_user_key': m027,
  '028_statistics_year_sums': m028,
  '029_cheaper_ledger_inserts': m029,
  '030_import_suggestion_matches_unkeyed': m030,
  '031_import_suggestion_marks_hot': m031,
  '032_app_key': m032,
  '033_user_versions': m033,
  '034_webhooks': m034,
  '035_file_blobs': m035,
  '036_push_subscriptions': m036,
  '037_webhook_standard_secrets': m037,
  '039_mcp_tokens': m039,
  '040_rules': m040,
  '042_bank_connections': m042,
  '043_rule_proposals': m043,
  '044_mcp_oauth': m044,
  '046_transaction_splits': m046,
  '047_transaction_day_counts': m047,
  '049_link_trigger_plans': m049,
};
