// Object-level authorization, swept from the spec: user A owns one of every resource; user B
// calls every operation of every path that names a record, with A's ids and a body valid for
// the operation. Every answer must be 404 (403 on admin routes) and A's rows must be byte for
// byte what they were. A new route with a path parameter is covered without anyone writing a
// test for it: an operation whose parameter this file cannot fill fails the sweep.
// Also every way a token can be wrong: none, malformed, tampered, expired, logged out, deleted.
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { sql } from 'kysely';
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { startApp } from './helpers/harness.js';
import { referenceFields, resolve, spec, type ReferenceField, type Schema } from './helpers/spec-walk.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

/** A small instance of `schema`: required properties only, from examples, enums and types. */
function sample(schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(schema);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((part: Schema) => sample(part, depth + 1)));
  if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0], depth + 1);
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sample(s.properties?.[key], depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, depth + 1));
    case 'integer':
    case 'number':
      return Math.max(1, s.minimum ?? 1);
    case 'boolean':
      return true;
    case 'string':
      if (s.format === 'date-time') return new Date(Date.now() + 86400_000).toISOString();
      if (s.format === 'date') return '2026-01-01';
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    default:
      return {};
  }
}

const api = await startApp(t);
const owner = await api.newUser();
const intruder = await api.newUser();
const A = owner.user.id as number;

