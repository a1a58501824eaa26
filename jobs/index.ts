// Every background job the service runs (see server/jobs.ts).
import type { JobDefinition } from '../server/jobs.js';
import { analyzeImportJob } from './analyze-import.js';
import { applyRuleJob } from './apply-rule.js';
import { answerChatMessageJob } from './answer-chat-message.js';
import { closeBudgetPeriodsJob } from './close-budget-periods.js';
import { confirmImportJob } from './confirm-import.js';
import { fireRemindersJob } from './fire-reminders.js';
import { inactivityNudgesJob } from './inactivity-nudges.js';
import { insightsSummaryJob } from './insights-summary.js';
import { maintainEmbeddedTablesJob } from './maintain-embedded-tables.js';
import { processCsvImportJob } from './process-csv-import.js';
import { pruneExpiredJob } from './prune-expired.js';
import { recurringTransactionsJob } from './recurring-transactions.js';
import { deliverEmailsJob } from './deliver-emails.js';
import { deliverWebhooksJob } from './deliver-webhooks.js';
import { deliverPushJob } from './deliver-push.js';
import { syncBankConnectionsJob } from './sync-bank-connections.js';

export const jobs: JobDefinition<any>[] = [recurringTransactionsJob, deliverEmailsJob, fireRemindersJob, inactivityNudgesJob, insightsSummaryJob, closeBudgetPeriodsJob, pruneExpiredJob, answerChatMessageJob, analyzeImportJob, processCsvImportJob, confirmImportJob, maintainEmbeddedTablesJob, deliverWebhooksJob, deliverPushJob, syncBankConnectionsJob, applyRuleJob];
