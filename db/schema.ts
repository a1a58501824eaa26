// Kysely table types of the database created by db/migrations. Keep in step with the migrations:
// one interface per table, one property per column, named exactly as in SQL.
//
// Runtime value types assumed here (the connection module must set these pg type parsers,
// `pg.types.setTypeParser(oid, fn)`, before the first query):
// - int8 / bigint (oid 20) -> number. Ids are bigint identities, typed `number`; they stay far
//   below 2^53. (pg's default would give strings.) count(*) is int8 too.
// - date (oid 1082) -> the 'YYYY-MM-DD' string as is. (pg's default makes a local-midnight Date,
//   which shifts the day in non-UTC time zones.)
// - numeric (oid 1700) stays a string (pg's default): money is never a JS float. Do arithmetic
//   in SQL or with decimal.js and write strings (`new Decimal(x).toFixed(4)`).
// - timestamptz -> Date (pg's default). Inserts accept a Date or an ISO string.
// - jsonb -> parsed JSON (pg's default). Writes take a JSON *string* (`JSON.stringify(v)`):
//   pg would turn a JS array into a PostgreSQL array literal, which jsonb rejects, so the
//   insert/update types below only accept strings.
import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';
import type { BankTables } from './bank-schema.js';
import type { PushTables } from './push-schema.js';
import type { WebhookTables } from './webhook-schema.js';
import type { RuleAction, RuleCondition } from '../domain/rules/language.js';

// ---- column kinds --------------------------------------------------------------------------

/** bigint generated always as identity: never written. */
export type Id = GeneratedAlways<number>;
/** numeric(p, s), read and written as a decimal string. */
export type Numeric = ColumnType<string, string, string>;
export type NumericWithDefault = ColumnType<string, string | undefined, string>;
export type NullableNumeric = ColumnType<string | null, string | null | undefined, string | null>;
/** timestamptz */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type TimestampWithDefault = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** date, as 'YYYY-MM-DD' */
export type CalendarDate = ColumnType<string, string, string>;
/** jsonb: reads the parsed value, writes a JSON string. */
export type Json<T> = ColumnType<T, string, string>;
export type JsonWithDefault<T> = ColumnType<T, string | undefined, string>;
export type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// ---- enum values (mirrored by check constraints) -----------------------------------------------

export type UserRole = 'user' | 'admin';
export type VerificationChannel = 'email' | 'phone';
export type VerificationPurpose = 'registration' | 'login' | 'password_reset';
export type ConfigurationType = 'string' | 'int' | 'float' | 'bool' | 'array' | 'json' | 'date';
export type FileModel = 'transaction' | 'icon' | 'chat_message' | 'import' | 'outreach';
export type FileType = 'image' | 'pdf' | 'document' | 'icon' | 'emoji';
export type IconType = 'icon' | 'emoji' | 'image';
export type WalletType = 'bank' | 'cash' | 'credit_card' | 'mobile';
export type PartyType =
  | 'individual'
  | 'organization'
  | 'business'
  | 'partnership'
  | 'non_profit'
  | 'government_agency'
  | 'educational_institution'
  | 'healthcare_provider';
export type EntryType = 'income' | 'expense';
export type TransactionIntent =
  | 'regular'
  | 'loan_received'
  | 'loan_repayment'
  | 'debt_owed'
  | 'debt_settled'
  | 'investment_buy'
  | 'investment_return'
  | 'gift'
  | 'fee';
export type RecurrencePeriod = 'daily' | 'weekly' | 'monthly' | 'yearly';
export type BudgetPeriodType = 'weekly' | 'monthly' | 'yearly' | 'custom';
export type BudgetTargetType = 'category' | 'group' | 'wallet';
export type BudgetAlertKind = 'threshold' | 'forecast' | 'over_budget';
export type ReminderType =
  | 'daily_tracking'
  | 'weekly_review'
  | 'monthly_summary'
  | 'bill_due'
  | 'budget_alert'
  | 'custom';