const post = async (url: string, body: unknown) => {
  const res = await api.request('POST', url, { token: owner.token, body });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
};
const wallet = await post('/api/v1/wallets', { name: 'Mine', type: 'cash', currency: 'EUR', balance: 100 });
const savings = await post('/api/v1/wallets', { name: 'Savings', type: 'cash', currency: 'EUR', balance: 0 });
const group = await post('/api/v1/groups', { name: 'Mine' });
const party = await post('/api/v1/parties', { name: 'Mine' });
const category = await post('/api/v1/categories', { name: 'Mine', type: 'expense' });
await post('/api/v1/configurations', { key: 'theme', type: 'string', value: 'dark' });
const expenseClientId = `${randomUUID()}:${randomUUID()}`;
const expense = await post('/api/v1/transactions', { type: 'expense', amount: 5, wallet_id: wallet.id, categories: [category.id], party_id: party.id, group_id: group.id, client_id: expenseClientId });
const income = await post('/api/v1/transactions', { type: 'income', amount: 3, wallet_id: wallet.id });
await post(`/api/v1/transactions/${income.id}/refund`, { original_transaction_id: expense.id });
const transfer = await post('/api/v1/transfer', { amount: 4, from_wallet_id: wallet.id, to_wallet_id: savings.id });
const budget = await post('/api/v1/budgets', { name: 'Mine', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01', rollover: true });
const reminder = await post('/api/v1/reminders', { title: 'Mine' });
const webhook = await post('/api/v1/webhooks', { url: 'https://hooks.example.com/mine', event_kinds: ['transaction.created'] });
await post('/api/v1/transactions', { type: 'income', amount: 1, wallet_id: wallet.id }); // a delivery to the endpoint
const webhookDelivery = await api.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', webhook.id).executeTakeFirstOrThrow();
const pushSubscription = await post('/api/v1/push/subscriptions', { kind: 'fcm', token: 'device-of-a:APA91b' });
const mcpToken = await post('/api/v1/ai/mcp/tokens', { name: 'Mine' });
const chat = await api.db.insertInto('chat_sessions').values({ user_id: A, title: 'Mine' }).returning('id').executeTakeFirstOrThrow();
const rule = await post('/api/v1/rules', { name: 'Mine', conditions: [{ field: 'description', operator: 'contains', value: 'mine' }], actions: [{ type: 'set_categories', category_ids: [category.id] }] });
// a learned rule's proposal, offered (two corrections of live transactions, as edits of imported lines record them)
const proposal = await api.db
  .insertInto('rule_proposals')
  .values({ user_id: A, field: 'counterparty', key: 'mine', text: 'Mine', kind: 'category', category_id: category.id, party_id: null, rule_id: null })
  .returning('id')
  .executeTakeFirstOrThrow();
await api.db
  .insertInto('rule_corrections')
  .values([expense.id, income.id].map((transactionId) => ({ user_id: A, transaction_id: transactionId, kind: 'category' as const, proposal_id: proposal.id, from_ids: [] })))
  .execute();

// Rows the API has no public way to make for a test, written as the service would.
const fileRow = await api.db
  .insertInto('files')
  .values({ user_id: A, model: 'transaction', type: 'image', transaction_id: expense.id, path: 'receipts/a.png', original_name: 'a.png', mime_type: 'image/png', size: 1 })
  .returning('id')
  .executeTakeFirstOrThrow();
const notification = await api.db
  .insertInto('notifications')
  .values({ user_id: A, title: 'Mine', body: 'Mine', updated_at: new Date(), last_synced_at: new Date() })
  .returning('id')
  .executeTakeFirstOrThrow();
const fileImport = await api.db
  .insertInto('file_imports')
  .values({ user_id: A, name: 'a.csv', file_type: 'csv' })
  .returning('id')
  .executeTakeFirstOrThrow();
const aFailed = await api.db
  .insertInto('failed_imports')
  .values({ user_id: A, file_import_id: fileImport.id, row_number: 2, amount: '1', type: 'expense', date: '2026-01-05', reason: 'Wallet not found' })
  .returning('id')
  .executeTakeFirstOrThrow();
const session = await api.db
  .insertInto('import_sessions')
  .values({ user_id: A, file_name: 'a.csv', file_type: 'csv', status: 'ready' }) // ready: the analysis job below leaves it alone
  .returning('id')
  .executeTakeFirstOrThrow();
const message = await api.db
  .insertInto('chat_messages')
  .values({ user_id: A, chat_session_id: chat.id, role: 'assistant', status: 'completed', content: 'Mine' })
  .returning('id')
  .executeTakeFirstOrThrow();
const action = await api.db
  .insertInto('agent_actions')
  .values({ user_id: A, chat_session_id: chat.id, chat_message_id: message.id, action_type: 'party.create', summary: 'Mine', idempotency_key: randomUUID(), payload: JSON.stringify({ name: 'Mine' }) })
  .returning('id')
  .executeTakeFirstOrThrow();

const bankConnection = await api.db
  .insertInto('bank_connections')
  .values({ user_id: A, provider: 'simplefin', name: 'Mine', secret: 'v1.sealed' })
  .returning('id')
  .executeTakeFirstOrThrow();
const bankAccount = await api.db
  .insertInto('bank_accounts')
  .values({ user_id: A, connection_id: bankConnection.id, external_id: 'ACC', name: 'Mine', currency: 'EUR', balance: '10', balance_date: new Date(), wallet_id: wallet.id })
  .returning('id')
  .executeTakeFirstOrThrow();

/** A's record named by a path parameter, by the path's first segment after /v1. */
const idsByResource: Record<string, number | string> = {
  wallets: wallet.id,
  groups: group.id,
  parties: party.id,
  categories: category.id,
  configurations: 'theme',
  transactions: expense.id,
  files: fileRow.id,
  transfers: transfer.id,
  budgets: budget.id,
  notifications: notification.id,
  reminders: reminder.id,
  admin: A,
  imports: fileImport.id,
  import: session.id,
  ai: chat.id,
  webhooks: webhook.id,
  push: pushSubscription.id,
  'bank-connections': bankConnection.id,
  'bank-accounts': bankAccount.id,
  rules: rule.id,
};
const idsByParam: Record<string, number> = { file_id: fileRow.id, chat: chat.id, message: message.id, action: action.id, delivery: webhookDelivery.id, tokenId: mcpToken.id, proposal: proposal.id };

/** Bodies the schema sampler cannot make valid on its own (a number given as a string...). */
const upload = multipart([], [{ field: 'files[]', filename: 'a.png', contentType: 'image/png', data: PNG }]);
const bodies: Record<string, { body?: unknown; payload?: Buffer; headers?: Record<string, string> }> = {
  updateTransaction: { body: { amount: 1, updated_at: new Date().toISOString() } },
  updateWebhookEndpoint: { body: { active: false } },
  fixFailedImports: { body: [{ id: 1, amount: 1, type: 'expense', date: '2026-01-01' }] },
  uploadTransactionFiles: upload,
  uploadChatMessageFiles: upload,
};

/** Everything a user owns, as text: compared before and after a sweep. */
async function snapshotOf(userId: number): Promise<string> {
  // bookkeeping, not the user's data: tokens, page marks, and the data version (which counts each write, so two equal writes differ in it)
  const tables = await sql<{ table_name: string }>`
    select c.table_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
     where c.table_schema = 'public' and c.column_name = 'user_id' and t.table_type = 'BASE TABLE'
       and c.table_name not in ('tokens', 'sync_page_marks', 'user_versions') order by c.table_name`.execute(api.db);
  const parts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(table_name)} where user_id = ${userId} order by 1`.execute(api.db);
    parts.push(`${table_name}: ${JSON.stringify(rows.rows)}`);
  }
  const user = await sql`select * from users where id = ${userId}`.execute(api.db);
  return `${parts.join('\n')}\nusers: ${JSON.stringify(user.rows)}`;
}

t.test("every operation on another user's record answers 404 (403 on admin routes) and changes nothing", async (t) => {
  const before = await snapshotOf(A);
  let calls = 0;
  for (const [template, item] of Object.entries<Record<string, Schema>>(spec.paths)) {
    if (!template.includes('{')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!op.operationId || (Array.isArray(op.security) && op.security.length === 0)) continue; // public routes name no user's record
      const resource = template.split('/')[2]!;
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const value = name === 'id' || name === 'key' ? idsByResource[resource] : idsByParam[name];
        if (value === undefined) throw new Error(`${op.operationId}: no id of user A for {${name}}: add it to this sweep`);
        return String(value);
      });
      const query = (op.parameters ?? [])
        .map(resolve)
        .filter((p: Schema) => p.in === 'query' && p.required)
        .map((p: Schema) => `${p.name}=${encodeURIComponent(String(sample(p.schema)))}`);
      const json = op.requestBody?.content?.['application/json'];
      const res = await api.request(method.toUpperCase(), `/api${url}${query.length ? `?${query.join('&')}` : ''}`, {
        token: intruder.token,
        ...(bodies[op.operationId] ?? (json ? { body: sample(json.schema) } : {})),
      });
      calls++;
      const expected = template.startsWith('/v1/admin') ? 403 : 404;
      t.equal(res.status, expected, `${method.toUpperCase()} ${template} (${op.operationId}): ${JSON.stringify(res.body).slice(0, 200)}`);
      t.notMatch(JSON.stringify(res.body), /"Mine"/, `${op.operationId}: none of A's data in the answer`);
    }
  }
  t.ok(calls >= 50, `${calls} operations swept`);
  t.equal(await snapshotOf(A), before, "A's rows are exactly as they were");
  // tokens are bookkeeping the snapshot leaves out: A's MCP token must still be live
  t.same((await api.request('GET', '/api/v1/ai/mcp/tokens', { token: owner.token })).body.data.map((row: { id: number }) => row.id), [mcpToken.id], "A's MCP token is not revoked");
});

