// Spec-driven fuzzing: for every operation of the bundled spec, valid requests made from its
// schemas (with ids of records the fuzzing user owns, so handlers are reached), then mutations
// of them (test/helpers/fuzz-requests.ts). No answer may be a 5xx, leave the envelope, break the
// spec, or carry a stack trace, SQL or a file path. FUZZ_SEED and FUZZ_COUNT change the run
// (`make fuzz` sends many more). Every finding is fixed and kept below as a regression case.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, decodeJwt } from 'jose';
import t from 'tap';
import { startFakeProvider } from './helpers/fake-provider.js';
import { startApp, type TestApp } from './helpers/harness.js';
import { inProject } from './helpers/project.js';
import { mutate, serialize, validRequest, type FuzzContext, type FuzzRequest } from './helpers/fuzz-requests.js';
import { Rng, unknownPatterns } from './helpers/fuzz-values.js';
import { operations, pathRecordKind, referenceFields, type SpecOperation } from './helpers/spec-walk.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

// The two passes of a CI run (embedded, then PostgreSQL) send different requests, 6,000 each:
// 12,000 distinct requests a run, where the same 10,000 twice took two thirds longer.
const SEED = Number(process.env.FUZZ_SEED ?? 20261125 + (process.env.DATABASE_URL ? 1 : 0));
const COUNT = Number(process.env.FUZZ_COUNT ?? 6_000);
/** Requests in flight at once: inject is in-process, so a small batch keeps both cores busy. */
const BATCH = 8;
const UPLOAD_LIMIT = 2 * 1024 * 1024;
// `make fuzz` sends many more requests than the suite's file timeout allows for.
t.setTimeout(Math.max(240_000, 60_000 + COUNT * 30));