export type ReminderStatus = 'active' | 'paused' | 'snoozed' | 'completed' | 'cancelled';
export type NotificationType = 'reminder' | 'alert' | 'achievement' | 'system';
export type OutreachAudience = 'all' | 'active' | 'inactive' | 'test' | 'specific';
export type OutreachStatus = 'queued' | 'sending' | 'sent' | 'failed';
export type OutreachSendStatus = 'queued' | 'sent' | 'failed' | 'skipped';
export type FileImportStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type ImportSessionStatus =
  | 'analyzing'
  | 'extracting'
  | 'enriching'
  | 'checking'
  | 'ready'
  | 'confirmed'
  | 'failed';
export type ImportDocumentType = 'bank_statement' | 'receipt' | 'invoice' | 'pay_stub' | 'utility_bill';
export type ImportSuggestionStatus = 'pending' | 'confirmed' | 'failed';
export type ChatRole = 'user' | 'assistant' | 'system';
export type ChatMessageStatus = 'pending' | 'processing' | 'completed' | 'failed';
export type ChatFormatHint = 'scalar' | 'pair' | 'record' | 'list' | 'pair_list' | 'table' | 'raw';
export type AgentActionType =
  | 'transaction.create'
  | 'transaction.categorize'
  | 'transaction.attach_file'
  | 'transfer.create'
  | 'wallet.create'
  | 'category.create'
  | 'party.create';
export type AgentActionRisk = 'low' | 'high';
export type AgentActionStatus = 'proposed' | 'confirmed' | 'executed' | 'rejected' | 'failed' | 'expired';

/** The duplicate match stored on an import suggestion. */
export interface DuplicateMatch {
  transaction_id: number;
  match_type: 'exact' | 'near' | 'similar';
  confidence: number;
  transaction_amount: string | number | null;
  transaction_description: string | null;
  transaction_date: string | null;
  transaction_type: EntryType | null;
}

// ---- shared column sets ----------------------------------------------------------------------

/** Columns every synced table carries (client_generated_id is the record-UUID half of client_id). */
export interface SyncColumns {
  client_generated_id: string | null;
  device_id: number | null;
  last_synced_at: TimestampWithDefault;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
  deleted_at: NullableTimestamp;
}

/** The synced tables (they all have the columns of SyncColumns plus user_id). */
export type SyncedTable =
  | 'configurations'
  | 'wallets'
  | 'groups'
  | 'parties'
  | 'categories'
  | 'transfers'
  | 'transactions'
  | 'refunds'
  | 'budgets'
  | 'budget_period_states'
  | 'reminders'
  | 'notifications'
  | 'rules';

