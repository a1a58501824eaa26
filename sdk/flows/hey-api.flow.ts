// A consumer of the API through the client @hey-api/openapi-ts generates (one function per
// operationId), as someone would write it by hand: every operation of the spec once, with
// literal bodies, typed path and query parameters, files as Blobs, and ids read from earlier
// answers. `make sdk-check` only type-checks this file (it never runs); scripts/sdk-check.ts
// fails when an operation of the spec is missing here.
import { createClient } from '../generated/hey-api/client/index.js';
import {
  analyzeImport,
  acceptRuleProposal,
  applyRule,
  askAssistant,
  closeBudgetPeriod,
  confirmAgentAction,
  confirmImport,
  createBudget,
  createCategory,
  createChat,
  createConfiguration,
  createGroup,
  createParty,
  createReminder,
  createRule,
  createTransaction,
  createTransfer,
  createTransferAlias,
  createWallet,
  createWebhookEndpoint,
  deleteAccount,
  deleteAdminUser,
  deleteBudget,
  deleteCategory,
  deleteChat,
  deleteConfiguration,
  deleteGroup,
  deleteImportSession,
  deleteNotification,
  deleteParty,
  deletePushSubscription,
  deleteReminder,
  deleteRule,
  dismissRuleProposal,
  deleteTransaction,
  deleteTransactionFile,
  deleteTransfer,
  deleteWallet,
  deleteWebhookEndpoint,
  downloadFile,
  exportChatMessage,
  fixFailedImports,
  getAdminMetrics,
  getAdminUser,
  getAiHealth,
  getBudget,
  getBudgetProgress,
  getCategory,
  getChat,
  getCloudBenefits,
  getConfiguration,
  getCurrentUser,
  getGroup,
  getImportSession,
  getLiveness,
  getNotification,
  getNotificationPreferences,
  getOAuthRedirect,
  getParty,
  getPushServer,
  getReadiness,
  getReminder,
  getRule,
  getRuleApplication,
  getServerInfo,
  getServerInfoV1,
  getStatistics,
  getTransaction,
  getTransfer,
  getUnreadNotificationCount,
  getWallet,
  getWebhookEndpoint,
  handleMobileOAuthCallback,
  handleOAuthCallback,
  importFile,
  listAdminUsers,
  listAssetPrices,
  listBudgetPeriodStates,
  listBudgetTransactions,
  listBudgets,
  listCategories,
  listChats,
  listCloudPlans,
  listConfigurations,
  listExchangeRates,
  listFailedImports,
  listGroups,
  listImportSessions,
  listImports,
  listIntegrations,
  listNotifications,
  listOutreach,
  listParties,
  listPushSubscriptions,
  listRefunds,
  listReminders,
  listRuleProposals,
  listRules,
  listTransactions,
  listTransfers,
  listWallets,
  listWebhookDeliveries,
  listWebhookEndpoints,
  loginUser,
  loginUserAuthAlias,
  loginUserV1,
  logoutUser,
  logoutUserV1,
  markAllNotificationsRead,
  markNotificationRead,
  markNotificationReadAlias,
  markTransactionRefund,
  pauseReminder,
  previewOutreach,
  previewRule,
  redeliverWebhook,
  registerPushSubscription,
  registerUser,
  registerUserV1,
  rejectAgentAction,
  resetPassword,
  resetPasswordV1,
  resumeReminder,
  rotateWebhookSecret,
  searchAssets,
  seedDefaultCategories,
  sendChatMessage,
  sendOutreach,
  sendPasswordResetCode,
  sendPasswordResetCodeV1,
  sendVerificationCode,
  sendVerificationCodeV1,
  snoozeReminder,
  unmarkTransactionRefund,
  updateBudget,
  updateCategory,
  updateConfiguration,
  updateGroup,
  updateImportMapping,
  updateNotificationPreferences,
  updateParty,
  updateReminder,
  updateRule,
  updateTransaction,
  updateTransfer,
  updateWallet,
  updateWebhookEndpoint,
  uploadChatMessageFiles,
  uploadOutreachMedia,
  uploadTransactionFiles,
  verifyCode,
  verifyCodeV1,
  listMcpTokens,
  createMcpToken,
  revokeMcpToken,
  createBankConnection,
  listBankConnections,
  linkBankAccount,
  syncBankConnection,
  unlinkBankAccount,
  deleteBankConnection,
} from '../generated/hey-api/index.js';

type Client = ReturnType<typeof createClient>;

