// Inactivity nudges (reference 7.1), daily at 10:00 UTC: a user who has recorded transactions
// but none in the last 7 days (by the time the transaction was recorded) gets one nudge when
// the silence reaches 7, 14 and 30 days, never past 60 days, unless the configuration
// `inactivity-reminders-enabled` is false. Each tier is sent at most once per inactivity
// stretch (the stretch is named by the latest transaction's creation time, so recording a
// transaction starts a new one): the claim in engagement_sends makes reruns and a second
// worker send nothing twice. Delivery follows the `inactivity` preference (notification type
// `alert`).
import type { FastifyBaseLogger } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { claimEngagementSend, recordSentNotification } from '../db/engagement-sends.js';
import { notifyUser } from '../db/notification-delivery.js';
import type { Database } from '../db/schema.js';
import { settingOf } from '../db/settings.js';
import type { JobDefinition } from '../server/jobs.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';

const DAY_MS = 86_400_000;
const MAX_DAYS = 60;

/** The reference's tiers: the subject variants (picked per user) and what the nudge says. */
const TIERS = [
  { days: 30, subjects: ['A month of untracked finances', 'Reset, the easy way', "30 days, but you're not behind"] },
  { days: 14, subjects: ['Two weeks off the books', 'A fortnight of mystery spending', "Still here? Let's catch up."] },
  { days: 7, subjects: ['Your tracking went quiet', 'One week, no tracking', 'Quick check-in'] },
] as const;

export const inactivityNudgesJob: JobDefinition = {
  name: 'inactivity-nudges',
  cron: '0 10 * * *',
  async run({ db, services, log }) {
    const sent = await sendInactivityNudges(db, services.now(), log);
    if (sent > 0) {
      log.info({ sent }, 'inactivity nudges sent');
      await services.jobs.send(DELIVER_EMAILS_JOB);
    }
  },
};

/** The nudge for `days` of silence, or undefined below the first tier. */
export function inactivityNudge(days: number, userId: number) {
  const tier = TIERS.find((candidate) => days >= candidate.days);
  if (!tier) return undefined;
  return {
    tier: tier.days,
    title: tier.subjects[userId % tier.subjects.length],
    body: `${days} days since your last transaction. Import a statement or log what you spent to catch up in a few minutes.`,
  };
}

/** Sends the nudges due at `now`; returns how many users were nudged. */
export async function sendInactivityNudges(db: Kysely<Database>, now: Date, log?: FastifyBaseLogger): Promise<number> {
  const quiet = await db
    .selectFrom('transactions')
    .select(['user_id', sql<Date>`max(created_at)`.as('latest')])
    .where('deleted_at', 'is', null)
    .groupBy('user_id')
    .having(sql<Date>`max(created_at)`, '<=', new Date(now.getTime() - 7 * DAY_MS))
    .having(sql<Date>`max(created_at)`, '>', new Date(now.getTime() - (MAX_DAYS + 1) * DAY_MS))
    .execute();
  let sent = 0;
  for (const { user_id: userId, latest } of quiet) {
    try {
      if (await nudge(db, userId, new Date(latest), now)) sent++;
    } catch (error) {
      log?.error({ err: error, userId }, 'sending an inactivity nudge failed');
    }
  }
  return sent;
}

async function nudge(db: Kysely<Database>, userId: number, latest: Date, now: Date): Promise<boolean> {
  const days = Math.floor((now.getTime() - latest.getTime()) / DAY_MS);
  const message = inactivityNudge(days, userId);
  if (!message || days > MAX_DAYS) return false;
  if ((await settingOf(db, userId, 'inactivity-reminders-enabled')) === false) return false;
  return db.transaction().execute(async (trx) => {
    const claim = await claimEngagementSend(trx, userId, 'inactivity', `${latest.toISOString()}/${message.tier}`, now);
    if (claim === undefined) return false;
    const notificationId = await notifyUser(trx, userId, 'inactivity', {
      type: 'alert',
      title: message.title,
      body: message.body,
      data: { type: 'inactivity', days_inactive: days, cta: '/imports' },
      at: now,
    });
    await recordSentNotification(trx, claim, notificationId);
    return true;
  });
}