interface Timestamps {
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

// ---- 001 accounts ----------------------------------------------------------------------------

export interface UsersTable extends Timestamps {
  id: Id;
  email: string;
  first_name: string;
  last_name: string | null;
  username: string | null;
  phone: string | null;
  password_hash: string | null;
  email_verified_at: NullableTimestamp;
  role: Generated<UserRole>;
}

export interface TokensTable {
  id: Id;
  user_id: number;
  jti: string;
  name: Generated<string>;
  /** 'api' (the API's bearer tokens) or 'mcp' (personal tokens of the MCP server, 039). */
  kind: Generated<'api' | 'mcp'>;
  /** MCP tokens: what they may do, space-separated ('read write'); null for API tokens. */
  scopes: string | null;
  /** Null for MCP personal tokens and OAuth grants, which live until revoked. */
  expires_at: NullableTimestamp;
  /** An MCP OAuth grant (044): the client the user approved; null for every other token. */
  oauth_client_id: string | null;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: TimestampWithDefault;
}

/** Where page N of a `synced_since` feed ended, for one token (012). */
export interface SyncPageMarksTable {
  token_id: number;
  /** The table and every list parameter but the page. */
  feed: string;
  page: number;
  after_stamp: Timestamp;
  after_id: number;
  created_at: TimestampWithDefault;
}

export interface DevicesTable extends Timestamps {
  id: Id;
  user_id: number;
  token: string;
  platform: string | null;
}

export interface OauthAccountsTable extends Timestamps {
  id: Id;
  user_id: number;
  provider: string;
  provider_user_id: string;
  email: string | null;
}

/** 009: a state handed out by GET /oauth/{driver}/login, until its callback uses it. */
export interface OauthStatesTable {
  id: Id;
  provider: string;
  state_hash: string;
  code_verifier: string;
  expires_at: Timestamp;
  created_at: TimestampWithDefault;
}

export interface VerificationCodesTable extends Timestamps {
  id: Id;
  user_id: number | null;
  contact: string;
  channel: Generated<VerificationChannel>;
  purpose: VerificationPurpose;
  code_hash: string;
  attempts: Generated<number>;
  expires_at: Timestamp;
  verified_at: NullableTimestamp;
  consumed_at: NullableTimestamp;
  /** 019: wrong tries of the contact and purpose since window_started_at, across resends */
  window_started_at: NullableTimestamp;
  window_wrong_tries: Generated<number>;
}

export interface ConfigurationsTable extends SyncColumns {
  id: Id;
  user_id: number;
  key: string;
  value: Json<JsonValue>;
  type: Generated<ConfigurationType>;
}

// ---- 002 ledger ------------------------------------------------------------------------------

export interface FilesTable extends Timestamps {
  id: Id;
  user_id: number;
  model: FileModel;
  transaction_id: number | null;
  chat_message_id: number | null;
  path: string;
  original_name: string | null;
  mime_type: string;
  size: number;
  type: FileType;
  metadata: NullableJson<JsonObject>;
}

export interface IconsTable extends Timestamps {
  id: Id;
  user_id: number;
  type: IconType;
  content: string | null;
  file_id: number | null;
}

export interface WalletsTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  slug: string;
  type: WalletType;
  description: string | null;
  currency: string;
  opening_balance: NumericWithDefault;
  balance: NumericWithDefault;
  icon_id: number | null;
  /** Count and sums of the wallet's live transactions by type, kept by triggers (012). */
  income_count: Generated<number>;
  expense_count: Generated<number>;
  income_total: NumericWithDefault;
  expense_total: NumericWithDefault;
}

export interface GroupsTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  slug: string;
  description: string | null;
  icon_id: number | null;
}

/** A rule that files incoming transactions (migration 040); conditions and actions as the API carries them. */
export interface RulesTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  position: number;
  enabled: Generated<boolean>;
  stop_after: Generated<boolean>;
  match: Generated<'all' | 'any'>;
  conditions: Json<RuleCondition[]>;
  actions: Json<RuleAction[]>;
  /** Bumped by the database on every update (migration 040). */
  version: Generated<number>;
}

/** A run of "apply to existing" of one rule (migration 040). */
export interface RuleApplicationsTable {
  id: Id;
  user_id: number;
  rule_id: number;
  state: Generated<'running' | 'done'>;
  after_id: Generated<number>;
  processed: Generated<number>;
  changed: Generated<number>;
  total: number;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

/** A rule proposed from the user's corrections of imported lines (migration 043). */
export interface RuleProposalsTable {
  id: Id;
  user_id: number;
  /** The line's text the rule would test: the statement's counterparty, else its description. */
  field: 'counterparty' | 'description';
  /** The text folded as rules fold it (domain/rules/text.ts foldText). */
  key: string;
  /** The text as the latest corrected line wrote it. */
  text: string;
  kind: 'category' | 'party';
  category_id: number | null;
  party_id: number | null;
  state: Generated<'open' | 'dismissed' | 'accepted'>;
  rule_id: number | null;
  created_at: TimestampWithDefault;
  updated_at: TimestampWithDefault;
}

/** One correction of an imported line's category or party (migration 043). */
export interface RuleCorrectionsTable {
  id: Id;
  user_id: number;
  transaction_id: number;
  kind: 'category' | 'party';
  proposal_id: number;
  from_ids: number[];
  created_at: TimestampWithDefault;
}

/** A legacy CSV import's row as the file wrote it, by the transaction made of it (migration 043). */
export interface ImportedLinesTable {
  transaction_id: number;
  user_id: number;
  counterparty: string | null;
  description: string | null;
}

export interface PartiesTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  type: PartyType | null;
  description: string | null;
  icon_id: number | null;
}