/** The `data` of an answer, or an error naming what failed. */
function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} failed`);
  return value;
}

const device = '1b6f1a4e-5c1d-4f7e-9d2a-0c3b4a5d6e7f';
const clientId = (record: string) => `${device}:${record}`;

async function accounts(client: Client): Promise<string> {
  const registered = await registerUser({ client, body: { email: 'ada@example.test', first_name: 'Ada', last_name: 'Lovelace', password: 'correct horse battery' } });
  must(registered.data, 'register').data.token;
  await registerUserV1({ client, body: { email: 'bob@example.test', first_name: 'Bob', username: 'bob', password: 'another secret' } });
  const login = must((await loginUser({ client, body: { email: 'ada@example.test', password: 'correct horse battery' } })).data, 'login');
  await loginUserV1({ client, body: { username: 'bob', password: 'another secret' } });

  await sendVerificationCode({ client, body: { contact: 'ada@example.test', type: 'email', purpose: 'registration' } });
  await sendVerificationCodeV1({ client, body: { contact: 'ada@example.test', type: 'email' } });
  await verifyCode({ client, body: { contact: 'ada@example.test', code: '123456', type: 'email', purpose: 'registration' } });
  await verifyCodeV1({ client, body: { contact: 'ada@example.test', code: '123456', type: 'email' } });
  await sendPasswordResetCode({ client, body: { email: 'ada@example.test' } });
  await sendPasswordResetCodeV1({ client, body: { email: 'ada@example.test' } });
  const reset = {
    email: 'ada@example.test',
    code: '654321',
    new_password: 'a new long secret',
    new_password_confirmation: 'a new long secret',
  };
  await resetPassword({ client, body: reset });
  await resetPasswordV1({ client, body: reset });

  const me = must((await getCurrentUser({ client })).data, 'current user').data;
  console.log(me.email, me.first_name);
  const redirect = must((await getOAuthRedirect({ client, path: { driver: 'google' }, query: { state: 'xyz' } })).data, 'redirect');
  console.log(redirect.data);
  await handleOAuthCallback({ client, path: { driver: 'google' }, query: { code: 'auth-code', state: 'xyz' } });
  await handleMobileOAuthCallback({ client, path: { driver: 'google' }, body: { id_token: 'eyJhbGciOi...' } });

  const info = must((await getServerInfo({ client })).data, 'info').data;
  console.log(info.version);
  await getServerInfoV1({ client });
  console.log(must((await getLiveness({ client })).data, 'live').data.status, (await getReadiness({ client })).data?.data.status);
  // the reference mobile app's paths
  const phoneLogin = must((await loginUserAuthAlias({ client, body: { phone: '+33612345678', password: 'correct horse battery' } })).data, 'phone login');
  console.log(phoneLogin.token, phoneLogin.data.user.id);
  const benefits = must((await getCloudBenefits({ client })).data, 'benefits').data;
  console.log(benefits.trial_days, benefits.benefits.length);
  const plans = must((await listCloudPlans({ client, query: { region: 'fr' } })).data, 'plans').data;
  console.log(plans.free_plan_enabled, plans.region);
  return login.data.token;
}

async function records(client: Client) {
  const wallet = must(
    (await createWallet({
      client,
      body: { client_id: clientId('5a0c7c1e-0d6b-4b8e-8f43-5b1f3c1d2e01'), name: 'Checking', type: 'bank', currency: 'EUR', balance: 1200.5, icon: '🏦', icon_type: 'emoji' },
    })).data,
    'create wallet',
  ).data;
  const savings = must((await createWallet({ client, body: { name: 'Savings', type: 'bank', currency: 'EUR' } })).data, 'create wallet').data;
  const wallets = must((await listWallets({ client, query: { limit: 50, page: 1, synced_since: '2026-01-01T00:00:00Z' } })).data, 'wallets');
  console.log(wallets.data.last_sync, wallets.data.data.map((w) => w.balance));
  await getWallet({ client, path: { id: wallet.id } });
  await updateWallet({ client, path: { id: wallet.id }, body: { name: 'Main checking', description: 'Salary account' } });

  const group = must((await createGroup({ client, body: { name: 'Holidays', description: 'Trips' } })).data, 'create group').data;
  await listGroups({ client, query: { no_client_id: true } });
  await getGroup({ client, path: { id: group.id } });
  await updateGroup({ client, path: { id: group.id }, body: { name: 'Travel' } });
  await deleteGroup({ client, path: { id: group.id } });

  const rule = must(
    (await createRule({
      client,
      body: {
        name: 'REWE is groceries',
        conditions: [{ field: 'description', operator: 'contains', value: 'rewe' }],
        actions: [{ type: 'set_party', party_name: 'REWE', create_party: true }],
      },
    })).data,
    'create rule',
  ).data;
  await listRules({ client, query: { synced_since: '2026-01-01T00:00:00Z' } });
  await getRule({ client, path: { id: rule.id } });
  await updateRule({ client, path: { id: rule.id }, body: { position: 1, stop_after: true } });
  const preview = must((await previewRule({ client, path: { id: rule.id }, query: { limit: 10 } })).data, 'preview rule').data;
  console.log(preview.matched, preview.changed, preview.data.map((change) => change.changes.category_ids?.to));
  const run = must((await applyRule({ client, path: { id: rule.id } })).data, 'apply rule').data;
  console.log(run.state, run.total);
  await getRuleApplication({ client, path: { id: rule.id } });
  await deleteRule({ client, path: { id: rule.id } });
  // learned rules: proposals from the user's corrections of imported lines
  const proposals = must((await listRuleProposals({ client })).data, 'rule proposals').data;
  for (const proposal of proposals) console.log(proposal.text, proposal.corrections, proposal.rule.actions[0]?.type);
  const [first, second] = proposals;
  if (first) {
    const accepted = must((await acceptRuleProposal({ client, path: { proposal: first.id }, body: { name: 'Learned', enabled: true } })).data, 'accept proposal').data;
    console.log(accepted.id, accepted.conditions.length);
  }
  if (second) await dismissRuleProposal({ client, path: { proposal: second.id } });

  const party = must((await createParty({ client, body: { name: 'Grocer', type: 'business' } })).data, 'create party').data;
  await listParties({ client, query: { limit: 20 } });
  await getParty({ client, path: { id: party.id } });
  await updateParty({ client, path: { id: party.id }, body: { description: 'Corner shop' } });
  await deleteParty({ client, path: { id: party.id } });

  const category = must((await createCategory({ client, body: { name: 'Food', type: 'expense', icon: 'restaurant', icon_type: 'icon' } })).data, 'create category').data;
  await listCategories({ client, query: { type: 'expense' } });
  await getCategory({ client, path: { id: category.id } });
  await updateCategory({ client, path: { id: category.id }, body: { name: 'Groceries' } });
  await seedDefaultCategories({ client, headers: { 'Accept-Language': 'fr-FR' } });
  await deleteCategory({ client, path: { id: category.id } });

  await createConfiguration({ client, body: { key: 'default-currency', type: 'string', value: 'EUR' } });
  await listConfigurations({ client, query: { synced_since: '2026-01-01T00:00:00Z' } });
  await getConfiguration({ client, path: { key: 'default-currency' } });
  await updateConfiguration({ client, path: { key: 'default-currency' }, body: { value: 'USD' } });
  await deleteConfiguration({ client, path: { key: 'default-currency' } });

  return { wallet, savings, category };
}

async function money(client: Client, wallets: Awaited<ReturnType<typeof records>>) {
  const { wallet, savings, category } = wallets;
  const expense = must(
    (await createTransaction({
      client,
      body: {
        client_id: clientId('9e8d7c6b-5a49-4838-a7b6-c5d4e3f2a1b0'),
        amount: 42.5,
        type: 'expense',
        description: 'Weekly shop',
        datetime: '2026-11-20T10:00:00Z',
        wallet_id: wallet.id,
        categories: [category.id],
      },
    })).data,
    'create expense',
  ).data;
  const income = must((await createTransaction({ client, body: { amount: 42.5, type: 'income', wallet_id: wallet.id, description: 'Refund' } })).data, 'create income').data;
  const split = must(
    (await createTransaction({ client, body: { amount: 42.5, type: 'expense', wallet_id: wallet.id, splits: [{ amount: 30, category_id: category.id }, { amount: 12.5, description: 'Household' }] } })).data,
    'create split expense',
  ).data;
  console.log(split.splits.map((line) => line.amount));
  const page = must(
    (await listTransactions({
      client,
      query: { type: 'expense', date_from: '2026-11-01', date_to: '2026-11-30', wallet_ids: [wallet.id], intent: ['regular'], exclude_transfers: true, search: 'shop' },
    })).data,
    'transactions',
  );
  console.log(page.data.data.map((t) => t.amount));
  await getTransaction({ client, path: { id: expense.id }, query: { type: 'expense' } });
  await updateTransaction({ client, path: { id: expense.id }, query: { type: 'expense' }, body: { amount: 45, updated_at: '2026-11-21T08:00:00Z' } });

  // this generator types the operation's first body kind, the JSON one (base64 files)
  const withFiles = must((await uploadTransactionFiles({ client, path: { id: expense.id }, body: { files: ['data:application/pdf;base64,JVBERi0xLjQ='] } })).data, 'upload files').data;
  const file = withFiles.files[0];
  if (file) {
    await downloadFile({ client, path: { id: file.id }, parseAs: 'blob' });
    await deleteTransactionFile({ client, path: { id: expense.id, file_id: file.id } });
  }

  const refund = must((await markTransactionRefund({ client, path: { id: income.id }, body: { original_transaction_id: expense.id } })).data, 'mark refund').data;
  console.log(refund.refund_transaction_id, refund.original_transaction_id);
  await listRefunds({ client, query: { synced_since: '2026-11-01T00:00:00Z' } });
  await unmarkTransactionRefund({ client, path: { id: income.id } });
  await deleteTransaction({ client, path: { id: income.id } });

  const transfer = must(
    (await createTransfer({ client, body: { amount: 100, from_wallet_id: wallet.id, to_wallet_id: savings.id, datetime: '2026-11-20T12:00:00Z' } })).data,
    'transfer',
  ).data;
  await createTransferAlias({ client, body: { amount: 10, from_wallet_id: savings.id, to_wallet_id: wallet.id, exchange_rate: 1 } });
  await listTransfers({ client, query: { page: 2 } });
  await getTransfer({ client, path: { id: transfer.id } });
  await updateTransfer({ client, path: { id: transfer.id }, body: { amount: 120 } });
  await deleteTransfer({ client, path: { id: transfer.id } });

  await listExchangeRates({ client, query: { base: 'EUR', targets: ['USD', 'GBP'] } });
  await searchAssets({ client, query: { q: 'bitcoin' } });
  await listAssetPrices({ client, query: { ids: ['bitcoin', 'ethereum'], vs_currency: 'eur' } });
  const stats = must((await getStatistics({ client, query: { preset: 'current_month', wallet_ids: [wallet.id], section: 'overview' } })).data, 'stats');
  console.log(stats.data);
  await listIntegrations({ client });
  return { expense, wallet, category };
}

async function budgets(client: Client, context: Awaited<ReturnType<typeof money>>) {
  const budget = must(
    (await createBudget({
      client,
      body: {
        name: 'Food',
        amount: 400,
        currency: 'EUR',
        period_type: 'monthly',
        start_date: '2026-11-01',
        threshold_percent: 80,
        rollover_enabled: true,
        targets: [{ type: 'category', id: context.category.id }],
      },
    })).data,
    'create budget',
  ).data;
  await listBudgets({ client, query: { active: true } });
  await getBudget({ client, path: { id: budget.id } });
  await updateBudget({ client, path: { id: budget.id }, body: { amount: 0, targets: [{ type: 'wallet', id: context.wallet.id }] } });
  const progress = must((await getBudgetProgress({ client, path: { id: budget.id } })).data, 'progress').data;
  console.log(progress.status, progress.net_spent);
  await listBudgetTransactions({ client, path: { id: budget.id }, query: { limit: 10 } });
  await closeBudgetPeriod({ client, path: { id: budget.id } });
  await listBudgetPeriodStates({ client, query: { budget_id: budget.id } });
  await deleteBudget({ client, path: { id: budget.id } });
}

async function reminders(client: Client) {
  const reminder = must(
    (await createReminder({ client, body: { title: 'Pay rent', type: 'bill_due', trigger_at: '2026-12-01T09:00:00Z', repeat_rule: 'FREQ=MONTHLY' } })).data,
    'create reminder',
  ).data;
  await listReminders({ client, query: { status: 'active' } });
  await getReminder({ client, path: { id: reminder.id } });
  await updateReminder({ client, path: { id: reminder.id }, body: { priority: 2, timezone: 'Europe/Paris' } });
  await snoozeReminder({ client, path: { id: reminder.id }, body: { until: '2026-12-02T09:00:00Z' } });
  await pauseReminder({ client, path: { id: reminder.id } });
  await resumeReminder({ client, path: { id: reminder.id } });
  await deleteReminder({ client, path: { id: reminder.id } });

  const notifications = must((await listNotifications({ client, query: { unread_only: true } })).data, 'notifications').data;
  const unread = must((await getUnreadNotificationCount({ client })).data, 'unread count').data;
  console.log(unread);
  const first = notifications.data[0];
  if (first) {
    await getNotification({ client, path: { id: first.id } });
    await markNotificationRead({ client, path: { id: first.id } });
    await markNotificationReadAlias({ client, path: { id: first.id }, body: { read_at: '2026-11-21T08:00:00Z' } });
    await deleteNotification({ client, path: { id: first.id } });
  }
  await markAllNotificationsRead({ client });
  await getNotificationPreferences({ client });
  await updateNotificationPreferences({ client, body: { channels: { email: false }, types: { insights: true } } });
}

async function imports(client: Client, walletId: number) {
  const csv = new Blob(['amount,type,date\n12.50,expense,2026-11-20\n'], { type: 'text/csv' });
  const legacy = must((await importFile({ client, body: { file: csv } })).data, 'import').data;
  await listImports({ client, query: { limit: 10 } });
  await listFailedImports({ client, path: { id: legacy.id } });
  await fixFailedImports({ client, path: { id: legacy.id }, body: [{ id: 1, amount: '12.50', type: 'expense', date: '2026-11-20', wallet: 'Checking' }] });

  const session = must((await analyzeImport({ client, body: { file: csv, document_type: 'bank_statement' } })).data, 'analyze').data;
  await updateImportMapping({ client, path: { id: session.id }, body: { date_format: 'DD/MM/YYYY', decimal_separator: ',' } });
  await confirmImport({
    client,
    body: { session_id: session.id, accepted: [{ index: 0, wallet_id: walletId }, { index: 1, accept_duplicate: true }], auto_create_categories: true },
  });
  await listImportSessions({ client, query: { page: 1 } });
  await getImportSession({ client, path: { id: session.id } });
  await deleteImportSession({ client, path: { id: session.id } });
}

async function assistant(client: Client) {
  const asked = must((await askAssistant({ client, body: { message: 'How much did I spend this month?', answer_format: 'markdown' } })).data, 'ask').data;
  console.log(asked.answer, asked.answer_markdown ?? '', asked.format_type, asked.results[0]?.total, asked.chat_id);
  const chat = must((await createChat({ client, body: { message: 'How much did I spend on food this month?', title: 'Food' } })).data, 'create chat').data;
  await listChats({ client, query: { limit: 5 } });
  const detail = must((await getChat({ client, path: { chat: chat.id } })).data, 'chat').data;
  const sent = must((await sendChatMessage({ client, path: { chat: chat.id }, body: { message: 'And on transport?', format_hint: 'table' } })).data, 'send').data;
  console.log(detail.messages.length, sent);
  await getAiHealth({ client });
  const message = detail.messages[0];
  if (message) {
    const statement = new Blob(['%PDF-1.4'], { type: 'application/pdf' });
    await uploadChatMessageFiles({ client, path: { chat: chat.id, message: message.id }, body: { files: [statement], document_type: 'receipt' } });
    await exportChatMessage({ client, path: { chat: chat.id, message: message.id }, query: { format: 'md' }, parseAs: 'text' });
  }
  const actionId = 1;
  await confirmAgentAction({ client, path: { chat: chat.id, action: actionId }, body: { overrides: { amount: 12 } } });
  await rejectAgentAction({ client, path: { chat: chat.id, action: actionId } });
  await deleteChat({ client, path: { chat: chat.id } });
}

async function admin(client: Client) {
  await getAdminMetrics({ client, query: { days: 30, granularity: 'week' } });
  const users = must((await listAdminUsers({ client, query: { search: 'ada' } })).data, 'users').data;
  const someone = users.data[0];
  if (someone) {
    await getAdminUser({ client, path: { id: someone.id } });
    await deleteAdminUser({ client, path: { id: someone.id }, body: { reason: 'Asked to be removed' } });
  }
  await listOutreach({ client, query: { page: 1 } });
  await previewOutreach({ client, body: { subject: 'News', body: 'Budgets now roll over.' } });
  const image = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
  const media = must((await uploadOutreachMedia({ client, body: { image } })).data, 'media').data;
  await sendOutreach({ client, body: { subject: 'News', body: 'Budgets now roll over.', image_url: media.url, audience: 'active' } });
}

async function webhooks(client: Client) {
  const endpoint = must(
    (await createWebhookEndpoint({ client, body: { url: 'https://hooks.example.com/finance', event_kinds: ['transaction.created', 'budget.threshold_crossed'] } })).data,
    'create webhook endpoint',
  ).data;
  console.log('store this secret:', endpoint.secret);
  await listWebhookEndpoints({ client, query: { limit: 20 } });
  await getWebhookEndpoint({ client, path: { id: endpoint.id } });
  await updateWebhookEndpoint({ client, path: { id: endpoint.id }, body: { event_kinds: ['transaction.created'], active: true } });
  const rotated = must((await rotateWebhookSecret({ client, path: { id: endpoint.id } })).data, 'rotate secret').data;
  console.log('new secret:', rotated.secret);
  const deliveries = must((await listWebhookDeliveries({ client, path: { id: endpoint.id }, query: { status: 'failed' } })).data, 'deliveries').data;
  for (const delivery of deliveries.data) {
    console.log(delivery.event_kind, delivery.attempts.map((a) => a.status_code ?? a.error));
    await redeliverWebhook({ client, path: { id: endpoint.id, delivery: delivery.id } });
  }
  await deleteWebhookEndpoint({ client, path: { id: endpoint.id } });
}

async function push(client: Client) {
  const server = must((await getPushServer({ client })).data, 'push server').data;
  console.log('applicationServerKey:', server.vapid_public_key, server.kinds);
  // what a browser's PushSubscription.toJSON() gives, posted as it is
  const browser = { endpoint: 'https://push.example.net/send/abc', expirationTime: null, keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' } };
  const subscription = must((await registerPushSubscription({ client, body: browser })).data, 'subscribe').data;
  await registerPushSubscription({ client, body: { kind: 'fcm', token: 'device-registration-token' } });
  await registerPushSubscription({ client, body: { kind: 'ntfy', endpoint: 'https://ntfy.sh/my-finance-alerts' } });
  const listed = must((await listPushSubscriptions({ client, query: { limit: 20 } })).data, 'subscriptions').data;
  for (const item of listed.data) console.log(item.kind, item.endpoint ?? item.token, item.last_error);
  await deletePushSubscription({ client, path: { id: subscription.id } });
}

async function mcpTokens(client: Client) {
  const created = must((await createMcpToken({ client, body: { name: 'Claude Desktop', scopes: ['read'] } })).data, 'create MCP token').data;
  console.log('paste into the agent, shown once:', created.token, created.scopes);
  const listed = must((await listMcpTokens({ client })).data, 'MCP tokens').data;
  for (const token of listed) console.log(token.name, token.scopes, token.last_used_at);
  await revokeMcpToken({ client, path: { tokenId: created.id } });
}

async function bankConnections(client: Client) {
  // the setup token the user copied from their SimpleFIN bridge
  const connection = must((await createBankConnection({ client, body: { setup_token: 'aHR0cHM6Ly9icmlkZ2Uuc2ltcGxlZmluLm9yZy9zaW1wbGVmaW4vY2xhaW0vZGVtbw==' } })).data, 'connect').data;
  const [account] = connection.accounts;
  if (account) {
    await linkBankAccount({ client, path: { id: account.id }, body: {} });
    const sync = must((await syncBankConnection({ client, path: { id: connection.id } })).data, 'sync').data;
    console.log(sync.status, sync.created_count, sync.error ?? sync.bridge_errors);
    await unlinkBankAccount({ client, path: { id: account.id } });
  }
  const listed = must((await listBankConnections({ client, query: { limit: 20 } })).data, 'connections').data;
  for (const item of listed.data) for (const a of item.accounts) console.log(item.name, a.name, a.balance, a.wallet_balance, a.difference);
  await deleteBankConnection({ client, path: { id: connection.id } });
}

export async function flow(): Promise<void> {
  const anonymous = createClient({ baseUrl: 'http://localhost:3000/api' });
  const token = await accounts(anonymous);
  const client = createClient({ baseUrl: 'http://localhost:3000/api', auth: () => token });
  const context = await money(client, await records(client));
  await budgets(client, context);
  await reminders(client);
  await imports(client, context.wallet.id);
  await assistant(client);
  await admin(client);
  await webhooks(client);
  await push(client);
  await mcpTokens(client);
  await bankConnections(client);
  await deleteWallet({ client, path: { id: context.wallet.id } });
  await logoutUser({ client });
  await logoutUserV1({ client: anonymous });
  await deleteAccount({ client, body: { confirm_delete: true, reason: 'Trying another app' } });
}
