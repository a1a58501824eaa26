// Every handler module, one per tag. An operation missing here answers 501 and is counted as
// not implemented by GET /info.
import type { Handlers } from '../server/handler-types.js';
import { accountHandlers } from './account.js';
import { adminHandlers } from './admin.js';
import { agentActionHandlers } from './agent-actions.js';
import { assistantHandlers } from './assistant.js';
import { authenticationHandlers } from './authentication.js';
import { budgetHandlers } from './budgets.js';
import { categoryHandlers } from './categories.js';
import { configurationHandlers } from './configurations.js';
import { currencyHandlers } from './currency.js';
import { holdingHandlers } from './holdings.js';
import { importSessionHandlers } from './import-sessions.js';
import { fileHandlers } from './files.js';
import { groupHandlers } from './groups.js';
import { healthHandlers } from './health.js';
import { importHandlers } from './imports.js';
import { mcpTokenHandlers } from './mcp-tokens.js';
import { infoHandlers } from './info.js';
import { integrationHandlers } from './integrations.js';
import { notificationHandlers } from './notifications.js';
import { outreachHandlers } from './outreach.js';
import { oauthHandlers } from './oauth.js';
import { partyHandlers } from './parties.js';
import { pushHandlers } from './push.js';
import { bankConnectionHandlers } from './bank-connections.js';
import { refundHandlers } from './refunds.js';
import { reminderHandlers } from './reminders.js';
import { ruleProposalHandlers } from './rule-proposals.js';
import { ruleHandlers } from './rules.js';
import { statisticsHandlers } from './statistics.js';
import { transactionHandlers } from './transactions.js';
import { transferHandlers } from './transfers.js';
import { verificationHandlers } from './verification.js';
import { walletHandlers } from './wallets.js';
import { webhookHandlers } from './webhooks.js';

export const allHandlers: Partial<Handlers> = {
  ...authenticationHandlers,
  ...verificationHandlers,
  ...accountHandlers,
  ...infoHandlers,
  ...healthHandlers,
  ...walletHandlers,
  ...groupHandlers,
  ...partyHandlers,
  ...categoryHandlers,
  ...ruleHandlers,
  ...ruleProposalHandlers,
  ...configurationHandlers,
  ...transactionHandlers,
  ...fileHandlers,
  ...refundHandlers,
  ...transferHandlers,
  ...currencyHandlers,
  ...holdingHandlers,
  ...statisticsHandlers,
  ...integrationHandlers,
  ...notificationHandlers,
  ...budgetHandlers,
  ...reminderHandlers,
  ...oauthHandlers,
  ...adminHandlers,
  ...outreachHandlers,
  ...importHandlers,
  ...importSessionHandlers,
  ...assistantHandlers,
  ...agentActionHandlers,
  ...mcpTokenHandlers,
  ...webhookHandlers,
  ...pushHandlers,
  ...bankConnectionHandlers,
};
