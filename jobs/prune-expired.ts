// Deletes rows that have served their purpose, once a day:
// - verification_codes consumed, or expired more than a day ago (a checked code is either used
//   up or void after expiry; the day of grace keeps a just-expired row for support questions);
// - emails sent or given up (`failed`) more than 30 days ago (codes in them are already blanked
//   by deliver-emails; pending rows are never touched, whatever their age);
// - webhook_events older than 30 days none of whose deliveries is pending or changed within
//   those 30 days, with their deliveries and attempts (a re-send revives an old delivery);
// - push_deliveries sent or given up more than 30 days ago (pending ones stay, as e-mails do);
// - oauth_states past their expiry (new logins also sweep them; this catches quiet periods);
// - sync_page_marks older than a day (a pull pages through a feed in seconds; a page mark
//   that is gone only means that page is found by offset);
// - the MCP OAuth server's codes and refresh tokens expired more than a day ago (kept until then
//   only to recognise a replay; a code's own exchange and a grant's refresh also sweep theirs),
//   and registered clients that got no grant or code within 30 days (RFC 7591 registration is
//   open: abandoned or spammed registrations would otherwise stay forever).
//
// Pure SQL in batches by id: each batch locks its rows with SKIP LOCKED, so a second worker,
// a rerun or a concurrent request (a resend reviving a code row, a login taking a state) never
// waits on or loses a row; what one run leaves, the next removes. Deleting is idempotent.
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { JobDefinition } from '../server/jobs.js';

const DAY_MS = 86_400_000;
/** Rows deleted per statement: short transactions, short locks. */
const BATCH = 1000;
/** How long an expired verification code (and a sync page mark) is kept. */
const CODE_GRACE_MS = DAY_MS;
/** How long a finished (sent or failed) e-mail or push, and a finished webhook event, is kept. */
const EMAIL_RETENTION_MS = 30 * DAY_MS;

export interface PruneCounts {
  verificationCodes: number;
  emails: number;
  webhookEvents: number;
  pushDeliveries: number;
  oauthStates: number;
  pageMarks: number;
  mcpOauthCodes: number;
  mcpOauthRefreshTokens: number;
  mcpOauthClients: number;
}

export const pruneExpiredJob: JobDefinition = {
  name: 'prune-expired',
  cron: '15 3 * * *',
  async run({ db, services, log }) {
    const counts = await pruneExpired(db, services.now(), log);
    if (Object.values(counts).some((count) => count > 0)) log.info(counts, 'expired rows pruned');
  },
};

/** Deletes every prunable row as of `now`; returns how many of each kind went. */
export async function pruneExpired(db: Kysely<Database>, now: Date, log?: FastifyBaseLogger): Promise<PruneCounts> {
  const codesBefore = new Date(now.getTime() - CODE_GRACE_MS);
  const emailsBefore = new Date(now.getTime() - EMAIL_RETENTION_MS);
  const counts: PruneCounts = {
    verificationCodes: await deleteInBatches(db, 'verification_codes', sql`consumed_at is not null or expires_at < ${codesBefore}`),
    emails: await deleteInBatches(db, 'emails', sql`status in ('sent', 'failed') and updated_at < ${emailsBefore}`),
    webhookEvents: await deleteInBatches(
      db,
      'webhook_events',
      sql`created_at < ${emailsBefore} and not exists (select 1 from webhook_deliveries d where d.event_id = webhook_events.id and (d.status = 'pending' or d.updated_at >= ${emailsBefore}))`,
    ),
    pushDeliveries: await deleteInBatches(db, 'push_deliveries', sql`status in ('sent', 'failed') and updated_at < ${emailsBefore}`),
    oauthStates: await deleteInBatches(db, 'oauth_states', sql`expires_at <= ${now}`),
    pageMarks: Number((await db.deleteFrom('sync_page_marks').where('created_at', '<', codesBefore).executeTakeFirst()).numDeletedRows),
    ...(await pruneMcpOauth(db, codesBefore, emailsBefore)),
  };
  log?.debug(counts, 'prune-expired counts');
  return counts;
}

/** Deletes the rows of `table` matching `condition`, BATCH at a time; returns how many. */
async function deleteInBatches(db: Kysely<Database>, table: 'verification_codes' | 'emails' | 'webhook_events' | 'push_deliveries' | 'oauth_states', condition: RawBuilder<unknown>): Promise<number> {
  let deleted = 0;
  for (;;) {
    // The condition is repeated on the outer delete so a row changed since the batch was read
    // (a code sent again) is re-checked on its current version.
    const result = await sql`
      delete from ${sql.table(table)}
      where id in (select id from ${sql.table(table)} where ${condition} order by id limit ${BATCH} for update skip locked)
        and (${condition})`.execute(db);
    const count = Number(result.numAffectedRows ?? 0);
    deleted += count;
    if (count < BATCH) return deleted;
  }
}

/** Few rows (a code lives a minute, a client registers once): plain deletes, no batches. */
async function pruneMcpOauth(db: Kysely<Database>, expiredBefore: Date, registeredBefore: Date) {
  const deleted = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows);
  return {
    mcpOauthCodes: deleted(await db.deleteFrom('mcp_oauth_codes').where('expires_at', '<', expiredBefore).executeTakeFirstOrThrow()),
    mcpOauthRefreshTokens: deleted(await db.deleteFrom('mcp_oauth_refresh_tokens').where('expires_at', '<', expiredBefore).executeTakeFirstOrThrow()),
    mcpOauthClients: deleted(
      await db
        .deleteFrom('mcp_oauth_clients')
        .where('created_at', '<', registeredBefore)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('tokens').select('tokens.id').whereRef('tokens.oauth_client_id', '=', 'mcp_oauth_clients.client_id'))),
        )
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('mcp_oauth_codes').select('mcp_oauth_codes.code_hash').whereRef('mcp_oauth_codes.client_id', '=', 'mcp_oauth_clients.client_id'))),
        )
        .executeTakeFirstOrThrow(),
    ),
  };
}
