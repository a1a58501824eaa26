// The daily pruning job, with a controllable clock: what it removes, what it keeps, reruns and
// two workers.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { jobs } from '../jobs/index.js';
import { pruneExpired, pruneExpiredJob } from '../jobs/prune-expired.js';
import { startApp } from './helpers/harness.js';

let clock = new Date('2026-03-10T03:15:00Z');
const api = await startApp(t, { now: () => clock });
const jobContext = { db: api.db, services: api.app.services, log: api.app.log };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (offsetMs: number) => new Date(clock.getTime() + offsetMs);
/** The MCP OAuth server's counts when it has no rows to prune (the last test gives it some). */
const NO_MCP_OAUTH = { mcpOauthCodes: 0, mcpOauthRefreshTokens: 0, mcpOauthClients: 0 };

let serial = 0;
async function code(label: string, row: { expiresAt: Date; consumedAt?: Date; verifiedAt?: Date }) {
  await api.db
    .insertInto('verification_codes')
    .values({
      contact: `${label}-${++serial}@example.test`,
      purpose: 'registration',
      code_hash: 'hash',
      expires_at: row.expiresAt,
      consumed_at: row.consumedAt ?? null,
      verified_at: row.verifiedAt ?? null,
    })
    .execute();
  return `${label}-${serial}@example.test`;
}
async function email(label: string, status: 'pending' | 'sent' | 'failed', updatedAt: Date) {
  await api.db
    .insertInto('emails')
    .values({ kind: 'notification', to_address: `${label}@example.test`, subject: label, text_body: 'body', status, updated_at: updatedAt, created_at: updatedAt })
    .execute();
  return label;
}
async function oauthState(label: string, expiresAt: Date) {
  await api.db.insertInto('oauth_states').values({ provider: 'google', state_hash: label, code_verifier: 'verifier', expires_at: expiresAt }).execute();
  return label;
}
const contacts = async () => (await api.db.selectFrom('verification_codes').select('contact').orderBy('contact').execute()).map((r) => r.contact);
const subjects = async () => (await api.db.selectFrom('emails').select('subject').orderBy('subject').execute()).map((r) => r.subject);
const states = async () => (await api.db.selectFrom('oauth_states').select('state_hash').orderBy('state_hash').execute()).map((r) => r.state_hash);
const clear = async () => {
  for (const table of ['verification_codes', 'emails', 'oauth_states'] as const) await api.db.deleteFrom(table).execute();
};

t.test('the job is registered with a daily schedule', async (t) => {
  t.ok(jobs.includes(pruneExpiredJob));
  t.equal(pruneExpiredJob.cron, '15 3 * * *');
});

t.test('removes what has expired or been used, keeps the rest; a rerun changes nothing', async (t) => {
  clock = new Date('2026-03-10T03:15:00Z');
  await clear();
  const keptCodes = [
    await code('live', { expiresAt: at(10 * 60_000) }),
    await code('verified-live', { expiresAt: at(5 * 60_000), verifiedAt: at(-60_000) }),
    await code('expired-an-hour-ago', { expiresAt: at(-HOUR) }),
    await code('expired-23h-ago', { expiresAt: at(-23 * HOUR) }),
  ];
  const goneCodes = [
    await code('consumed-just-now', { expiresAt: at(9 * 60_000), consumedAt: at(-60_000) }),
    await code('expired-25h-ago', { expiresAt: at(-25 * HOUR) }),
    await code('expired-a-month-ago', { expiresAt: at(-30 * DAY), verifiedAt: at(-30 * DAY - HOUR) }),
  ];
  const keptEmails = [
    await email('pending-old', 'pending', at(-90 * DAY)), // never sent yet: never pruned
    await email('sent-29-days', 'sent', at(-29 * DAY)),
    await email('failed-29-days', 'failed', at(-29 * DAY)),
    await email('sent-yesterday', 'sent', at(-DAY)),
  ];
  const goneEmails = [await email('sent-31-days', 'sent', at(-31 * DAY)), await email('failed-a-year', 'failed', at(-365 * DAY))];
  const keptStates = [await oauthState('live-state', at(5 * 60_000))];
  const goneStates = [await oauthState('expired-state', at(-60_000)), await oauthState('expires-now', at(0))];
  const user = await api.newUser();
  const token = await api.db.selectFrom('tokens').select('id').where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
  const mark = (page: number, createdAt: Date) => ({ token_id: token.id, feed: 'parties?[]', page, after_stamp: createdAt, after_id: 1, created_at: createdAt });
  await api.db.insertInto('sync_page_marks').values([mark(1, at(-25 * HOUR)), mark(2, at(-HOUR))]).execute();
  const marks = async () => (await api.db.selectFrom('sync_page_marks').select('page').where('token_id', '=', token.id).execute()).map((r) => r.page);

  await pruneExpiredJob.run(jobContext, {});
  t.same(await marks(), [2], 'a page mark older than a day goes, a fresh one stays');
  t.same(await contacts(), [...keptCodes].sort(), `codes kept; removed: ${goneCodes.join(', ')}`);
  t.same(await subjects(), [...keptEmails].sort(), `e-mails kept; removed: ${goneEmails.join(', ')}`);
  t.same(await states(), keptStates, `states kept; removed: ${goneStates.join(', ')}`);

  t.same(await pruneExpired(api.db, clock), { verificationCodes: 0, emails: 0, webhookEvents: 0, pushDeliveries: 0, oauthStates: 0, pageMarks: 0, ...NO_MCP_OAUTH }, 'a rerun finds nothing');
  t.same(await contacts(), [...keptCodes].sort());

  clock = new Date(clock.getTime() + 2 * DAY); // two days on: most kept rows age past their limits
  t.same(await pruneExpired(api.db, clock), { verificationCodes: 4, emails: 2, webhookEvents: 0, pushDeliveries: 0, oauthStates: 1, pageMarks: 1, ...NO_MCP_OAUTH });
  t.same(await contacts(), []);
  t.same(await subjects(), ['pending-old', 'sent-yesterday'], 'a pending e-mail stays however old; one sent 3 days ago stays');
  t.same(await states(), []);
});