export interface CategoriesTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  slug: string;
  type: EntryType;
  description: string | null;
  icon_id: number | null;
}

export interface TransfersTable extends SyncColumns {
  id: Id;
  user_id: number;
  from_wallet_id: number;
  to_wallet_id: number;
  amount: Numeric;
  received_amount: Numeric;
  exchange_rate: NumericWithDefault;
  datetime: TimestampWithDefault;
}

export interface TransactionsTable extends SyncColumns {
  id: Id;
  user_id: number;
  wallet_id: number;
  type: EntryType;
  amount: Numeric;
  description: string | null;
  datetime: TimestampWithDefault;
  intent: Generated<TransactionIntent>;
  party_id: number | null;
  group_id: number | null;
  transfer_id: number | null;
  is_refund: Generated<boolean>;
  refund_of_transaction_id: number | null;
  /** set on materialised recurring occurrences: the template transaction and the occurrence time */
  recurring_parent_id: number | null;
  recurring_occurrence_at: NullableTimestamp;
  metadata: NullableJson<JsonObject>;
}

export interface TransactionCategoriesTable {
  transaction_id: number;
  category_id: number;
  user_id: number;
  created_at: TimestampWithDefault;
}

/** A line of a split income or expense (046): amounts positive, adding up to the transaction's. */
export interface TransactionSplitsTable {
  id: Id;
  transaction_id: number;
  user_id: number;
  /** 0-based order of the lines. */
  position: number;
  amount: Numeric;
  category_id: number | null;
  party_id: number | null;
  description: string | null;
}

/** Count and sum of live transactions per key (022); category_id 0 counts every transaction. */
export interface TransactionListTotalsTable {
  user_id: number;
  wallet_id: number;
  category_id: number;
  type: string;
  intent: string;
  is_transfer: boolean;
  count: number;
  total: Numeric;
}

/** Live transactions per wallet and UTC day of `datetime` (migration 047): where deep list pages start. */
export interface TransactionDayCountsTable {
  user_id: number;
  wallet_id: number;
  day: string;
  count: number;
}

/** Deltas of a session's suggestion counts, one row per statement that changed them (migration 025); summed on read. */
export interface ImportSuggestionCountsTable {
  import_session_id: number;
  user_id: number;
  total: number;
  duplicates: number;
  imported: number;
}

export interface RecurringRulesTable extends Timestamps {
  id: Id;
  user_id: number;
  transaction_id: number;
  recurrence_period: RecurrencePeriod;
  recurrence_interval: Generated<number>;
  recurrence_ends_at: NullableTimestamp;
  next_scheduled_at: Timestamp;
}

export interface RefundsTable extends SyncColumns {
  id: Id;
  user_id: number;
  refund_transaction_id: number;
  original_transaction_id: number | null;
}

// ---- 003 budgets -----------------------------------------------------------------------------

export interface BudgetsTable extends SyncColumns {
  id: Id;
  user_id: number;
  name: string;
  slug: string;
  description: string | null;
  amount: Numeric;
  currency: string;
  period_type: BudgetPeriodType;
  start_date: CalendarDate;
  end_date: ColumnType<string | null, string | null | undefined, string | null>;
  rollover_enabled: Generated<boolean>;
  threshold_percent: Generated<number>;
  forecast_alerts_enabled: Generated<boolean>;
  is_active: Generated<boolean>;
}

export interface BudgetTargetsTable {
  id: Id;
  user_id: number;
  budget_id: number;
  target_type: BudgetTargetType;
  category_id: number | null;
  group_id: number | null;
  wallet_id: number | null;
  created_at: TimestampWithDefault;
}

export interface BudgetPeriodStatesTable extends SyncColumns {
  id: Id;
  user_id: number;
  budget_id: number;
  period_start: CalendarDate;
  period_end: CalendarDate;
  net_spent: NumericWithDefault;
  rollover_in: NumericWithDefault;
  rollover_out: NumericWithDefault;
  closed_at: NullableTimestamp;
}

