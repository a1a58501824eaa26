// A consumer of the API through openapi-typescript types and openapi-fetch, as someone would
// write it by hand: every operation of the spec once, with literal bodies, typed path and query
// parameters, and ids read from earlier answers. `make sdk-check` only type-checks this file
// (it never runs), so it proves that the spec generates a client a person can use without
// casts; scripts/sdk-check.ts fails when an operation of the spec is missing here.
import createClient from 'openapi-fetch';
import type { paths } from '../generated/openapi-typescript/api.js';

type Client = ReturnType<typeof createClient<paths>>;

/** The `data` of an answer, or an error naming what failed. */
function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} failed`);
  return value;
}

const device = '1b6f1a4e-5c1d-4f7e-9d2a-0c3b4a5d6e7f';
const clientId = (record: string) => `${device}:${record}`;

async function accounts(client: Client): Promise<string> {
  const registered = await client.POST('/register', {
    body: { email: 'ada@example.test', first_name: 'Ada', last_name: 'Lovelace', password: 'correct horse battery' },
  });
  must(registered.data, 'register').data.token;
  await client.POST('/v1/register', { body: { email: 'bob@example.test', first_name: 'Bob', username: 'bob', password: 'another secret' } });
  const login = must((await client.POST('/login', { body: { email: 'ada@example.test', password: 'correct horse battery' } })).data, 'login');
  await client.POST('/v1/login', { body: { username: 'bob', password: 'another secret' } });

  await client.POST('/send-verification-code', { body: { contact: 'ada@example.test', type: 'email', purpose: 'registration' } });
  await client.POST('/v1/send-verification-code', { body: { contact: 'ada@example.test', type: 'email' } });
  await client.POST('/verify-code', { body: { contact: 'ada@example.test', code: '123456', type: 'email', purpose: 'registration' } });
  await client.POST('/v1/verify-code', { body: { contact: 'ada@example.test', code: '123456', type: 'email' } });
  await client.POST('/password/reset-code', { body: { email: 'ada@example.test' } });
  await client.POST('/v1/password/reset-code', { body: { email: 'ada@example.test' } });
  const reset = {
    email: 'ada@example.test',
    code: '654321',
    new_password: 'a new long secret',
    new_password_confirmation: 'a new long secret',
  };
  await client.POST('/password/reset', { body: reset });
  await client.POST('/v1/password/reset', { body: reset });

  const me = must((await client.GET('/v1/user')).data, 'current user').data;
  console.log(me.email, me.first_name);
  const redirect = must((await client.GET('/v1/oauth/{driver}/login', { params: { path: { driver: 'google' }, query: { state: 'xyz' } } })).data, 'redirect');
  console.log(redirect.data);
  await client.GET('/v1/oauth/{driver}/callback', { params: { path: { driver: 'google' }, query: { code: 'auth-code', state: 'xyz' } } });
  await client.POST('/v1/oauth/firebase/{driver}/callback', { params: { path: { driver: 'google' } }, body: { id_token: 'eyJhbGciOi...' } });

  const info = must((await client.GET('/info')).data, 'info').data;
  console.log(info.version);
  await client.GET('/v1/info');
  console.log(must((await client.GET('/health/live')).data, 'live').data.status, (await client.GET('/health/ready')).data?.data.status);
  // the reference mobile app's paths
  const phoneLogin = must((await client.POST('/v1/auth/login', { body: { phone: '+33612345678', password: 'correct horse battery' } })).data, 'phone login');
  console.log(phoneLogin.token, phoneLogin.data.user.id);
  const benefits = must((await client.GET('/v1/cloud/benefits')).data, 'benefits').data;
  console.log(benefits.trial_days, benefits.benefits.length);
  const plans = must((await client.GET('/v1/cloud/plans', { params: { query: { region: 'fr' } } })).data, 'plans').data;
  console.log(plans.free_plan_enabled, plans.region);
  return login.data.token;
}

async function records(client: Client) {
  const wallet = must(
    (await client.POST('/v1/wallets', {
      body: { client_id: clientId('5a0c7c1e-0d6b-4b8e-8f43-5b1f3c1d2e01'), name: 'Checking', type: 'bank', currency: 'EUR', balance: 1200.5, icon: '🏦', icon_type: 'emoji' },
    })).data,
    'create wallet',
  ).data;
  const savings = must((await client.POST('/v1/wallets', { body: { name: 'Savings', type: 'bank', currency: 'EUR' } })).data, 'create wallet').data;
  const wallets = must((await client.GET('/v1/wallets', { params: { query: { limit: 50, page: 1, synced_since: '2026-01-01T00:00:00Z' } } })).data, 'wallets');
  console.log(wallets.data.last_sync, wallets.data.data.map((w) => w.balance));
  await client.GET('/v1/wallets/{id}', { params: { path: { id: wallet.id } } });
  await client.PUT('/v1/wallets/{id}', { params: { path: { id: wallet.id } }, body: { name: 'Main checking', description: 'Salary account' } });

  const group = must((await client.POST('/v1/groups', { body: { name: 'Holidays', description: 'Trips' } })).data, 'create group').data;
  await client.GET('/v1/groups', { params: { query: { no_client_id: true } } });
  await client.GET('/v1/groups/{id}', { params: { path: { id: group.id } } });
  await client.PUT('/v1/groups/{id}', { params: { path: { id: group.id } }, body: { name: 'Travel' } });
  await client.DELETE('/v1/groups/{id}', { params: { path: { id: group.id } } });

  const rule = must(
    (await client.POST('/v1/rules', {
      body: {
        name: 'REWE is groceries',
        conditions: [{ field: 'description', operator: 'regex', value: '^rewe\\b' }],
        actions: [{ type: 'add_note', note: 'filed by a rule' }, { type: 'set_splits', splits: [{ percent: 60 }, { percent: 40, description: 'Household' }] }],
      },
    })).data,
    'create rule',
  ).data;
  await client.GET('/v1/rules', { params: { query: { no_client_id: true } } });
  await client.GET('/v1/rules/{id}', { params: { path: { id: rule.id } } });
  await client.PUT('/v1/rules/{id}', { params: { path: { id: rule.id } }, body: { enabled: false } });
  const preview = must((await client.GET('/v1/rules/{id}/preview', { params: { path: { id: rule.id } } })).data, 'preview rule').data;
  console.log(preview.scanned, preview.data.map((change) => change.transaction_id));
  await client.POST('/v1/rules/{id}/apply', { params: { path: { id: rule.id } } });
  const run = must((await client.GET('/v1/rules/{id}/apply', { params: { path: { id: rule.id } } })).data, 'rule run').data;
  console.log(run.processed, run.changed);
  await client.DELETE('/v1/rules/{id}', { params: { path: { id: rule.id } } });
  const proposals = must((await client.GET('/v1/rules/proposals')).data, 'rule proposals').data;
  for (const proposal of proposals) console.log(proposal.field, proposal.transaction_ids);
  const [first, second] = proposals;
  if (first) await client.POST('/v1/rules/proposals/{proposal}/accept', { params: { path: { proposal: first.id } }, body: { stop_after: true } });
  if (second) await client.POST('/v1/rules/proposals/{proposal}/dismiss', { params: { path: { proposal: second.id } } });

  const party = must((await client.POST('/v1/parties', { body: { name: 'Grocer', type: 'business' } })).data, 'create party').data;
  await client.GET('/v1/parties', { params: { query: { limit: 20 } } });
  await client.GET('/v1/parties/{id}', { params: { path: { id: party.id } } });
  await client.PUT('/v1/parties/{id}', { params: { path: { id: party.id } }, body: { description: 'Corner shop' } });
  await client.DELETE('/v1/parties/{id}', { params: { path: { id: party.id } } });

  const category = must((await client.POST('/v1/categories', { body: { name: 'Food', type: 'expense', icon: 'restaurant', icon_type: 'icon' } })).data, 'create category').data;
  await client.GET('/v1/categories', { params: { query: { type: 'expense' } } });
  await client.GET('/v1/categories/{id}', { params: { path: { id: category.id } } });
  await client.PUT('/v1/categories/{id}', { params: { path: { id: category.id } }, body: { name: 'Groceries' } });
  await client.POST('/v1/categories/seed-defaults', { params: { header: { 'Accept-Language': 'fr-FR' } } });
  await client.DELETE('/v1/categories/{id}', { params: { path: { id: category.id } } });

  await client.POST('/v1/configurations', { body: { key: 'default-currency', type: 'string', value: 'EUR' } });
  await client.GET('/v1/configurations', { params: { query: { synced_since: '2026-01-01T00:00:00Z' } } });
  await client.GET('/v1/configurations/{key}', { params: { path: { key: 'default-currency' } } });
  await client.PUT('/v1/configurations/{key}', { params: { path: { key: 'default-currency' } }, body: { value: 'USD' } });
  await client.DELETE('/v1/configurations/{key}', { params: { path: { key: 'default-currency' } } });

  return { wallet, savings, category };
}

async function money(client: Client, wallets: Awaited<ReturnType<typeof records>>) {
  const { wallet, savings, category } = wallets;
  const expense = must(
    (await client.POST('/v1/transactions', {
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
  const income = must((await client.POST('/v1/transactions', { body: { amount: 42.5, type: 'income', wallet_id: wallet.id, description: 'Refund' } })).data, 'create income').data;
  // a receipt split over two categories, sent as the mobile client sends a create: a form, the lines one JSON part
  const receiptLines = [{ amount: 30, category_id: category.id, description: 'Food' }, { amount: 12.5 }];
  const split = must(
    (await client.POST('/v1/transactions', {
      body: { amount: 42.5, type: 'expense', wallet_id: wallet.id, splits: receiptLines },
      bodySerializer: (body) => {
        const form = new FormData();
        for (const [key, value] of Object.entries(body ?? {})) form.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
        return form;
      },
    })).data,
    'create split expense',
  ).data;
  console.log(split.splits.map((line) => [line.amount, line.category_id]));
  const page = must(
    (await client.GET('/v1/transactions', {
      params: { query: { type: 'expense', date_from: '2026-11-01', date_to: '2026-11-30', wallet_ids: [wallet.id], intent: ['regular'], exclude_transfers: true, search: 'shop' } },
    })).data,
    'transactions',
  );
  console.log(page.data.data.map((t) => t.amount));
  await client.GET('/v1/transactions/{id}', { params: { path: { id: expense.id }, query: { type: 'expense' } } });
  await client.PUT('/v1/transactions/{id}', {
    params: { path: { id: expense.id }, query: { type: 'expense' } },
    body: { amount: 45, updated_at: '2026-11-21T08:00:00Z' },
  });

  const receipt = new Blob(['%PDF-1.4'], { type: 'application/pdf' });
  const withFiles = must(
    (await client.POST('/v1/transactions/{id}/files', {
      params: { path: { id: expense.id } },
      body: { 'files[]': [] },
      bodySerializer: () => {
        const form = new FormData();
        form.append('files[]', receipt, 'receipt.pdf');
        return form;
      },
    })).data,
    'upload files',
  ).data;
  const file = withFiles.files[0];
  if (file) {
    await client.GET('/v1/files/{id}', { params: { path: { id: file.id } }, parseAs: 'blob' });
    await client.DELETE('/v1/transactions/{id}/files/{file_id}', { params: { path: { id: expense.id, file_id: file.id } } });
  }

  const refund = must(
    (await client.POST('/v1/transactions/{id}/refund', { params: { path: { id: income.id } }, body: { original_transaction_id: expense.id } })).data,
    'mark refund',
  ).data;
  console.log(refund.refund_transaction_id, refund.original_transaction_id);
  await client.GET('/v1/refunds', { params: { query: { synced_since: '2026-11-01T00:00:00Z' } } });
  await client.DELETE('/v1/transactions/{id}/refund', { params: { path: { id: income.id } } });
  await client.DELETE('/v1/transactions/{id}', { params: { path: { id: income.id } } });

  const transfer = must(
    (await client.POST('/v1/transfer', { body: { amount: 100, from_wallet_id: wallet.id, to_wallet_id: savings.id, datetime: '2026-11-20T12:00:00Z' } })).data,
    'transfer',
  ).data;
  await client.POST('/v1/transfers', { body: { amount: 10, from_wallet_id: savings.id, to_wallet_id: wallet.id, exchange_rate: 1 } });
  await client.GET('/v1/transfers', { params: { query: { page: 2 } } });
  await client.GET('/v1/transfers/{id}', { params: { path: { id: transfer.id } } });
  await client.PUT('/v1/transfers/{id}', { params: { path: { id: transfer.id } }, body: { amount: 120 } });
  await client.DELETE('/v1/transfers/{id}', { params: { path: { id: transfer.id } } });

  await client.GET('/v1/exchange-rates', { params: { query: { base: 'EUR', targets: ['USD', 'GBP'] } } });
  await client.GET('/v1/asset-prices/search', { params: { query: { q: 'bitcoin' } } });
  await client.GET('/v1/asset-prices', { params: { query: { ids: ['bitcoin', 'ethereum'], vs_currency: 'eur' } } });
  const stats = must((await client.GET('/v1/stats', { params: { query: { preset: 'current_month', wallet_ids: [wallet.id], section: 'overview' } } })).data, 'stats');
  console.log(stats.data);
  await client.GET('/v1/integrations');
  return { expense, wallet, category };
}

async function budgets(client: Client, context: Awaited<ReturnType<typeof money>>) {
  const budget = must(
    (await client.POST('/v1/budgets', {
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
  await client.GET('/v1/budgets', { params: { query: { active: true } } });
  await client.GET('/v1/budgets/{id}', { params: { path: { id: budget.id } } });
  await client.PUT('/v1/budgets/{id}', { params: { path: { id: budget.id } }, body: { amount: 0, targets: [{ type: 'wallet', id: context.wallet.id }] } });
  const progress = must((await client.GET('/v1/budgets/{id}/progress', { params: { path: { id: budget.id } } })).data, 'progress').data;
  console.log(progress.status, progress.net_spent);
  await client.GET('/v1/budgets/{id}/transactions', { params: { path: { id: budget.id }, query: { limit: 10 } } });
  await client.POST('/v1/budgets/{id}/close-period', { params: { path: { id: budget.id } } });
  await client.GET('/v1/budget-period-states', { params: { query: { budget_id: budget.id } } });
  await client.DELETE('/v1/budgets/{id}', { params: { path: { id: budget.id } } });
}

async function reminders(client: Client) {
  const reminder = must(
    (await client.POST('/v1/reminders', { body: { title: 'Pay rent', type: 'bill_due', trigger_at: '2026-12-01T09:00:00Z', repeat_rule: 'FREQ=MONTHLY' } })).data,
    'create reminder',
  ).data;
  await client.GET('/v1/reminders', { params: { query: { status: 'active' } } });
  await client.GET('/v1/reminders/{id}', { params: { path: { id: reminder.id } } });
  await client.PUT('/v1/reminders/{id}', { params: { path: { id: reminder.id } }, body: { priority: 2, timezone: 'Europe/Paris' } });
  await client.POST('/v1/reminders/{id}/snooze', { params: { path: { id: reminder.id } }, body: { until: '2026-12-02T09:00:00Z' } });
  await client.POST('/v1/reminders/{id}/pause', { params: { path: { id: reminder.id } } });
  await client.POST('/v1/reminders/{id}/resume', { params: { path: { id: reminder.id } } });
  await client.DELETE('/v1/reminders/{id}', { params: { path: { id: reminder.id } } });

  const notifications = must((await client.GET('/v1/notifications', { params: { query: { unread_only: true } } })).data, 'notifications').data;
  const unread = must((await client.GET('/v1/notifications/unread-count')).data, 'unread count').data;
  console.log(unread);
  const first = notifications.data[0];
  if (first) {
    await client.GET('/v1/notifications/{id}', { params: { path: { id: first.id } } });
    await client.POST('/v1/notifications/{id}/read', { params: { path: { id: first.id } } });
    await client.PUT('/v1/notifications/{id}/read', { params: { path: { id: first.id } }, body: { read_at: '2026-11-21T08:00:00Z' } });
    await client.DELETE('/v1/notifications/{id}', { params: { path: { id: first.id } } });
  }
  await client.POST('/v1/notifications/read-all');
  await client.GET('/v1/notifications/preferences');
  await client.PUT('/v1/notifications/preferences', { body: { channels: { email: false }, types: { insights: true } } });
}

async function imports(client: Client, walletId: number) {
  const csv = new Blob(['amount,type,date\n12.50,expense,2026-11-20\n'], { type: 'text/csv' });
  const upload = (field: string, blob: Blob, name: string) => () => {
    const form = new FormData();
    form.append(field, blob, name);
    return form;
  };
  const legacy = must((await client.POST('/v1/import', { body: { file: '' }, bodySerializer: upload('file', csv, 'november.csv') })).data, 'import').data;
  await client.GET('/v1/imports', { params: { query: { limit: 10 } } });
  await client.GET('/v1/imports/{id}/failed', { params: { path: { id: legacy.id } } });
  await client.PUT('/v1/imports/{id}/fix', { params: { path: { id: legacy.id } }, body: [{ id: 1, amount: '12.50', type: 'expense', date: '2026-11-20', wallet: 'Checking' }] });

  const session = must(
    (await client.POST('/v1/import/analyze', { body: { file: '', document_type: 'bank_statement' }, bodySerializer: upload('file', csv, 'statement.csv') })).data,
    'analyze',
  ).data;
  await client.PUT('/v1/import/sessions/{id}/mapping', { params: { path: { id: session.id } }, body: { date_format: 'DD/MM/YYYY', decimal_separator: ',' } });
  await client.POST('/v1/import/confirm', {
    body: { session_id: session.id, accepted: [{ index: 0, wallet_id: walletId }, { index: 1, accept_duplicate: true, amount: 1, splits: [{ amount: 1, description: 'Part' }] }], auto_create_categories: true },
  });
  await client.GET('/v1/import/sessions', { params: { query: { page: 1 } } });
  await client.GET('/v1/import/sessions/{id}', { params: { path: { id: session.id } } });
  await client.DELETE('/v1/import/sessions/{id}', { params: { path: { id: session.id } } });
}

async function assistant(client: Client) {
  const asked = must((await client.POST('/v1/ai/chat', { body: { message: 'How much did I spend this month?', answer_format: 'markdown' } })).data, 'ask').data;
  console.log(asked.answer, asked.answer_markdown ?? '', asked.format_type, asked.results[0]?.total, asked.chat_id);
  const chat = must((await client.POST('/v1/ai/chats', { body: { message: 'How much did I spend on food this month?', title: 'Food' } })).data, 'create chat').data;
  await client.GET('/v1/ai/chats', { params: { query: { limit: 5 } } });
  const detail = must((await client.GET('/v1/ai/chats/{chat}', { params: { path: { chat: chat.id } } })).data, 'chat').data;
  const sent = must((await client.POST('/v1/ai/chats/{chat}/messages', { params: { path: { chat: chat.id } }, body: { message: 'And on transport?', format_hint: 'table' } })).data, 'send').data;
  console.log(detail.messages.length, sent);
  await client.GET('/v1/ai/health');
  const message = detail.messages[0];
  if (message) {
    const statement = new Blob(['%PDF-1.4'], { type: 'application/pdf' });
    await client.POST('/v1/ai/chats/{chat}/messages/{message}/files', {
      params: { path: { chat: chat.id, message: message.id } },
      body: { files: [], document_type: 'receipt' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('files[]', statement, 'receipt.pdf');
        return form;
      },
    });
    await client.GET('/v1/ai/chats/{chat}/messages/{message}/export', { params: { path: { chat: chat.id, message: message.id }, query: { format: 'md' } }, parseAs: 'text' });
  }
  const actionId = 1;
  await client.POST('/v1/ai/chats/{chat}/actions/{action}/confirm', { params: { path: { chat: chat.id, action: actionId } }, body: { overrides: { amount: 12 } } });
  await client.POST('/v1/ai/chats/{chat}/actions/{action}/reject', { params: { path: { chat: chat.id, action: actionId } } });
  await client.DELETE('/v1/ai/chats/{chat}', { params: { path: { chat: chat.id } } });
}

async function admin(client: Client) {
  await client.GET('/v1/admin/metrics', { params: { query: { days: 30, granularity: 'week' } } });
  const users = must((await client.GET('/v1/admin/users', { params: { query: { search: 'ada' } } })).data, 'users').data;
  const someone = users.data[0];
  if (someone) {
    await client.GET('/v1/admin/users/{id}', { params: { path: { id: someone.id } } });
    await client.DELETE('/v1/admin/users/{id}', { params: { path: { id: someone.id } }, body: { reason: 'Asked to be removed' } });
  }
  await client.GET('/v1/admin/outreach', { params: { query: { page: 1 } } });
  await client.POST('/v1/admin/outreach/preview', { body: { subject: 'News', body: 'Budgets now roll over.' } });
  const image = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
  const media = must(
    (await client.POST('/v1/admin/outreach/media', {
      body: { image: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('image', image, 'banner.png');
        return form;
      },
    })).data,
    'media',
  ).data;
  await client.POST('/v1/admin/outreach/send', { body: { subject: 'News', body: 'Budgets now roll over.', image_url: media.url, audience: 'active' } });
}

async function webhooks(client: Client) {
  const endpoint = must(
    (await client.POST('/v1/webhooks', { body: { url: 'https://hooks.example.com/finance', event_kinds: ['transaction.created', 'budget.threshold_crossed'] } })).data,
    'create webhook endpoint',
  ).data;
  console.log('store this secret:', endpoint.secret);
  await client.GET('/v1/webhooks', { params: { query: { limit: 20 } } });
  await client.GET('/v1/webhooks/{id}', { params: { path: { id: endpoint.id } } });
  await client.PUT('/v1/webhooks/{id}', { params: { path: { id: endpoint.id } }, body: { event_kinds: ['transaction.created'], active: true } });
  const rotated = must((await client.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id: endpoint.id } } })).data, 'rotate secret').data;
  console.log('new secret:', rotated.secret);
  const deliveries = must((await client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id: endpoint.id }, query: { status: 'failed' } } })).data, 'deliveries').data;
  for (const delivery of deliveries.data) {
    console.log(delivery.event_kind, delivery.attempts.map((a) => a.status_code ?? a.error));
    await client.POST('/v1/webhooks/{id}/deliveries/{delivery}/redeliver', { params: { path: { id: endpoint.id, delivery: delivery.id } } });
  }
  await client.DELETE('/v1/webhooks/{id}', { params: { path: { id: endpoint.id } } });
}

async function push(client: Client) {
  const server = must((await client.GET('/v1/push/server')).data, 'push server').data;
  console.log('applicationServerKey:', server.vapid_public_key, server.kinds);
  // what a browser's PushSubscription.toJSON() gives, posted as it is
  const browser = { endpoint: 'https://push.example.net/send/abc', expirationTime: null, keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' } };
  const subscription = must((await client.POST('/v1/push/subscriptions', { body: browser })).data, 'subscribe').data;
  await client.POST('/v1/push/subscriptions', { body: { kind: 'fcm', token: 'device-registration-token' } });
  await client.POST('/v1/push/subscriptions', { body: { kind: 'ntfy', endpoint: 'https://ntfy.sh/my-finance-alerts' } });
  const listed = must((await client.GET('/v1/push/subscriptions', { params: { query: { limit: 20 } } })).data, 'subscriptions').data;
  for (const item of listed.data) console.log(item.kind, item.endpoint ?? item.token, item.last_error);
  await client.DELETE('/v1/push/subscriptions/{id}', { params: { path: { id: subscription.id } } });
}

async function mcpTokens(client: Client) {
  const created = must((await client.POST('/v1/ai/mcp/tokens', { body: { name: 'Claude Desktop', scopes: ['read'] } })).data, 'create MCP token').data;
  console.log('paste into the agent, shown once:', created.token, created.scopes);
  const listed = must((await client.GET('/v1/ai/mcp/tokens')).data, 'MCP tokens').data;
  for (const token of listed) console.log(token.name, token.scopes, token.last_used_at);
  await client.DELETE('/v1/ai/mcp/tokens/{tokenId}', { params: { path: { tokenId: created.id } } });
}

async function bankConnections(client: Client) {
  // the setup token the user copied from their SimpleFIN bridge
  const connection = must((await client.POST('/v1/bank-connections', { body: { setup_token: 'aHR0cHM6Ly9icmlkZ2Uuc2ltcGxlZmluLm9yZy9zaW1wbGVmaW4vY2xhaW0vZGVtbw==' } })).data, 'connect').data;
  const [account] = connection.accounts;
  if (account) {
    await client.PUT('/v1/bank-accounts/{id}/wallet', { params: { path: { id: account.id } }, body: {} });
    const sync = must((await client.POST('/v1/bank-connections/{id}/sync', { params: { path: { id: connection.id } } })).data, 'sync').data;
    console.log(sync.status, sync.created_count, sync.error ?? sync.bridge_errors);
    await client.DELETE('/v1/bank-accounts/{id}/wallet', { params: { path: { id: account.id } } });
  }
  const listed = must((await client.GET('/v1/bank-connections', { params: { query: { limit: 20 } } })).data, 'connections').data;
  for (const item of listed.data) for (const a of item.accounts) console.log(item.name, a.name, a.balance, a.wallet_balance, a.difference);
  await client.DELETE('/v1/bank-connections/{id}', { params: { path: { id: connection.id } } });
}

export async function flow(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl: 'http://localhost:3000/api' });
  const token = await accounts(anonymous);
  const client = createClient<paths>({ baseUrl: 'http://localhost:3000/api', headers: { Authorization: `Bearer ${token}` } });
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
  await client.DELETE('/v1/wallets/{id}', { params: { path: { id: context.wallet.id } } });
  await client.POST('/logout');
  await anonymous.POST('/v1/logout');
  await client.DELETE('/v1/account', { body: { confirm_delete: true, reason: 'Trying another app' } });
}