t.test('many rows go in batches; two workers share them and remove each once', async (t) => {
  clock = new Date('2026-04-01T03:15:00Z');
  await clear();
  const expired = Array.from({ length: 2500 }, (_, i) => ({
    provider: 'github',
    state_hash: `old-${i}`,
    code_verifier: 'v',
    expires_at: at(-HOUR - i * 1000),
  }));
  await api.db.insertInto('oauth_states').values(expired).execute();
  await oauthState('fresh', at(HOUR));
  await email('old-sent', 'sent', at(-40 * DAY));

  const [first, second] = await Promise.all([pruneExpired(api.db, clock), pruneExpired(api.db, clock)]);
  t.equal(first.oauthStates + second.oauthStates, 2500, 'every expired state deleted exactly once');
  t.equal(first.emails + second.emails, 1);
  t.same(await states(), ['fresh']);
  t.same(await subjects(), []);
});

t.test('webhook events go 30 days after their deliveries finished, never while one is pending', async (t) => {
  clock = new Date('2026-06-01T03:15:00Z');
  const { user } = await api.newUser();
  const endpoint = await api.db
    .insertInto('webhook_endpoints')
    .values({ user_id: user.id, url: 'https://hooks.example.com/x', event_kinds: ['transaction.created'], secret: 's' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const event = async (name: string, ageDays: number, delivery: { status: 'pending' | 'succeeded' | 'failed'; changedDaysAgo: number }) => {
    const id = crypto.randomUUID();
    await api.db.insertInto('webhook_events').values({ id, user_id: user.id, kind: 'transaction.created', subject_id: 1, payload: name, created_at: at(-ageDays * DAY) }).execute();
    const row = await api.db
      .insertInto('webhook_deliveries')
      .values({ user_id: user.id, endpoint_id: endpoint.id, event_id: id, status: delivery.status, updated_at: at(-delivery.changedDaysAgo * DAY) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await api.db.insertInto('webhook_attempts').values({ delivery_id: row.id, attempted_at: at(-delivery.changedDaysAgo * DAY), duration_ms: 5, status_code: 200, error: null }).execute();
  };
  await event('delivered-long-ago', 40, { status: 'succeeded', changedDaysAgo: 40 });
  await event('failed-long-ago', 60, { status: 'failed', changedDaysAgo: 50 });
  await event('pending-forever', 90, { status: 'pending', changedDaysAgo: 90 });
  await event('resent-lately', 90, { status: 'succeeded', changedDaysAgo: 2 });
  await event('recent', 3, { status: 'succeeded', changedDaysAgo: 3 });

  const counts = await pruneExpired(api.db, clock);
  t.equal(counts.webhookEvents, 2);
  const left = await api.db.selectFrom('webhook_events').select('payload').where('user_id', '=', user.id).orderBy('payload').execute();
  t.same(left.map((r) => r.payload), ['pending-forever', 'recent', 'resent-lately']);
  const deliveries = await api.db.selectFrom('webhook_deliveries').select('id').where('user_id', '=', user.id).execute();
  t.equal(deliveries.length, 3, 'their deliveries went with them');
  t.equal((await api.db.selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', deliveries.map((d) => d.id)).execute()).length, 3);
});

t.test('finished pushes go 30 days after they finished, pending ones never', async (t) => {
  clock = new Date('2026-06-01T03:15:00Z');
  const { user } = await api.newUser();
  const subscription = await api.db.insertInto('push_subscriptions').values({ user_id: user.id, kind: 'ntfy', address: 'https://ntfy.sh/prune' }).returning('id').executeTakeFirstOrThrow();
  const push = (payload: string, status: 'pending' | 'sent' | 'failed', changedDaysAgo: number) =>
    api.db.insertInto('push_deliveries').values({ user_id: user.id, subscription_id: subscription.id, payload, status, updated_at: at(-changedDaysAgo * DAY) }).execute();
  await push('sent-long-ago', 'sent', 40);
  await push('failed-long-ago', 'failed', 31);
  await push('pending-forever', 'pending', 90);
  await push('sent-lately', 'sent', 29);
  t.equal((await pruneExpired(api.db, clock)).pushDeliveries, 2);
  const left = await api.db.selectFrom('push_deliveries').select('payload').where('user_id', '=', user.id).orderBy('payload').execute();
  t.same(left.map((r) => r.payload), ['pending-forever', 'sent-lately']);
});

t.test("the MCP OAuth server's expired codes and refresh tokens go a day after expiry; clients without a grant or code after 30 days", async (t) => {
  clock = new Date('2026-07-01T03:15:00Z');
  const { user } = await api.newUser();
  const client = (clientId: string, registeredDaysAgo: number) =>
    api.db.insertInto('mcp_oauth_clients').values({ client_id: clientId, client_name: clientId, redirect_uris: '["http://127.0.0.1/cb"]', created_at: at(-registeredDaysAgo * DAY) }).execute();
  await client('abandoned', 31); // never got a grant: goes
  await client('granted', 90); // has a grant: stays
  await client('pending-code', 40); // a code in flight (expired less than a day ago): stays with it
  await client('recent', 2); // registered lately: stays
  const grant = await api.db
    .insertInto('tokens')
    .values({ user_id: user.id, jti: randomUUID(), kind: 'mcp', scopes: 'read', oauth_client_id: 'granted' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const code = (hash: string, clientId: string, expiredHoursAgo: number) =>
    api.db
      .insertInto('mcp_oauth_codes')
      .values({ code_hash: hash, client_id: clientId, user_id: user.id, redirect_uri: 'http://127.0.0.1/cb', code_challenge: 'c', scopes: 'read', resource: 'http://127.0.0.1/mcp', expires_at: at(-expiredHoursAgo * HOUR) })
      .execute();
  await code('code-old', 'granted', 25);
  await code('code-fresh', 'pending-code', 2);
  const refresh = (hash: string, expiredHoursAgo: number) =>
    api.db.insertInto('mcp_oauth_refresh_tokens').values({ token_hash: hash, token_id: grant.id, expires_at: at(-expiredHoursAgo * HOUR) }).execute();
  await refresh('refresh-old', 30);
  await refresh('refresh-lately-expired', 5);
  await refresh('refresh-live', -24 * 20);

  const counts = await pruneExpired(api.db, clock);
  t.match(counts, { mcpOauthCodes: 1, mcpOauthRefreshTokens: 1, mcpOauthClients: 1 });
  t.same((await api.db.selectFrom('mcp_oauth_clients').select('client_id').orderBy('client_id').execute()).map((r) => r.client_id), ['granted', 'pending-code', 'recent']);
  t.same((await api.db.selectFrom('mcp_oauth_codes').select('code_hash').execute()).map((r) => r.code_hash), ['code-fresh']);
  t.same((await api.db.selectFrom('mcp_oauth_refresh_tokens').select('token_hash').orderBy('token_hash').execute()).map((r) => r.token_hash), ['refresh-lately-expired', 'refresh-live']);
  t.match(await pruneExpired(api.db, clock), { mcpOauthCodes: 0, mcpOauthRefreshTokens: 0, mcpOauthClients: 0 }, 'a rerun removes nothing more');
});