// ---- 004 notifications ---------------------------------------------------------------------------

export interface RemindersTable extends SyncColumns {
  id: Id;
  user_id: number;
  title: string;
  description: string | null;
  type: Generated<ReminderType>;
  status: Generated<ReminderStatus>;
  trigger_at: NullableTimestamp;
  due_at: NullableTimestamp;
  /** RFC 5545 RRULE body, e.g. FREQ=DAILY;BYHOUR=20;BYMINUTE=0 */
  repeat_rule: string | null;
  timezone: Generated<string>;
  priority: Generated<number>;
  snoozed_until: NullableTimestamp;
  last_triggered_at: NullableTimestamp;
  next_trigger_at: NullableTimestamp;
  metadata: NullableJson<JsonObject>;
  /** what produced it, e.g. 'threshold' / 'forecast' for budget alerts */
  source: string | null;
  budget_id: number | null;
}

export interface NotificationsTable extends SyncColumns {
  id: Id;
  user_id: number;
  type: Generated<NotificationType>;
  title: string;
  body: Generated<string>;
  data: JsonWithDefault<JsonObject>;
  read_at: NullableTimestamp;
  reminder_id: number | null;
}

export interface NotificationPreferencesTable extends Timestamps {
  user_id: number;
  channel_email: Generated<boolean>;
  channel_push: Generated<boolean>;
  channel_inapp: Generated<boolean>;
  type_reminders: Generated<boolean>;
  type_insights: Generated<boolean>;
  type_inactivity: Generated<boolean>;
}

export interface BudgetAlertsTable {
  id: Id;
  user_id: number;
  budget_id: number;
  kind: BudgetAlertKind;
  period_start: CalendarDate;
  period_end: CalendarDate;
  notification_id: number | null;
  reminder_id: number | null;
  created_at: TimestampWithDefault;
}

export interface OutreachAttachment {
  file_id: number;
  name: string;
  mime_type: string;
}

export interface OutreachMessagesTable extends Timestamps {
  id: Id;
  sender_id: number | null;
  channel: Generated<'email'>;
  subject: string;
  body: string;
  cta_label: string | null;
  cta_url: string | null;
  image_url: string | null;
  audience: OutreachAudience;
  audience_user_ids: NullableJson<number[]>;
  attachments: JsonWithDefault<OutreachAttachment[]>;
  status: Generated<OutreachStatus>;
  recipients_count: Generated<number>;
  sent_count: Generated<number>;
  failed_count: Generated<number>;
}

export interface OutreachSendsTable extends Timestamps {
  id: Id;
  outreach_id: number;
  user_id: number;
  email: string;
  status: Generated<OutreachSendStatus>;
  error: string | null;
  sent_at: NullableTimestamp;
}

// ---- 005 imports -----------------------------------------------------------------------------

export interface FileImportsTable extends Timestamps {
  id: Id;
  user_id: number;
  name: string;
  file_type: string;
  file_id: number | null;
  status: Generated<FileImportStatus>;
  progress: Generated<number>;
  /** -1 until counted */
  num_rows: Generated<number>;
  error: string | null;
}

export interface FailedImportsTable extends Timestamps {
  id: Id;
  user_id: number;
  file_import_id: number;
  row_number: number | null;
  amount: string | null;
  currency: string | null;
  type: string | null;
  party: string | null;
  wallet: string | null;
  category: string | null;
  description: string | null;
  date: string | null;
  reason: string;
  resolved_at: NullableTimestamp;
  transaction_id: number | null;
}

export interface ImportSessionsTable extends Timestamps {
  id: Id;
  user_id: number;
  file_name: string;
  file_type: string;
  document_type: ImportDocumentType | null;
  processor: string | null;
  status: Generated<ImportSessionStatus>;
  file_id: number | null;
  metadata: NullableJson<JsonObject>;
  error: string | null;
  confirmed_at: NullableTimestamp;
}

