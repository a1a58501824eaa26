// Claiming an engagement message (inactivity nudge, insights summary) for a user and period,
// so the scheduled jobs that produce them send each at most once, also with two workers.
import type { Kysely } from 'kysely';
import type { Database, EngagementSendKind } from './schema.js';

/**
 * Claims (user, kind, period) inside the caller's transaction; returns the claim's id, or
 * undefined when it was already claimed (by an earlier run or another worker, which then
 * holds the row until it commits).
 */
export async function claimEngagementSend(db: Kysely<Database>, userId: number, kind: EngagementSendKind, periodKey: string, at: Date): Promise<number | undefined> {
  const row = await db
    .insertInto('engagement_sends')
    .values({ user_id: userId, kind, period_key: periodKey, created_at: at })
    .onConflict((oc) => oc.columns(['user_id', 'kind', 'period_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Links the claim to the in-app notification it produced (none when preferences let none through). */
export async function recordSentNotification(db: Kysely<Database>, claimId: number, notificationId: number | null): Promise<void> {
  if (notificationId !== null) await db.updateTable('engagement_sends').set({ notification_id: notificationId }).where('id', '=', claimId).execute();
}
