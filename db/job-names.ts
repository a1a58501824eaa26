// The queue names of the background jobs that other code nudges after a commit. They live
// below both sides: handlers and db/ queue by name, jobs/ registers the runner under it.

/** Drains the e-mail outbox (jobs/deliver-emails.ts). */
export const DELIVER_EMAILS_JOB = 'deliver-emails';
/** Reads an uploaded statement into an import session (jobs/analyze-import.ts). */
export const ANALYZE_IMPORT_JOB = 'analyze-import';
/** Imports the rows of a legacy CSV import (jobs/process-csv-import.ts). */
export const PROCESS_CSV_IMPORT_JOB = 'process-csv-import';
/** Answers a chat question (jobs/answer-chat-message.ts). */
export const ANSWER_CHAT_MESSAGE_JOB = 'answer-chat-message';
/** Confirms a whole import session a batch at a time (jobs/confirm-import.ts). */
export const CONFIRM_IMPORT_JOB = 'confirm-import';
/** Drains the webhook outbox (jobs/deliver-webhooks.ts). */
export const DELIVER_WEBHOOKS_JOB = 'deliver-webhooks';
/** Drains the push outbox (jobs/deliver-push.ts). */
export const DELIVER_PUSH_JOB = 'deliver-push';
/** Syncs the bank connections that are due (jobs/sync-bank-connections.ts). */
export const SYNC_BANK_CONNECTIONS_JOB = 'sync-bank-connections';
/** Applies one rule to the transactions that exist already (jobs/apply-rule.ts). */
export const APPLY_RULE_JOB = 'apply-rule';