/** The column mapping a user last confirmed for a CSV header signature (migration 014). */
export interface ImportColumnMappingsTable extends Timestamps {
  id: Id;
  user_id: number;
  header_signature: string;
  mapping: Json<JsonObject>;
}

export interface ImportSuggestionsTable extends Timestamps {
  id: Id;
  user_id: number;
  import_session_id: number;
  /** the zero-based `index` of the suggestion in its session */
  suggestion_index: number;
  amount: NullableNumeric;
  currency: string | null;
  type: EntryType | null;
  party: string | null;
  wallet: string | null;
  category: string | null;
  description: string | null;
  /** as extracted: normally YYYY-MM-DD, CSV keeps the raw text */
  date: string | null;
  confidence: NumericWithDefault;
  document_type: string | null;
  fee: NullableNumeric;
  tax: NullableNumeric;
  account: string | null;
  reference: string | null;
  duplicate: NullableJson<DuplicateMatch>;
  status: Generated<ImportSuggestionStatus>;
  transaction_id: number | null;
  fee_transaction_id: number | null;
  error: string | null;
  confirmed_at: NullableTimestamp;
  /** 011: the caller's records the names matched, and the extractor's warnings */
  wallet_id: number | null;
  party_id: number | null;
  category_id: number | null;
  warnings: JsonWithDefault<string[]>;
}

// ---- 006 assistant ---------------------------------------------------------------------------

export interface ChatSessionsTable extends Timestamps {
  id: Id;
  user_id: number;
  title: string | null;
}

export interface ChatMessagesTable extends Timestamps {
  id: Id;
  user_id: number;
  chat_session_id: number;
  role: ChatRole;
  content: string | null;
  status: ChatMessageStatus | null;
  format_hint: ChatFormatHint | null;
  language: string | null;
  result: NullableJson<JsonObject>;
  progress: NullableJson<string[]>;
  error: string | null;
  completed_at: NullableTimestamp;
}

export interface AgentActionsTable extends Timestamps {
  id: Id;
  user_id: number;
  chat_session_id: number;
  chat_message_id: number | null;
  action_type: AgentActionType;
  payload: Json<JsonObject>;
  summary: string;
  risk: Generated<AgentActionRisk>;
  auto_confirm: Generated<boolean>;
  status: Generated<AgentActionStatus>;
  idempotency_key: string;
  batch_id: string | null;
  tool_name: string | null;
  error: string | null;
  result: NullableJson<JsonObject>;
  confirmed_at: NullableTimestamp;
  executed_at: NullableTimestamp;
  executed_resource_type: string | null;
  executed_resource_id: number | null;
}

// ---- 007 market ------------------------------------------------------------------------------

export interface ExchangeRatesTable extends Timestamps {
  id: Id;
  base_currency: string;
  target_currency: string;
  /** units of target_currency per 1 base_currency, numeric(24,10) */
  rate: Numeric;
  source: Generated<string>;
  fetched_at: TimestampWithDefault;
}

export interface AssetPricesTable extends Timestamps {
  id: Id;
  provider: Generated<string>;
  asset_id: string;
  symbol: string | null;
  name: string | null;
  /** lower-case, as the provider uses it (e.g. 'usd') */
  vs_currency: string;
  price: Numeric;
  fetched_at: TimestampWithDefault;
}

// ---- 008 mail --------------------------------------------------------------------------------

export type EmailStatus = 'pending' | 'sent' | 'failed';

/** The outbox: one e-mail waiting for (or done with) the mail adapter. */
export interface EmailsTable extends Timestamps {
  id: Id;
  user_id: number | null;
  /** what produced it: verification, password_reset, notification, outreach... */
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  outreach_send_id: number | null;
  status: Generated<EmailStatus>;
  attempts: Generated<number>;
  last_error: string | null;
  message_id: string | null;
  sent_at: NullableTimestamp;
}

// ---- 010 engagement sends ------------------------------------------------------------------------

export type EngagementSendKind = 'inactivity' | 'insights_weekly' | 'insights_monthly';

