// The web UI's calls (reference/clients.md §1.1, §4.1, §7), screen by screen as its flows make
// them: register and login, the shared loaders (initializeData), onboarding, the dashboard,
// wallets, transactions with their filters and files, transfers, categories, groups, parties,
// settings, reminders, notifications, the assistant, logout. Bodies are the web's own: JSON
// without client ids (except groups and the Settings adoption), ISO times from
// `toISOString()`, files as base64 strings, nulls kept.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestResponse } from '../helpers/harness.js';
import { MARKUP } from '../helpers/plain-text.js';
import { PNG } from '../helpers/transaction-fixtures.js';
import { assertStoredTime, type ReadBack, type State, type Step } from './driver.js';
import { envelope, webCategory, webConfig, webGroup, webNotification, webPage, webParty, webReminder, webStats, webTransaction, webUser, webWallet } from './entities.js';
import { oneOf, oneOfOrNull, optional, type Shape } from './shapes.js';

const PASSWORD = 'a long web password';
const authReads = envelope({ token: 'string', user: webUser });
/** What the web reads of a write it does not look into: `data` is there (truthiness) or ignored. */
const anyData = envelope('any?');
const succeeded: Shape = { success: oneOf(true) };
const WEB_DEVICE = '00000000-0000-0000-0000-000000000000';
const BASE64_PNG = `data:image/png;base64,${PNG.toString('base64')}`;

/** Dates a user picks in the web's forms (sent with toISOString()), in the past. */
const PICKED = { expense: '2025-03-12T18:45:10.250Z', edited: '2025-03-13T08:00:00.000Z', transfer: '2025-03-14T00:00:00.000Z' };

/** The transfer and both its legs are dated `sent`, read back after the write. */
async function assertTransferDated(transferId: number, sent: string, read: ReadBack): Promise<void> {
  const transfer = await read(`/transfers/${transferId}`);
  assertStoredTime(transfer.datetime, sent, 'the transfer\'s datetime', 's');
  assertStoredTime(transfer.created_at, sent, 'the transfer\'s created_at');
  for (const leg of ['expense', 'income']) assertStoredTime((await read(`/transactions/${transfer[`${leg}_transaction_id`]}`)).datetime, sent, `the ${leg} leg's datetime`, 's');
}

const rowsOf = (res: TestResponse) => res.body.data.data as Array<Record<string, any>>;
const configValue = (res: TestResponse, key: string) => rowsOf(res).find((c) => c.key === key)?.value;

export interface WebSetup {
  codeFor(address: string): Promise<string>;
  /** An authorization code of the fake provider that signs in as `email`. */
  oauthCode(email: string): string;
  /** Notifications the server made for the user (a reminder fired, a budget alert). */
  notify(state: State): Promise<void>;
}