t.test('every wrong token is 401, on a protected route of each method', async (t) => {
  const key = new TextEncoder().encode(api.config.appKey);
  const claims = decodeJwt(owner.token);
  const expired = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(1).setExpirationTime(2).sign(key);
  const [header, payload] = owner.token.split('.');
  const tampered = `${header}.${payload}.${'A'.repeat(43)}`;
  const loggedIn = await api.request('POST', '/api/login', { body: { email: owner.email, password: owner.password } });
  const loggedOut = loggedIn.body.data.token as string;
  t.equal((await api.request('POST', '/api/logout', { token: loggedOut })).status, 200);
  const doomed = await api.newUser();
  t.equal((await api.request('DELETE', '/api/v1/account', { token: doomed.token, body: { confirm_delete: true } })).status, 200);
  const cases: Array<[string, string | undefined]> = [
    ['none', undefined],
    ['malformed', 'not-a-jwt'],
    ['tampered signature', tampered],
    ['expired', expired],
    ['after logout', loggedOut],
    ['after account deletion', doomed.token],
  ];
  for (const [label, token] of cases) {
    for (const [method, url] of [
      ['GET', '/api/v1/user'],
      ['GET', `/api/v1/wallets/${wallet.id}`],
      ['PUT', `/api/v1/groups/${group.id}`],
      ['DELETE', `/api/v1/parties/${party.id}`],
      ['POST', '/api/v1/transactions'],
    ] as const) {
      const res = await api.request(method, url, { token, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      t.equal(res.status, 401, `${label}: ${method} ${url}`);
    }
  }
});

// ---- references in bodies and queries ----------------------------------------------------------

/** B's own records: the rest of each request is valid for B, so only the swept reference can fail. */
const ownPost = async (url: string, body: unknown, extra: { payload?: Buffer; headers?: Record<string, string> } = {}) => {
  const res = await api.request('POST', url, { token: intruder.token, body, ...extra });
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
};
const B = intruder.user.id as number;
const own = {
  wallet: (await ownPost('/api/v1/wallets', { name: 'Theirs', type: 'cash', currency: 'EUR', balance: 100 })).id as number,
  wallet2: (await ownPost('/api/v1/wallets', { name: 'Theirs 2', type: 'cash', currency: 'EUR', balance: 0 })).id as number,
  budget: (await ownPost('/api/v1/budgets', { name: 'Theirs', amount: 10, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01' })).id as number,
  income: (await ownPost('/api/v1/transactions', { type: 'income', amount: 2, wallet_id: (await api.db.selectFrom('wallets').select('id').where('user_id', '=', B).executeTakeFirstOrThrow()).id })).id as number,
};
const ownExpense = await ownPost('/api/v1/transactions', { type: 'expense', amount: 1, wallet_id: own.wallet });
const ownTransfer = await ownPost('/api/v1/transfer', { amount: 1, from_wallet_id: own.wallet, to_wallet_id: own.wallet2 });
const csv = multipart([], [{ field: 'file', filename: 's.csv', contentType: 'text/csv', data: Buffer.from('date,amount,description\n2026-01-05,-12.50,Coffee\n') }]);
const ownSession = await ownPost('/api/v1/import/analyze', undefined, csv);
// Analysed as the queue would, so import confirm reaches its checks of the accepted rows.
await analyzeImportJob.run({ db: api.db, services: api.app.services, log: api.app.log }, { sessionId: ownSession.id });
const ownImport = await api.db.insertInto('file_imports').values({ user_id: B, name: 'b.csv', file_type: 'csv', status: 'completed' }).returning('id').executeTakeFirstOrThrow();
const ownFailed = await api.db
  .insertInto('failed_imports')
  .values({ user_id: B, file_import_id: ownImport.id, row_number: 2, amount: '1', type: 'expense', date: '2026-01-05', reason: 'Wallet not found' })
  .returning('id')
  .executeTakeFirstOrThrow();
const ownRule = await ownPost('/api/v1/rules', { name: 'Theirs', conditions: [{ field: 'description', operator: 'contains', value: 'theirs' }], actions: [{ type: 'skip' }] });
const ownChat = await api.db.insertInto('chat_sessions').values({ user_id: B, title: 'Theirs' }).returning('id').executeTakeFirstOrThrow();
const ownMessage = await api.db
  .insertInto('chat_messages')
  .values({ user_id: B, chat_session_id: ownChat.id, role: 'assistant', status: 'completed', content: 'Theirs' })
  .returning('id')
  .executeTakeFirstOrThrow();
const ownAction = (action_type: 'transaction.create' | 'transfer.create', payload: object) =>
  api.db
    .insertInto('agent_actions')
    .values({ user_id: B, chat_session_id: ownChat.id, chat_message_id: ownMessage.id, action_type, summary: 'Theirs', idempotency_key: randomUUID(), payload: JSON.stringify(payload) })
    .returning('id')
    .executeTakeFirstOrThrow();
const transactionAction = await ownAction('transaction.create', { type: 'expense', amount: 1, wallet_id: own.wallet });
const transferAction = await ownAction('transfer.create', { amount: 1, from_wallet_id: own.wallet, to_wallet_id: own.wallet2 });

/** A's record of each kind a reference field can name (budget targets by their `type`). */
const othersRecord: Record<string, number | string> = {
  wallet: wallet.id,
  party: party.id,
  group: group.id,
  category: category.id,
  budget: budget.id,
  expense: expense.id,
  'expense-client-id': expenseClientId,
  'import-session': session.id,
  'failed-import-row': aFailed.id,
  user: A,
};
const MISSING_ID = 2_000_000_000;
const missingRecord = (kind: string) => (kind === 'expense-client-id' ? `${randomUUID()}:${randomUUID()}` : MISSING_ID);

interface SweepRequest {
  method: string;
  url: string;
  query: Record<string, string>;
  body?: unknown;
  /** Multipart fields instead of a JSON body. */
  form?: Array<[string, string]>;
}

/** A request of `operationId` valid for B apart from the field swept; a new operation falls back to the spec's sample. */
function baseRequest(op: { operationId: string; method: string; path: string }, field: string): SweepRequest {
  const url = (params: Record<string, number>) => `/api${op.path.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]))}`;
  const later = new Date(Date.now() + 86_400_000).toISOString();
  switch (op.operationId) {
    case 'createTransaction':
      return { method: 'POST', url: url({}), query: {}, body: { type: 'expense', amount: 1, wallet_id: own.wallet } };
    case 'updateTransaction':
      return { method: 'PUT', url: url({ id: ownExpense.id }), query: { type: 'expense' }, body: { amount: 1, updated_at: later } };
    case 'markTransactionRefund':
      return { method: 'POST', url: url({ id: own.income }), query: {}, body: {} };
    case 'createTransfer':
    case 'createTransferAlias':
      return { method: 'POST', url: url({}), query: {}, body: { amount: 1, from_wallet_id: own.wallet, to_wallet_id: own.wallet2 } };
    case 'updateTransfer':
      return { method: 'PUT', url: url({ id: ownTransfer.id }), query: {}, body: { amount: 1, from_wallet_id: own.wallet, to_wallet_id: own.wallet2 } };
    case 'createBudget':
      return { method: 'POST', url: url({}), query: {}, body: { name: `Swept ${randomUUID()}`, amount: 10, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01' } };
    case 'updateBudget':
      return { method: 'PUT', url: url({ id: own.budget }), query: {}, body: {} };
    case 'fixFailedImports':
      // A transfer row, so that `pair_id` is read.
      return { method: 'PUT', url: url({ id: ownImport.id }), query: {}, body: [{ id: ownFailed.id, amount: 1, type: 'transfer', date: '2026-01-05', wallet: 'Theirs', to_wallet: 'Theirs 2' }] };
    case 'createRule':
    case 'updateRule':
      return {
        method: op.method,
        url: url({ id: ownRule.id }),
        query: {},
        body: { name: 'Swept', conditions: [{ field: 'description', operator: 'contains', value: 'swept' }], actions: [{ type: 'skip' }] },
      };
    case 'confirmImport':
      return { method: 'POST', url: url({}), query: {}, body: { session_id: ownSession.id, accepted: [{ index: 0 }] } };
    case 'confirmAgentAction':
      return { method: 'POST', url: url({ chat: ownChat.id, action: /from_|to_/.test(field) ? transferAction.id : transactionAction.id }), query: {}, body: { overrides: {} } };
  }
  const json = spec.paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content?.['application/json'];
  return { method: op.method, url: url({}), query: {}, body: json ? sample(json.schema) : undefined };
}

/** `request` with `field` naming `value` (for a budget target, of kind `targetType`). */
function withReference(request: SweepRequest, reference: ReferenceField, value: number | string, targetType?: string): SweepRequest {
  const out: SweepRequest = { ...request, query: { ...request.query }, body: structuredClone(request.body) };
  const list = reference.kind === 'category' && /categories|_ids$/.test(reference.field);
  if (reference.location === 'query') {
    out.query[reference.field] = String(value);
    return out;
  }
  const segments = reference.field.split('.');
  /** A split line (issue 44) of `amount` whole, naming the record. */
  const splitLine = (amount: unknown) => ({ amount, [segments.at(-1)!]: value });
  if (reference.mediaType === 'multipart/form-data') {
    const fields = Object.entries((out.body ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)] as [string, string]);
    // a form's split lines are one part holding their JSON array
    const part: [string, string] = reference.field.startsWith('splits[].') ? ['splits', JSON.stringify([splitLine((out.body as any).amount)])] : [reference.field, String(value)];
    out.form = [...fields, part];
    out.body = undefined;
    return out;
  }
  if (reference.field === 'targets[].id') (out.body as any).targets = [{ type: targetType, id: value }];
  else if (reference.field === 'owner.id') (out.body as any).owner = { type: 'user', id: value };
  else if (reference.field.startsWith('[].')) (out.body as any[])[0][reference.field.slice(3)] = value;
  else if (reference.field.startsWith('conditions[].')) (out.body as any).conditions = [{ field: 'wallet', wallet_ids: [value] }];
  else if (reference.field.startsWith('actions[].splits[].')) (out.body as any).actions = [{ type: 'set_splits', splits: [{ percent: 50 }, { percent: 50, [segments.at(-1)!]: value }] }];
  else if (reference.field.startsWith('actions[].')) (out.body as any).actions = [ruleActionNaming(reference.field.slice('actions[].'.length), value)];
  // the sample statement's one line is 12.50
  else if (reference.field.startsWith('accepted[].splits[].')) (out.body as any).accepted = [{ index: 0, splits: [splitLine(12.5)] }];
  else if (reference.field.startsWith('accepted[].')) (out.body as any).accepted = [{ index: 0, [segments[1]!]: value }];
  else if (reference.field.startsWith('splits[].')) (out.body as any).splits = [splitLine((out.body as any).amount)];
  else if (segments.length === 2) ((out.body as any)[segments[0]!] ??= {})[segments[1]!] = list ? [value] : value;
  else (out.body as any)[reference.field] = list || /_ids$/.test(reference.field) ? [value] : value;
  return out;
}

/** A rule action that names `value` in `field`. */
function ruleActionNaming(field: string, value: number | string) {
  const type = { category_ids: 'set_categories', party_id: 'set_party', group_id: 'set_group', wallet_id: 'transfer_to_wallet' }[field];
  return { type, [field]: field.endsWith('_ids') ? [value] : value };
}

async function sendAsIntruder(request: SweepRequest) {
  const search = new URLSearchParams(request.query).toString();
  const url = `${request.url}${search ? `?${search}` : ''}`;
  if (request.form) {
    const form = multipart(request.form);
    return api.request(request.method, url, { token: intruder.token, payload: form.payload, headers: form.headers });
  }
  return api.request(request.method, url, { token: intruder.token, body: request.body });
}

/** What a client can tell apart: status, message, field errors, and the data of a success (the id it sent echoed as `<id>`). */
function observable(res: { status: number; body: any }, sent: number | string) {
  const { last_sync: _, ...data } = (res.body?.data ?? {}) as Record<string, unknown>;
  const echoed = JSON.stringify(data).replace(new RegExp(`("(?:\\w+_)?id":)${sent}(?=[,}\\]])`, 'g'), '$1"<id>"');
  return { status: res.status, message: res.body?.message, errors: res.body?.errors, data: res.status < 300 ? echoed : undefined };
}

const withoutTimes = (snapshot: string) => snapshot.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"');

t.test("a reference to another user's record in a body or query answers exactly like a missing one and writes nothing", async (t) => {
  const references = referenceFields();
  const unmapped = references.filter((r) => r.kind === undefined).map((r) => `${r.operationId} ${r.field}`);
  t.same(unmapped, [], 'every id field of a request is mapped to the record it names (test/helpers/spec-walk.ts)');
  const operationsById = new Map<string, { operationId: string; method: string; path: string }>();
  for (const [template, item] of Object.entries<Record<string, Schema>>(spec.paths)) {
    for (const [method, op] of Object.entries(item)) if (op.operationId) operationsById.set(op.operationId, { operationId: op.operationId, method: method.toUpperCase(), path: template });
  }
  const beforeA = await snapshotOf(A);
  const beforeB = await snapshotOf(B);
  let cases = 0;
  const statuses = new Map<string, string[]>();
  for (const reference of references.filter((r) => r.kind)) {
    const op = operationsById.get(reference.operationId)!;
    const base = baseRequest(op, reference.field);
    for (const targetType of reference.kind === 'target' ? ['category', 'group', 'wallet'] : [undefined]) {
      const kind = targetType ?? reference.kind!;
      const label = `${reference.operationId} ${reference.location} ${reference.mediaType ?? ''} ${reference.field}${targetType ? ` (${targetType})` : ''}`;
      // The missing id first: what it writes (a failed fix records its reason on B's row) is
      // what A's id may write, and nothing more.
      const missingValue = missingRecord(kind);
      const missing = observable(await sendAsIntruder(withReference(base, reference, missingValue, targetType)), missingValue);
      const afterMissing = await snapshotOf(B);
      const others = observable(await sendAsIntruder(withReference(base, reference, othersRecord[kind]!, targetType)), othersRecord[kind]!);
      cases++;
      statuses.set(`${others.status}`, [...(statuses.get(`${others.status}`) ?? []), label.replace(/ +/g, ' ')]);
      t.same(others, missing, `${label}: A's ${kind} is indistinguishable from a missing one (${others.status} ${others.message})`);
      t.equal(withoutTimes(await snapshotOf(B)), withoutTimes(afterMissing), `${label}: nothing written for B beyond what a missing id writes`);
      t.notMatch(JSON.stringify(others), /"Mine"/, `${label}: none of A's data in the answer`);
      // A refusal is about the swept field (or the admin role), not another part of the request.
      const name = reference.field.split(/[.[\]]+/).filter(Boolean).pop()!;
      if (others.status === 422) t.ok(Object.keys(others.errors ?? {}).some((key) => key.includes(name)), `${label}: 422 names the field: ${JSON.stringify(others.errors)}`);
    }
  }
  for (const [status, labels] of statuses) t.comment(`${status}: ${labels.join('; ')}`);
  t.ok(cases >= 40, `${cases} body and query references swept`);
  t.equal(await snapshotOf(A), beforeA, "A's rows are exactly as they were");
  t.equal(withoutTimes(await snapshotOf(B)).replace(/"reason":"[^"]*"/g, ''), withoutTimes(beforeB).replace(/"reason":"[^"]*"/g, ''), "B's rows are as they were, but for the reasons recorded on failed fixes");
});