/** One engagement message claimed for a user and period (unique: user_id, kind, period_key). */
export interface EngagementSendsTable {
  id: Id;
  user_id: number;
  kind: EngagementSendKind;
  period_key: string;
  notification_id: number | null;
  created_at: TimestampWithDefault;
}

/** The one key that signs tokens when APP_KEY is not set (migration 032): at most one row. */
export interface AppKeyTable {
  id: ColumnType<number, number | undefined, never>;
  key: string;
  created_at: TimestampWithDefault;
}

// ---- 033 data versions -----------------------------------------------------------------------

/** Bumped at the commit of every transaction that changes a row the user's responses show. */
export interface UserVersionsTable {
  user_id: number;
  version: number;
  /** The clock at the last bump: every row the version counts is stamped at or before it. */
  changed_at: Timestamp;
}

/** A counter per global table responses depend on (`exchange_rates`). */
export interface SharedVersionsTable {
  name: string;
  version: number;
}

/** Uploaded bytes kept in the database (STORAGE_URL=database, migration 035): one row per storage key. */
export interface FileBlobsTable {
  key: string;
  size: number;
  content_type: string | null;
  created_at: TimestampWithDefault;
}

/** A file's bytes in order, 1 MiB a row (the last one shorter). */
export interface FileBlobChunksTable {
  key: string;
  seq: number;
  bytes: Buffer;
}

// ---- 044 MCP OAuth ---------------------------------------------------------------------------

/** A client registered by RFC 7591 dynamic registration: public, no secret. */
export interface McpOauthClientsTable {
  client_id: string;
  client_name: string;
  /** The registered redirect URIs, a JSON array of strings. */
  redirect_uris: string;
  created_at: TimestampWithDefault;
}

/** An authorization code, by its SHA-256: single use; token_id is the grant it was exchanged for. */
export interface McpOauthCodesTable {
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  token_id: number | null;
  created_at: TimestampWithDefault;
}

/** A refresh token of a grant (token_id), by its SHA-256: rotated on use. */
export interface McpOauthRefreshTokensTable {
  token_hash: string;
  token_id: number;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: TimestampWithDefault;
}

// ---- the database ----------------------------------------------------------------------------

export interface Database extends WebhookTables, PushTables, BankTables {
  users: UsersTable;
  tokens: TokensTable;
  mcp_oauth_clients: McpOauthClientsTable;
  mcp_oauth_codes: McpOauthCodesTable;
  mcp_oauth_refresh_tokens: McpOauthRefreshTokensTable;
  devices: DevicesTable;
  sync_page_marks: SyncPageMarksTable;
  oauth_accounts: OauthAccountsTable;
  oauth_states: OauthStatesTable;
  verification_codes: VerificationCodesTable;
  configurations: ConfigurationsTable;

  files: FilesTable;
  icons: IconsTable;
  wallets: WalletsTable;
  groups: GroupsTable;
  rules: RulesTable;
  rule_applications: RuleApplicationsTable;
  rule_proposals: RuleProposalsTable;
  rule_corrections: RuleCorrectionsTable;
  imported_lines: ImportedLinesTable;
  parties: PartiesTable;
  categories: CategoriesTable;
  transfers: TransfersTable;
  transactions: TransactionsTable;
  transaction_categories: TransactionCategoriesTable;
  transaction_splits: TransactionSplitsTable;
  transaction_list_totals: TransactionListTotalsTable;
  transaction_day_counts: TransactionDayCountsTable;
  recurring_rules: RecurringRulesTable;
  refunds: RefundsTable;

  budgets: BudgetsTable;
  budget_targets: BudgetTargetsTable;
  budget_period_states: BudgetPeriodStatesTable;

  reminders: RemindersTable;
  notifications: NotificationsTable;
  notification_preferences: NotificationPreferencesTable;
  budget_alerts: BudgetAlertsTable;
  outreach_messages: OutreachMessagesTable;
  outreach_sends: OutreachSendsTable;

  file_imports: FileImportsTable;
  failed_imports: FailedImportsTable;
  import_sessions: ImportSessionsTable;
  import_suggestions: ImportSuggestionsTable;
  import_suggestion_counts: ImportSuggestionCountsTable;
  import_column_mappings: ImportColumnMappingsTable;