export function webSteps({ codeFor, oauthCode, notify }: WebSetup): Step[] {
  /** initializeData (§7): the six loaders, then the transactions. */
  const initializeData = (why: string): Step[] => [
    ...(['income', 'expense'] as const).map(
      (type): Step => ({
        call: 'GET /categories',
        does: `${why}: ${type} categories`,
        url: `/categories?type=${type}`,
        reads: webPage(webCategory),
        check: (res) => assert.ok(rowsOf(res).every((c) => c.type === type), `only ${type}`),
      }),
    ),
    { call: 'GET /parties', does: `${why}: parties`, url: '/parties?limit=20', reads: webPage(webParty) },
    { call: 'GET /wallets', does: `${why}: wallets`, url: '/wallets?limit=20', reads: webPage(webWallet), save: (res, s) => void (s.wallets = rowsOf(res)) },
    { call: 'GET /groups', does: `${why}: groups`, url: '/groups?limit=20', reads: { ...(succeeded as object), ...(webPage(webGroup) as object) }, save: (res, s) => void (s.groups = rowsOf(res)) },
    { call: 'GET /configurations', does: `${why}: settings`, url: '/configurations', reads: webPage(webConfig) },
    { call: 'GET /transactions', does: `${why}: the latest 100 transactions`, url: '/transactions?limit=100', reads: webPage(webTransaction) },
  ];

  const transactionBody = (s: State, amount: number, description: string, datetime: string) => ({
    amount,
    type: 'expense',
    description,
    datetime,
    party_id: s.party?.id ?? null,
    wallet_id: s.wallet.id,
    group_id: s.groups[0].id,
    categories: [s.category.id],
    files: [BASE64_PNG],
  });

  return [
    // ---------------------------------------------------------------- register (§7.1)
    { call: 'POST /send-verification-code', does: 'asks for a code', url: '/send-verification-code', anonymous: true, json: (s) => ({ contact: s.email, type: 'email', purpose: 'registration' }), reads: { success: oneOf(true) } },
    {
      call: 'POST /verify-code',
      does: 'sends the code',
      url: '/verify-code',
      anonymous: true,
      prepare: async (s) => ({ contact: s.email, code: await codeFor(s.email), type: 'email', purpose: 'registration' }),
      reads: { success: oneOf(true) },
    },
    {
      call: 'POST /register',
      does: 'registers',
      url: '/register',
      anonymous: true,
      json: (s) => ({ first_name: 'Grace', last_name: 'Hopper', password: PASSWORD, email: s.email }),
      status: 201,
      reads: authReads,
      save: (res, s) => void (s.token = res.body.data.token),
    },
    ...initializeData('after register'),

    // ---------------------------------------------------------------- login (§7.2)
    {
      call: 'POST /login',
      does: 'logs in with remember:false',
      url: '/login',
      anonymous: true,
      json: (s) => ({ email: s.email, password: PASSWORD, remember: false }),
      reads: authReads,
      save: (res, s) => void (s.token = res.body.data.token),
    },
    { call: 'GET /user', does: 're-validates the stored user at start-up', url: '/user', reads: envelope(webUser) },
    {
      call: 'GET /oauth/google/login',
      does: 'asks where to send the browser for Google',
      url: '/oauth/google/login?state=web-state-123',
      anonymous: true,
      reads: envelope({ url: 'string' }),
      check: (res) => assert.match(res.body.data.url, /state=web-state-123/),
    },
    {
      call: 'GET /oauth/{}/callback',
      does: 'finishes Google login with the code and the state from the cookie',
      url: (s) => `/oauth/google/callback?code=${oauthCode(s.email)}&state=web-state-123`,
      anonymous: true,
      reads: authReads,
      check: (res, s) => assert.equal(res.body.data.user.email, s.email, 'the same account'),
    },
    {
      call: 'GET /user',
      does: 'the password login still works after Google: the address was verified at sign-up, so Google linked the account instead of taking it over',
      url: '/user',
      reads: envelope(webUser),
    },

    // ---------------------------------------------------------------- onboarding (§7.3)
    {
      call: 'PUT /wallets/{}',
      does: 'onboarding renames the existing wallet (partial body)',
      url: (s) => `/wallets/${s.wallets[0].id}`,
      json: { name: 'Everyday', currency: 'EUR' },
      reads: envelope(webWallet),
      check: (res) => assert.equal(res.body.data.name, 'Everyday'),
    },
    ...(
      [
        ['default-lang', 'fr'],
        ['default-currency', 'EUR'],
      ] as const
    ).map(
      ([key, value]): Step => ({
        call: 'POST /configurations',
        does: `onboarding saves ${key}`,
        url: '/configurations',
        json: { key, value, type: 'string' },
        status: [200, 201],
        reads: anyData,
      }),
    ),
    {
      call: 'POST /configurations',
      does: 'onboarding saves default-wallet as the wallet id in a string',
      url: '/configurations',
      json: (s) => ({ key: 'default-wallet', value: String(s.wallets[0].id), type: 'string' }),
      status: [200, 201],
      reads: anyData,
    },
    {
      call: 'POST /categories/seed-defaults',
      does: 'onboarding seeds the default categories',
      url: '/categories/seed-defaults',
      status: [200, 201],
      reads: envelope({ created: 'int', skipped: 'int', categories: [webCategory] }),
    },
    {
      call: 'POST /configurations',
      does: 'onboarding completes',
      url: '/configurations',
      json: { key: 'onboarding-complete', value: true, type: 'bool' },
      status: [200, 201],
      reads: anyData,
    },
    {
      call: 'GET /configurations',
      does: 'login decides dashboard or onboarding from onboarding-complete',
      url: '/configurations',
      reads: webPage(webConfig),
      check: (res) => {
        assert.equal(configValue(res, 'onboarding-complete'), true, 'a bool comes back a bool');
        assert.equal(configValue(res, 'default-lang'), 'fr');
      },
    },

    // ---------------------------------------------------------------- dashboard (§7.4)
    ...['all_time', 'current_week', 'current_month', 'last_3_months'].map(
      (preset): Step => ({ call: 'GET /stats', does: `dashboard figures, preset ${preset}`, url: `/stats?preset=${preset}`, reads: envelope(webStats) }),
    ),
    { call: 'GET /stats', does: 'dashboard figures for one wallet', url: (s) => `/stats?preset=current_month&wallet_ids=${s.wallets[0].id}`, reads: envelope(webStats) },
    {
      call: 'GET /stats',
      does: 'reports: a custom window over two wallets with plain dates',
      url: (s) => `/stats?start_date=2026-01-01&end_date=2026-12-31&wallet_ids=${s.wallets.map((w: { id: number }) => w.id).join(',')}`,
      reads: envelope(webStats),
    },
    { call: 'GET /notifications/unread-count', does: 'the bell', url: '/notifications/unread-count', reads: envelope({ count: 'int' }) },

    // ---------------------------------------------------------------- wallets (§7.5)
    {
      call: 'POST /wallets',
      does: 'creates a wallet with a Lucide icon name as an image icon',
      url: '/wallets',
      json: { name: 'Savings', type: 'bank', description: 'Rainy days', currency: 'EUR', balance: 500, icon: 'PiggyBank', icon_type: 'image' },
      status: 201,
      reads: envelope(webWallet),
      check: (res) => assert.equal(res.body.data.balance, 500),
      save: (res, s) => void (s.wallet = res.body.data),
    },
    {
      call: 'POST /wallets',
      does: 'creates a second wallet in another currency',
      url: '/wallets',
      json: { name: 'Dollars', type: 'cash', description: '', currency: 'USD', balance: 0 },
      status: 201,
      reads: envelope(webWallet),
      save: (res, s) => void (s.dollars = res.body.data),
    },
    {
      call: 'PUT /wallets/{}',
      does: 'edits it with the full form',
      url: (s) => `/wallets/${s.wallet.id}`,
      json: { name: 'Savings account', type: 'bank', description: 'Rainy days', currency: 'EUR', balance: 500, icon: 'Landmark', icon_type: 'image' },
      reads: envelope(webWallet),
    },

    // ---------------------------------------------------------------- categories, groups, parties (§7.8)
    {
      call: 'POST /categories',
      does: 'creates a category',
      url: '/categories',
      json: { name: 'Books', description: 'Paper ones', type: 'expense', icon: 'BookOpen', icon_type: 'image' },
      status: 201,
      reads: envelope(webCategory),
      save: (res, s) => void (s.category = res.body.data),
    },
    { call: 'PUT /categories/{}', does: 'edits it', url: (s) => `/categories/${s.category.id}`, json: { name: 'Books and comics', description: 'Paper ones', type: 'expense', icon: 'BookOpen', icon_type: 'image' }, reads: envelope(webCategory) },
    {
      call: 'POST /groups',
      does: 'creates a group with its own uuid:uuid client id; success must be true',
      url: '/groups',
      json: (s) => ({ name: 'Side project', description: 'Evenings', icon: '🛠️', icon_type: 'emoji', client_id: (s.groupClientId = `${randomUUID()}:${randomUUID()}`), created_at: (s.groupCreatedAt = new Date(Date.now() - 90_000).toISOString()) }),
      status: 201,
      reads: { ...(succeeded as object), ...(envelope(webGroup) as object) },
      check: async (res, s, read) => {
        assert.equal(res.body.data.client_generated_id, s.groupClientId);
        assertStoredTime((await read(`/groups/${res.body.data.id}`)).created_at, s.groupCreatedAt, 'the group\'s created_at');
      },
      save: (res, s) => void (s.group = res.body.data),
    },
    { call: 'PUT /groups/{}', does: 'edits it; success must be true', url: (s) => `/groups/${s.group.id}`, json: { name: 'Side projects', description: 'Evenings', icon: '🛠️', icon_type: 'emoji' }, reads: { ...(succeeded as object), ...(envelope(webGroup) as object) } },
    {
      call: 'POST /parties',
      does: 'creates a party',
      url: '/parties',
      json: { name: 'Bookshop', type: 'business', description: 'On the square', icon: 'Store', icon_type: 'image' },
      status: 201,
      reads: envelope(webParty),
      save: (res, s) => void (s.party = res.body.data),
    },
    { call: 'PUT /parties/{}', does: 'edits it', url: (s) => `/parties/${s.party.id}`, json: { name: 'The bookshop', type: 'organization', description: 'On the square' }, reads: envelope(webParty) },
    { call: 'GET /groups', does: 'the groups screen', url: '/groups?limit=20', reads: { ...(succeeded as object), ...(webPage(webGroup) as object) }, save: (res, s) => void (s.groups = rowsOf(res)) },
    { call: 'GET /parties', does: 'the parties screen', url: '/parties?limit=20', reads: webPage(webParty) },

    // ---------------------------------------------------------------- add transaction (§7.6)
    {
      call: 'POST /transactions',
      does: 'adds an expense as JSON (nullable ids, categories, base64 files), dated by the user in the past',
      url: '/transactions',
      json: (s) => transactionBody(s, 42.5, 'Two novels', PICKED.expense),
      status: 201,
      reads: envelope(webTransaction),
      check: async (res, _s, read) => assertStoredTime((await read(`/transactions/${res.body.data.id}`)).datetime, PICKED.expense, 'datetime', 's'),
      save: (res, s) => void (s.transaction = res.body.data),
    },
    {
      call: 'POST /transactions/{}/files',
      does: 'sends the chosen files again as base64 strings in JSON',
      url: (s) => `/transactions/${s.transaction.id}/files`,
      json: { files: [BASE64_PNG] },
      reads: envelope(webTransaction),
      check: (res) => assert.ok(res.body.data.files.length >= 1, 'the file is attached'),
      save: (res, s) => void (s.files = res.body.data.files),
    },
    {
      call: 'POST /transactions/{}/files',
      does: 'a base64 string that is no image or PDF is refused on its index',
      url: (s) => `/transactions/${s.transaction.id}/files`,
      json: { files: [Buffer.from('not an image').toString('base64')] },
      status: 422,
      reads: { success: oneOf(false), errors: { 'files.0': ['string'] } },
    },
    {
      call: 'POST /transactions',
      does: 'adds an income without party or group (JSON nulls)',
      url: '/transactions',
      json: (s) => ({ amount: 1200, type: 'income', description: 'Salary', datetime: (s.salaryDate = new Date(Date.now() - 86_400_000).toISOString()), party_id: null, wallet_id: s.wallet.id, group_id: null, categories: [] }),
      status: 201,
      reads: envelope(webTransaction),
      check: async (res, s, read) => assertStoredTime((await read(`/transactions/${res.body.data.id}`)).datetime, s.salaryDate, 'datetime', 's'),
    },
    { call: 'GET /transactions/{}', does: 'opens it for editing', url: (s) => `/transactions/${s.transaction.id}`, reads: envelope(webTransaction) },
    {
      call: 'PUT /transactions/{}',
      does: 'saves the edit with the create body (no type query, no updated_at), moved to another day',
      url: (s) => `/transactions/${s.transaction.id}`,
      json: (s) => ({ ...transactionBody(s, 45, 'Three novels', PICKED.edited), files: [] }),
      reads: envelope(webTransaction),
      check: async (res, s, read) => {
        assert.equal(Number(res.body.data.amount), 45);
        assertStoredTime((await read(`/transactions/${s.transaction.id}`)).datetime, PICKED.edited, 'datetime', 's');
      },
    },
    {
      call: 'DELETE /transactions/{}/files/{}',
      does: 'removes an attachment',
      url: (s) => `/transactions/${s.transaction.id}/files/${s.files[0].id}`,
      reads: anyData,
    },
    {
      call: 'GET /transactions',
      does: 'the list, newest first (the dashboard shows the first five)',
      url: '/transactions?limit=100',
      reads: webPage(webTransaction),
      check: (res) => {
        const times = rowsOf(res).map((tx) => Date.parse(tx.datetime));
        assert.deepEqual(times, [...times].sort((a, b) => b - a), 'datetime descending');
      },
    },

    // ---------------------------------------------------------------- transfer (§7.7)
    {
      call: 'POST /transfers',
      does: 'moves money between two wallets of one currency, back-dated: the day picked is sent as created_at',
      url: '/transfers',
      json: (s) => ({ amount: 50, from_wallet_id: s.wallet.id, to_wallet_id: s.wallets[0].id, created_at: PICKED.transfer }),
      status: 201,
      reads: envelope('object'),
      check: (res, _s, read) => assertTransferDated(res.body.data.id, PICKED.transfer, read),
    },
    {
      call: 'POST /transfers',
      does: 'moves money to another currency with exchange_rate',
      url: '/transfers',
      json: (s) => ({ amount: 100, from_wallet_id: s.wallet.id, to_wallet_id: s.dollars.id, created_at: (s.transferDate = new Date(Date.now() - 3_600_000).toISOString()), exchange_rate: 1.08 }),
      status: 201,
      reads: envelope('object'),
      check: (res, s, read) => assertTransferDated(res.body.data.id, s.transferDate, read),
    },
    { call: 'GET /wallets', does: 'reloads the wallets after the transfer', url: '/wallets?limit=20', reads: webPage(webWallet), check: (res, s) => assert.equal(rowsOf(res).find((w) => w.id === s.dollars.id)?.balance, 108) },
    {
      call: 'GET /transactions',
      does: 'reloads the list: the transfer legs carry transfer_id',
      url: '/transactions?limit=100',
      reads: webPage(webTransaction),
      check: (res) => assert.equal(rowsOf(res).filter((tx) => tx.transfer_id !== null).length, 4, 'two legs per transfer'),
    },
    { call: 'GET /transfers', does: 'lists transfers', url: '/transfers?limit=20', reads: webPage('object') },

    // ---------------------------------------------------------------- settings (§7.9)
    { call: 'GET /configurations', does: 'settings: general', url: '/configurations', reads: webPage(webConfig) },
    { call: 'PUT /configurations/{}', does: 'settings: saves the language', url: '/configurations/default-lang', json: { value: 'de', type: 'string' }, reads: anyData },
    { call: 'PUT /configurations/{}', does: 'settings: saves the currency without a type', url: '/configurations/default-currency', json: { value: 'USD' }, reads: anyData },
    {
      call: 'PUT /wallets/{}',
      does: 'settings: gives the default wallet a client id (only client_id)',
      url: (s) => `/wallets/${s.wallet.id}`,
      json: (s) => ({ client_id: (s.walletClientId = `${WEB_DEVICE}:${randomUUID()}`) }),
      reads: envelope(webWallet),
      check: (res, s) => assert.equal(res.body.data.client_generated_id, s.walletClientId),
    },
    { call: 'PUT /configurations/{}', does: 'settings: default-wallet = that client id', url: '/configurations/default-wallet', json: (s) => ({ value: s.walletClientId, type: 'string' }), reads: anyData },
    {
      call: 'PUT /groups/{}',
      does: 'settings: gives a group a client id (only client_id)',
      url: (s) => `/groups/${s.groups.find((g: { client_generated_id: string | null }) => !g.client_generated_id).id}`,
      json: () => ({ client_id: `${WEB_DEVICE}:${randomUUID()}` }),
      reads: { ...(succeeded as object), ...(envelope(webGroup) as object) },
    },
    { call: 'PUT /configurations/{}', does: 'settings: no default group (value null)', url: '/configurations/default-group', json: { value: null }, reads: anyData },
    { call: 'GET /configurations/{}', does: 'reads one setting', url: '/configurations/default-lang', reads: envelope(webConfig), check: (res) => assert.equal(res.body.data.value, 'de') },
    {
      call: 'GET /notifications/preferences',
      does: 'settings: notification switches',
      url: '/notifications/preferences',
      reads: envelope({ channels: { email: 'bool', push: 'bool', inapp: 'bool' }, types: { reminders: 'bool', insights: 'bool', inactivity: 'bool' } }),
    },
    {
      call: 'PUT /notifications/preferences',
      does: 'settings: saves them',
      url: '/notifications/preferences',
      json: { channels: { email: false, push: true, inapp: true }, types: { reminders: true, insights: false, inactivity: true } },
      reads: envelope({ channels: { email: oneOf(false) }, types: { insights: oneOf(false) } }),
    },

    // ---------------------------------------------------------------- reminders (§7.10)
    {
      call: 'POST /reminders',
      does: 'creates a monthly bill reminder',
      url: '/reminders',
      json: (s) => ({ title: 'Rent', description: 'Pay the landlord', type: 'bill_due', trigger_at: (s.triggerAt = new Date(Date.now() + 86_400_000).toISOString()), timezone: 'Europe/Paris', priority: 2, repeat_rule: 'FREQ=MONTHLY' }),
      status: 201,
      reads: envelope(webReminder),
      check: async (res, s, read) => assertStoredTime((await read(`/reminders/${res.body.data.id}`)).trigger_at, s.triggerAt, 'trigger_at'),
      save: (res, s) => void (s.reminder = res.body.data),
    },
    { call: 'GET /reminders', does: 'the reminders screen', url: '/reminders', reads: webPage(webReminder) },
    {
      call: 'PUT /reminders/{}',
      does: 'edits it with the same fields',
      url: (s) => `/reminders/${s.reminder.id}`,
      json: (s) => ({ title: 'Rent', description: 'Pay the landlord', type: 'bill_due', trigger_at: (s.triggerAt = new Date(Date.now() + 2 * 86_400_000).toISOString()), timezone: 'UTC', priority: 1, repeat_rule: 'FREQ=WEEKLY' }),
      reads: envelope(webReminder),
      check: async (_res, s, read) => assertStoredTime((await read(`/reminders/${s.reminder.id}`)).trigger_at, s.triggerAt, 'trigger_at'),
    },
    { call: 'POST /reminders/{}/pause', does: 'pauses it', url: (s) => `/reminders/${s.reminder.id}/pause`, reads: envelope({ ...(webReminder as object), status: oneOf('paused') }) },
    { call: 'POST /reminders/{}/resume', does: 'resumes it', url: (s) => `/reminders/${s.reminder.id}/resume`, reads: envelope({ ...(webReminder as object), status: oneOf('active') }) },
    { call: 'POST /reminders/{}/snooze', does: 'snoozes it for a duration', url: (s) => `/reminders/${s.reminder.id}/snooze`, json: { duration: 60 }, reads: envelope({ ...(webReminder as object), status: oneOf('snoozed') }) },
    { call: 'GET /reminders/{}', does: 'reads one', url: (s) => `/reminders/${s.reminder.id}`, reads: envelope(webReminder) },
    { call: 'DELETE /reminders/{}', does: 'deletes it', url: (s) => `/reminders/${s.reminder.id}`, reads: anyData },

    // ---------------------------------------------------------------- notifications (§7.11)
    {
      before: notify,
      call: 'GET /notifications/unread-count',
      does: 'the bell on mount',
      url: '/notifications/unread-count',
      reads: envelope({ count: 'int' }),
      check: (res) => assert.equal(res.body.data.count, 2),
    },
    {
      call: 'GET /notifications',
      does: 'opens the bell: 10 with the unread count',
      url: '/notifications?limit=10',
      reads: webPage(webNotification, { unread_count: 'int' }),
      save: (res, s) => void (s.notifications = rowsOf(res)),
    },
    { call: 'POST /notifications/{}/read', does: 'clicks an unread one (no body)', url: (s) => `/notifications/${s.notifications[0].id}/read`, reads: anyData },
    { call: 'GET /notifications/{}', does: 'reads one', url: (s) => `/notifications/${s.notifications[0].id}`, reads: envelope({ ...(webNotification as object), read_at: 'iso' }) },
    { call: 'POST /notifications/read-all', does: 'marks all read (no body)', url: '/notifications/read-all', reads: anyData },
    {
      call: 'GET /notifications',
      does: 'the notifications page: 20, "load more" when meta.has_more',
      url: '/notifications?limit=20',
      reads: webPage(webNotification, { unread_count: oneOf(0), meta: optional({ has_more: 'bool' }) }),
    },
    { call: 'DELETE /notifications/{}', does: 'deletes one', url: (s) => `/notifications/${s.notifications[1].id}`, reads: anyData },

    // ---------------------------------------------------------------- assistant (§7.12)
    {
      call: 'POST /ai/chat',
      does: 'asks a question and reads the answer in the same response',
      url: '/ai/chat',
      json: { message: 'What are my balances?' },
      reads: { success: oneOf(true), data: { answer: 'string', format_type: oneOfOrNull('scalar', 'pair', 'record', 'list', 'pair_list', 'table', 'raw'), results: ['object'] } },
      check: (res) => {
        // The web prints `answer` as it is and lays the figures out from `results` by `format_type` (clients.md §4.1).
        const { answer, format_type: formatType, results } = res.body.data;
        assert.doesNotMatch(answer, MARKUP, 'plain text: no Markdown marks');
        assert.match(answer, /^You have \d+ wallets\. Total: /);
        assert.equal(formatType, 'table');
        assert.deepEqual(Object.keys(results[0]), ['wallet', 'balance', 'currency'], 'columns in display order');
        const savings = results.find((row: Record<string, unknown>) => row.wallet === 'Savings account');
        assert.ok(savings && savings.currency === 'EUR' && typeof savings.balance === 'number', 'the figures are about this user');
      },
    },
    { call: 'GET /ai/health', does: 'checks the assistant (tests only)', url: '/ai/health', reads: envelope({ available: 'bool' }) },

    // ---------------------------------------------------------------- deletes from the screens, then logout (§7.5, §7.6, §7.8, §7.14)
    { call: 'DELETE /transactions/{}', does: 'deletes a transaction from the list', url: (s) => `/transactions/${s.transaction.id}`, reads: anyData },
    { call: 'DELETE /categories/{}', does: 'deletes the category', url: (s) => `/categories/${s.category.id}`, reads: anyData },
    { call: 'DELETE /groups/{}', does: 'deletes the group; success must be true', url: (s) => `/groups/${s.group.id}`, reads: succeeded },
    { call: 'DELETE /parties/{}', does: 'deletes the party', url: (s) => `/parties/${s.party.id}`, reads: anyData },
    { call: 'DELETE /wallets/{}', does: 'deletes the dollar wallet', url: (s) => `/wallets/${s.dollars.id}`, reads: anyData },
    { call: 'DELETE /configurations/{}', does: 'deletes a setting', url: '/configurations/default-group', reads: anyData },
    { call: 'POST /logout', does: 'logs out', url: '/logout', reads: anyData },
    { call: 'GET /user', does: 'the revoked token is refused: 401 sends the web to /login', url: '/user', status: 401, reads: { success: oneOf(false), message: 'string' } },
  ];
}