/** A stack frame, SQL text or a path of this machine: none may reach a client. */
// Quantifiers are bounded: the bodies checked hold 1 MB strings, and an unbounded `[\w-]+\.`
// backtracks quadratically over them.
const LEAKS: Array<[string, RegExp]> = [
  ['stack trace', /\n\s{1,20}at |\bat [\w.$<>]{1,200} \((?:file:|node:|\/)|node:internal|node_modules/],
  ['SQL', /\bselect\s[\w*",. ]{1,200}\sfrom\s|\binsert into\s|\bdelete from\s|syntax error at or near|violates (?:foreign key|unique|check|not-null)|relation "\w{1,100}" does not exist|duplicate key value|invalid input syntax for|out of range for type/i],
  ['file path', /\/work\/|\/tmp\/|\/home\/|\/usr\/|\b[\w-]{1,100}\.(?:ts|js|mjs|cjs):\d/],
];

/** Operations whose success ends the caller's session: they run with a throwaway account. */
const SESSION_ENDING = new Set(['logoutUser', 'logoutUserV1', 'deleteAccount']);

// The asset-price provider answers from loopback, so those handlers run instead of answering 503.
const coinGecko = await startFakeProvider(t);
coinGecko.answer((request) =>
  request.path === '/search'
    ? { json: { coins: [{ id: 'bitcoin', name: 'Bitcoin', symbol: 'btc' }], exchanges: [] } }
    : { json: Object.fromEntries((request.query.get('ids') ?? '').split(',').map((id) => [id, { [request.query.get('vs_currencies') ?? 'usd']: 1.5 }])) },
);
const api = await startApp(t, { uploadLimitBytes: UPLOAD_LIMIT, assetPricesUrl: coinGecko.url });

interface Finding {
  request: string;
  status: number;
  problem: string;
}

/**
 * Checks one answer; returns what is wrong with it. A 503 the operation documents (a phone code
 * with no SMS service configured) is the service saying so, not a fault.
 */
function problemsOf(status: number, contentType: string, text: string, contractError?: string, documented: string[] = []): string[] {
  const problems: string[] = [];
  if (status >= 500 && !(status === 503 && documented.includes('503'))) problems.push(`status ${status}`);
  if (contractError) problems.push(contractError.split('\n').slice(0, 3).join(' | '));
  const isJson = contentType.startsWith('application/json');
  if (isJson) {
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push('body is not JSON');
    }
    if (body && (typeof body.success !== 'boolean' || typeof body.message !== 'string')) problems.push('body is not in the envelope');
  } else if (status >= 300 || status < 200) {
    problems.push(`error answered as ${contentType || 'no content type'}`);
  }
  for (const [what, pattern] of LEAKS) if (pattern.test(text)) problems.push(`${what} in the body: ${text.match(pattern)![0]}`);
  return problems;
}

/** Sends a request through the harness's contract check, keeping its raw answer. */
async function send(wire: ReturnType<typeof serialize>) {
  let contractError: string | undefined;
  let raw: { statusCode: number; headers: Record<string, unknown>; body: string } | undefined;
  try {
    // A request that never answers (a deadlock) is a finding, not a hung test run.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 30 s')), 30_000)));
    raw = await Promise.race([api.app.inject({ method: wire.method as never, url: wire.url, headers: wire.headers, payload: wire.payload }), hung]).finally(() => clearTimeout(timer));
  } catch (error) {
    console.error('HANG?', wire.method, wire.url, String(wire.payload ?? '').slice(0, 300), (error as Error).message);
    return { status: 0, contentType: '', text: '', contractError: `inject failed: ${(error as Error).message}` };
  }
  return { status: raw.statusCode, contentType: String(raw.headers['content-type'] ?? ''), text: raw.body, contractError };
}

// ---- the fuzzing user's records ---------------------------------------------------------------

async function fixtures(app: TestApp) {
  const user = await app.newUser();
  const userId = user.user.id as number;
  await app.db.updateTable('users').set({ role: 'admin' }).where('id', '=', userId).execute(); // reach the admin handlers too
  const post = async (url: string, body: unknown, extra: { payload?: Buffer; headers?: Record<string, string> } = {}) => {
    const res = await app.request('POST', url, { token: user.token, body, ...extra });
    if (res.status >= 300) throw new Error(`fixture ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  await post('/api/v1/configurations', { key: 'wallets-allow-negative-balance', type: 'bool', value: true });
  await post('/api/v1/configurations', { key: 'theme', type: 'string', value: 'dark' });
  const wallets = [await post('/api/v1/wallets', { name: 'Cash', type: 'cash', currency: 'EUR', balance: 500 }), await post('/api/v1/wallets', { name: 'Bank', type: 'bank', currency: 'EUR', balance: 500 })];
  const group = await post('/api/v1/groups', { name: 'Home' });
  const party = await post('/api/v1/parties', { name: 'Grocer' });
  const category = await post('/api/v1/categories', { name: 'Food', type: 'expense' });
  const expenseClientId = `${randomUUID()}:${randomUUID()}`;
  const expense = await post('/api/v1/transactions', { type: 'expense', amount: 5, wallet_id: wallets[0].id, categories: [category.id], client_id: expenseClientId });
  const income = await post('/api/v1/transactions', { type: 'income', amount: 3, wallet_id: wallets[0].id });
  const transfer = await post('/api/v1/transfer', { amount: 4, from_wallet_id: wallets[0].id, to_wallet_id: wallets[1].id });
  const budget = await post('/api/v1/budgets', { name: 'Food', amount: 100, currency: 'EUR', period_type: 'monthly', start_date: '2026-01-01', rollover_enabled: true, targets: [{ type: 'category', id: category.id }] });
  const reminder = await post('/api/v1/reminders', { title: 'Pay rent' });
  const upload = multipart([], [{ field: 'files[]', filename: 'a.png', contentType: 'image/png', data: PNG }]);
  const uploaded = await post(`/api/v1/transactions/${expense.id}/files`, undefined, upload);
  const fileId = (Array.isArray(uploaded) ? uploaded[0] : uploaded.files?.[0] ?? uploaded).id as number;
  const csv = multipart([], [{ field: 'file', filename: 's.csv', contentType: 'text/csv', data: Buffer.from('date,amount,description\n2026-01-05,-12.50,Coffee\n') }]);
  const session = await post('/api/v1/import/analyze', undefined, csv);
  const chat = await post('/api/v1/ai/chats', { message: 'How much did I spend?', defer_processing: true });
  const db = app.db;
  const notification = await db.insertInto('notifications').values({ user_id: userId, title: 'Hello', body: 'Hello', updated_at: new Date(), last_synced_at: new Date() }).returning('id').executeTakeFirstOrThrow();
  // Notifications have no create operation: spares for the valid deletes.
  const spareNotifications = await db
    .insertInto('notifications')
    .values(Array.from({ length: 40 }, () => ({ user_id: userId, title: 'Spare', body: 'Spare', updated_at: new Date(), last_synced_at: new Date() })))
    .returning('id')
    .execute();
  const fileImport = await db.insertInto('file_imports').values({ user_id: userId, name: 'a.csv', file_type: 'csv', status: 'completed' }).returning('id').executeTakeFirstOrThrow();
  const failed = await db.insertInto('failed_imports').values({ user_id: userId, file_import_id: fileImport.id, row_number: 2, amount: '12', type: 'expense', date: '2026-01-05', reason: 'Wallet not found' }).returning('id').executeTakeFirstOrThrow();
  const message = await db.selectFrom('chat_messages').select('id').where('chat_session_id', '=', chat.id).orderBy('id').executeTakeFirstOrThrow();
  const action = await db
    .insertInto('agent_actions')
    .values({ user_id: userId, chat_session_id: chat.id, chat_message_id: message.id, action_type: 'party.create', summary: 'Add a party', idempotency_key: randomUUID(), payload: JSON.stringify({ name: 'Baker' }) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const webhook = await post('/api/v1/webhooks', { url: 'https://hooks.example.com/finance', event_kinds: ['transaction.created'] });
  await post('/api/v1/transactions', { type: 'income', amount: 1, wallet_id: wallets[1].id }); // a delivery to the endpoint
  const delivery = await db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', webhook.id).executeTakeFirstOrThrow();
  const pushSubscription = await post('/api/v1/push/subscriptions', { kind: 'ntfy', endpoint: 'https://ntfy.sh/finance-fuzz-kept' });
  const mcpTokens: number[] = [];
  for (let i = 0; i < 12; i++) mcpTokens.push((await post('/api/v1/ai/mcp/tokens', { name: `Agent ${i}` })).id);
  // a connection's secret sealed under another key: a sync answers `failed`, no bridge is asked
  const bankConnections = await db
    .insertInto('bank_connections')
    .values(Array.from({ length: 4 }, () => ({ user_id: userId, provider: 'simplefin' as const, name: 'Fuzz Bank', secret: 'v1.sealed' })))
    .returning('id')
    .execute();
  const bankAccount = await db
    .insertInto('bank_accounts')
    .values({ user_id: userId, connection_id: bankConnections[0].id, external_id: 'ACC', name: 'Checking', currency: 'EUR', balance: '10', balance_date: new Date() })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rule = await post('/api/v1/rules', { name: 'Food', conditions: [{ field: 'description', operator: 'contains', value: 'grocer' }], actions: [{ type: 'set_categories', category_ids: [category.id] }] });
  // a learned rule's proposal, offered: two corrections of live transactions (as PUT of imported lines records them)
  const proposal = await db
    .insertInto('rule_proposals')
    .values({ user_id: userId, field: 'counterparty', key: 'grocer', text: 'Grocer', kind: 'category', category_id: category.id, party_id: null, rule_id: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('rule_corrections')
    .values([expense.id, income.id].map((transactionId) => ({ user_id: userId, transaction_id: transactionId, kind: 'category' as const, proposal_id: proposal.id, from_ids: [] })))
    .execute();
  const victims = [(await app.newUser()).user.id, (await app.newUser()).user.id];
  const pools: Record<string, Array<number | string>> = {
    wallet: wallets.map((w) => w.id),
    group: [group.id],
    party: [party.id],
    category: [category.id],
    configuration: ['theme'],
    transaction: [expense.id, income.id],
    expense: [expense.id],
    'expense-client-id': [expenseClientId],
    transfer: [transfer.id],
    budget: [budget.id],
    reminder: [reminder.id],
    notification: [notification.id],
    file: [fileId],
    'file-import': [fileImport.id],
    'failed-import-row': [failed.id],
    'import-session': [session.id],
    chat: [chat.id],
    user: victims,
    driver: ['google', 'github', 'apple'],
    'webhook-endpoint': [webhook.id],
    'webhook-delivery': [delivery.id],
    'push-subscription': [pushSubscription.id],
    'mcp-token': [mcpTokens[0]!],
    'bank-connection': [bankConnections[0].id],
    'bank-account': [bankAccount.id],
    rule: [rule.id],
    'rule-proposal': [proposal.id],
  };
  const tuples: Record<string, Array<Record<string, number | string>>> = {
    '/v1/transactions/{id}/files/{file_id}': [{ id: expense.id, file_id: fileId }],
    '/v1/ai/chats/{chat}/messages/{message}': [{ chat: chat.id, message: message.id }],
    '/v1/ai/chats/{chat}/actions/{action}': [{ chat: chat.id, action: action.id }],
    '/v1/webhooks/{id}/deliveries/{delivery}': [{ id: webhook.id, delivery: delivery.id }],
  };
  /** Records made to be deleted: a valid delete takes one of these, never a record of `pools`. */
  const spares: Record<string, Array<number | string>> = { notification: spareNotifications.map((n) => n.id), 'mcp-token': mcpTokens.slice(1), 'bank-connection': bankConnections.slice(1).map((c) => c.id) };
  return { user, pools, spares, tuples };
}

// ---- the run ------------------------------------------------------------------------------------

const { user, pools, spares, tuples } = await fixtures(api);
const rng = new Rng(SEED);
const now = new Date();
const referencesByOp = new Map<string, Map<string, string>>();
for (const reference of referenceFields()) {
  const map = referencesByOp.get(reference.operationId) ?? new Map<string, string>();
  map.set(reference.field, reference.kind ?? 'unmapped');
  referencesByOp.set(reference.operationId, map);
}

const key = new TextEncoder().encode(api.config.appKey);
const claims = decodeJwt(user.token);
const badTokens = [
  undefined as unknown as string,
  'not-a-jwt',
  `${user.token.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`,
  await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(1).setExpirationTime(2).sign(key),
  'x'.repeat(9000),
];

function contextFor(op: SpecOperation, throwaway: string): FuzzContext {
  const references = referencesByOp.get(op.operationId);
  const from = (kind: string) => {
    // A valid delete takes a spare (made during the run), so the fixtures stay for the other operations.
    if (op.method === 'DELETE') return spares[kind]?.length ? spares[kind]!.at(-1) : pools[kind] ? 999_999_999 : undefined;
    const pool = [...(pools[kind] ?? []), ...(spares[kind] ?? [])];
    return pool.length ? rng.pick(pool) : undefined;
  };
  return {
    rng,
    now,
    token: SESSION_ENDING.has(op.operationId) ? throwaway : user.token,
    badTokens,
    uploadLimitBytes: UPLOAD_LIMIT,
    reference(field, siblings) {
      const kind = references?.get(field);
      if (!kind) return undefined;
      if (kind === 'target') return from(String(siblings.type ?? 'category'));
      const value = from(kind);
      return /_ids$|^categories/.test(field.split('.').pop()!) && value !== undefined ? [value] : value;
    },
    pathValue(template, param) {
      const tuple = Object.entries(tuples).find(([prefix]) => template.startsWith(prefix))?.[1];
      if (tuple) return String(rng.pick(tuple)[param]);
      const value = from(pathRecordKind(template, param));
      if (value === undefined) throw new Error(`${template}: no record for {${param}}: add one to the fuzz fixtures`);
      return String(value);
    },
  };
}

/** Records a created or deleted record in the pools, so later requests name live records. */
function track(request: FuzzRequest, status: number, text: string): void {
  const { op } = request;
  if (op.method === 'POST' && status === 201 && !op.path.includes('{')) {
    const data = JSON.parse(text)?.data;
    const id = data?.id ?? data?.user?.id; // registration answers {user, token}
    const kind = /register/.test(op.path) ? 'user' : createdKind(op.path);
    if (typeof id === 'number' && kind && pools[kind]) (spares[kind] ??= []).push(id);
  }
  if (op.method === 'DELETE' && status === 200 && Object.keys(request.params).length === 1) {
    const [param, value] = Object.entries(request.params)[0]!;
    const spare = spares[pathRecordKind(op.path, param)];
    const index = spare?.findIndex((id) => String(id) === value) ?? -1;
    if (spare && index >= 0) spare.splice(index, 1);
  }
}

/** The kind of record a create at `path` makes. */
function createdKind(path: string): string | undefined {
  if (path === '/v1/import') return 'file-import';
  if (path.startsWith('/v1/import/analyze')) return 'import-session';
  if (path === '/v1/ai/mcp/tokens') return 'mcp-token';
  try {
    return pathRecordKind(`${path}/{id}`, 'id');
  } catch {
    return undefined;
  }
}

t.test(`${COUNT} generated requests (seed ${SEED}): no 5xx, all in the envelope and the spec, nothing leaked`, async (t) => {
  const findings: Finding[] = [];
  const perMutation: Record<string, number> = {};
  const validOutcomes = new Map<string, { sent: number; succeeded: number }>();
  const covered = new Set<string>();
  const validFailures = new Map<string, string>();
  const timing = new Map<string, number>();
  const startedAt = performance.now();
  let throwaway = (await api.newUser()).token;
  let sent = 0;
  let unavailable = 0;
  let turn = 0;
  while (sent < COUNT) {
    const batch: FuzzRequest[] = [];
    while (batch.length < BATCH && sent + batch.length < COUNT) {
      const op = operations[turn++ % operations.length]!;
      // Public account routes hash passwords (argon2, tens of ms each): a quarter of the share.
      if (op.public && !rng.chance(0.25)) continue;
      const valid = validRequest(op, contextFor(op, throwaway));
      batch.push(rng.chance(0.35) ? valid : mutate(valid, contextFor(op, throwaway)));
    }
    if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, batch.map((r) => { const w = serialize(r); return `${sent} ${r.op.operationId} ${r.mutation} ${w.method} ${w.url.slice(0, 300)} ${String(w.payload ?? '').slice(0, 300)}\n`; }).join('') + `---- ${new Date().toISOString()}\n`);
    const answers = await Promise.all(batch.map(async (request) => { const started = performance.now(); const a = await send(serialize(request)); const k = `${request.op.operationId} ${request.mutation}`; timing.set(k, (timing.get(k) ?? 0) + performance.now() - started); return a; }));
    for (const [i, request] of batch.entries()) {
      const answer = answers[i]!;
      sent++;
      covered.add(request.op.operationId);
      perMutation[request.mutation] = (perMutation[request.mutation] ?? 0) + 1;
      const problems = problemsOf(answer.status, answer.contentType, answer.text, answer.contractError, request.op.statuses);
      if (answer.status === 503 && problems.length === 0) unavailable++;
      const wire = serialize(request);
      for (const problem of problems) findings.push({ request: `${request.op.operationId} ${request.mutation}: ${wire.method} ${wire.url.slice(0, 200)} ${String(wire.payload ?? '').slice(0, 300)}`, status: answer.status, problem });
      if (request.mutation === 'valid') {
        const outcome = validOutcomes.get(request.op.operationId) ?? { sent: 0, succeeded: 0 };
        outcome.sent++;
        if (answer.status < 300) outcome.succeeded++;
        else if (!validFailures.has(request.op.operationId)) validFailures.set(request.op.operationId, `${answer.status} ${answer.text.slice(0, 300)} ← ${wire.method} ${wire.url} ${String(wire.payload ?? '').slice(0, 300)}`);
        validOutcomes.set(request.op.operationId, outcome);
        track(request, answer.status, answer.text);
        if (SESSION_ENDING.has(request.op.operationId) && answer.status < 300) throwaway = (await api.newUser()).token;
      }
    }
  }
  const valid = [...validOutcomes.values()].reduce((sum, o) => ({ sent: sum.sent + o.sent, succeeded: sum.succeeded + o.succeeded }), { sent: 0, succeeded: 0 });
  const neverSucceeded = [...validOutcomes].filter(([, o]) => o.succeeded === 0).map(([id]) => id);
  t.comment(`took ${Math.round(performance.now() - startedAt)} ms; slowest: ${[...timing].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')}`);
  t.comment(`sent ${sent} requests over ${covered.size} operations; mutations: ${JSON.stringify(perMutation)}; documented 503s: ${unavailable}`);
  t.comment(`valid requests: ${valid.succeeded}/${valid.sent} succeeded; never succeeded: ${neverSucceeded.join(', ') || 'none'}`);
  t.same([...unknownPatterns], [], 'every pattern of the spec has a value generator');
  t.equal(covered.size, operations.length, 'every operation of the spec was fuzzed');
  t.ok(valid.succeeded / valid.sent > 0.5, 'most valid requests reach their handler and succeed');
  const distinct = new Map(findings.map((f) => [`${f.request.split(':')[0]} → ${f.status} ${f.problem.slice(0, 120)}`, f]));
  for (const summary of distinct.keys()) t.comment(`finding: ${summary}`);
  const report = inProject('.tap', 'fuzz-findings.json');
  mkdirSync(path.dirname(report), { recursive: true });
  writeFileSync(report, JSON.stringify({ findings: [...distinct.values()], validFailures: Object.fromEntries(validFailures) }, null, 1));
  t.equal(findings.length, 0, `${findings.length} findings (${distinct.size} distinct)`);
});

/** Requests the fuzzer found answering 500, kept as they were found (with the fuzzing user's ids). */
const REGRESSIONS: Array<{ name: string; method: string; url: string; headers?: Record<string, string>; payload?: string; status: number }> = [
  // nulCharacterErrors recursed once per level: RangeError (stack overflow), 500.
  { name: 'a JSON body nested 5000 deep', method: 'POST', url: '/api/v1/transactions', headers: { 'content-type': 'application/json' }, payload: '['.repeat(5000) + ']'.repeat(5000), status: 422 },
  // busboy threw plain errors the error handler did not know: 500.
  { name: 'multipart without a boundary', method: 'POST', url: '/api/login', headers: { 'content-type': 'multipart/form-data' }, payload: '{"email":"a@b.c"}', status: 400 },
  { name: 'a truncated multipart body', method: 'POST', url: '/api/v1/transactions', headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue', status: 400 },
  // A form with no part left request.body undefined and readMultipart read its entries: 500.
  { name: 'a multipart form with no part', method: 'POST', url: `/api/v1/transactions/${pools.transaction![0]}/files`, headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x--\r\n', status: 422 },
  // NUL in a path parameter reached SQL ("invalid byte sequence for encoding UTF8"): 500.
  { name: 'NUL in a path parameter', method: 'DELETE', url: '/api/v1/configurations/%00', status: 404 },
  // A field named `constructor` found the Object constructor in the errors object: "list.includes is not a function", 500.
  { name: 'a body field named constructor', method: 'POST', url: `/api/v1/transactions/${pools.transaction![1]}/refund`, headers: { 'content-type': 'application/json' }, payload: '{"constructor":{"prototype":{"x":1}}}', status: 422 },
  // An integer without a minimum reached SQL below bigint's range: 500.
  { name: 'an id of -2^63 in a body', method: 'POST', url: '/api/v1/transactions', headers: { 'content-type': 'application/json' }, payload: `{"type":"income","amount":1,"wallet_id":${pools.wallet![0]},"group_id":-9223372036854776000}`, status: 422 },
  // An unpaired surrogate went through JSON.stringify as `\ud800` and jsonb refused the escape: 500.
  { name: 'an unpaired surrogate in a configuration value', method: 'POST', url: '/api/v1/configurations', headers: { 'content-type': 'application/json' }, payload: '{"key":"country","type":"string","value":"\\ud800"}', status: 422 },
  { name: 'NUL in a key of a free-form object', method: 'POST', url: '/api/v1/reminders', headers: { 'content-type': 'application/json' }, payload: '{"title":"x","metadata":{"k\\u0000":1}}', status: 422 },
];

t.test('requests that once broke the service answer as they should', async (t) => {
  for (const regression of REGRESSIONS) {
    const headers = { authorization: `Bearer ${user.token}`, ...regression.headers };
    const answer = await send({ method: regression.method, url: regression.url, headers, payload: regression.payload });
    t.same(problemsOf(answer.status, answer.contentType, answer.text, answer.contractError), [], regression.name);
    t.equal(answer.status, regression.status, `${regression.name}: ${answer.text.slice(0, 200)}`);
  }
});

t.test('a message sent while its chat is deleted is 404, never 500 (the insert raced the delete: foreign key violation)', async (t) => {
  for (let i = 0; i < 3; i++) {
    const chat = await api.request('POST', '/api/v1/ai/chats', { token: user.token, body: { message: 'hi', defer_processing: true } });
    const [deleted, sent] = await Promise.all([
      api.request('DELETE', `/api/v1/ai/chats/${chat.body.data.id}`, { token: user.token }),
      api.request('POST', `/api/v1/ai/chats/${chat.body.data.id}/messages`, { token: user.token, body: { message: 'hello', defer_processing: true } }),
    ]);
    t.equal(deleted.status, 200);
    t.ok([201, 404].includes(sent.status), `message: ${sent.status} ${JSON.stringify(sent.body).slice(0, 120)}`);
    const left = await api.db.selectFrom('chat_messages').select('id').where('chat_session_id', '=', chat.body.data.id).execute();
    t.same(left, [], 'no message outlives its chat');
  }
});