  chat_sessions: ChatSessionsTable;
  chat_messages: ChatMessagesTable;
  agent_actions: AgentActionsTable;

  exchange_rates: ExchangeRatesTable;
  asset_prices: AssetPricesTable;

  emails: EmailsTable;

  engagement_sends: EngagementSendsTable;

  app_key: AppKeyTable;

  user_versions: UserVersionsTable;
  shared_versions: SharedVersionsTable;
  file_blobs: FileBlobsTable;
  file_blob_chunks: FileBlobChunksTable;
}

// Row shapes for handlers: X = a selected row, NewX = an insert, XUpdate = an update.
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Token = Selectable<TokensTable>;
export type Device = Selectable<DevicesTable>;
export type OauthAccount = Selectable<OauthAccountsTable>;
export type VerificationCode = Selectable<VerificationCodesTable>;
export type Configuration = Selectable<ConfigurationsTable>;
export type NewConfiguration = Insertable<ConfigurationsTable>;
export type StoredFile = Selectable<FilesTable>;
export type NewStoredFile = Insertable<FilesTable>;
export type Icon = Selectable<IconsTable>;
export type Wallet = Selectable<WalletsTable>;
export type NewWallet = Insertable<WalletsTable>;
export type WalletUpdate = Updateable<WalletsTable>;
export type Group = Selectable<GroupsTable>;
export type NewGroup = Insertable<GroupsTable>;
export type GroupUpdate = Updateable<GroupsTable>;
export type Party = Selectable<PartiesTable>;
export type NewParty = Insertable<PartiesTable>;
export type PartyUpdate = Updateable<PartiesTable>;
export type Category = Selectable<CategoriesTable>;
export type NewCategory = Insertable<CategoriesTable>;
export type CategoryUpdate = Updateable<CategoriesTable>;
export type Transfer = Selectable<TransfersTable>;
export type NewTransfer = Insertable<TransfersTable>;
export type Transaction = Selectable<TransactionsTable>;
export type NewTransaction = Insertable<TransactionsTable>;
export type TransactionUpdate = Updateable<TransactionsTable>;
export type RecurringRule = Selectable<RecurringRulesTable>;
export type Refund = Selectable<RefundsTable>;
export type Budget = Selectable<BudgetsTable>;
export type NewBudget = Insertable<BudgetsTable>;
export type BudgetUpdate = Updateable<BudgetsTable>;
export type BudgetTarget = Selectable<BudgetTargetsTable>;
export type BudgetPeriodState = Selectable<BudgetPeriodStatesTable>;
export type Reminder = Selectable<RemindersTable>;
export type NewReminder = Insertable<RemindersTable>;
export type ReminderUpdate = Updateable<RemindersTable>;
export type Notification = Selectable<NotificationsTable>;
export type NewNotification = Insertable<NotificationsTable>;
export type NotificationPreferences = Selectable<NotificationPreferencesTable>;
export type BudgetAlert = Selectable<BudgetAlertsTable>;
export type OutreachMessage = Selectable<OutreachMessagesTable>;
export type OutreachSend = Selectable<OutreachSendsTable>;
export type FileImport = Selectable<FileImportsTable>;
export type FailedImport = Selectable<FailedImportsTable>;
export type ImportSession = Selectable<ImportSessionsTable>;
export type ImportSuggestion = Selectable<ImportSuggestionsTable>;
export type NewImportSuggestion = Insertable<ImportSuggestionsTable>;
export type ChatSession = Selectable<ChatSessionsTable>;
export type ChatMessage = Selectable<ChatMessagesTable>;
export type NewChatMessage = Insertable<ChatMessagesTable>;
export type AgentAction = Selectable<AgentActionsTable>;
export type NewAgentAction = Insertable<AgentActionsTable>;
export type ExchangeRate = Selectable<ExchangeRatesTable>;
export type AssetPrice = Selectable<AssetPricesTable>;
export type Email = Selectable<EmailsTable>;
export type NewEmail = Insertable<EmailsTable>;
