// Delivering a notification produced by the server (reminders, budget alerts, inactivity
// nudges, insights) on every channel the user's preferences allow (DECISIONS: Reminders and
// notifications; reference 5.10). In-app notifications are the `notifications` rows; e-mail
// goes to the outbox (db/email-outbox.ts) and is sent by the deliver-emails job, which the caller
// nudges after its transaction commits: services.jobs.send(DELIVER_EMAILS_JOB). Push goes to
// the push outbox (db/push-deliveries.ts), one row per subscription of the user, sent by the
// deliver-push job, which the outbox nudges after the commit itself (db/job-nudges.ts).
import type { Kysely } from 'kysely';
import { queueEmail } from './email-outbox.js';
import { queuePushes } from './push-deliveries.js';
import { preferencesOf, type NotificationPreferences } from './notification-preferences.js';
import type { Database, NotificationType } from './schema.js';

/** What produced the notification; decides which type preference governs it. */
export type NotificationTopic = 'reminders' | 'insights' | 'inactivity' | 'alerts';

export interface NewUserNotification {
  type: NotificationType;
  title: string;
  body: string;
  data?: Record<string, unknown>;
  reminderId?: number | null;
  /** When it was produced (the job's clock); the database's now() when omitted. */
  at?: Date;
}

/**
 * Whether the user's type preferences let this topic through. Budget alerts ('alerts') are
 * reminders of type budget_alert in the reference (6.12), fired by the reminder processor under
 * the `reminders` switch, so they follow that switch too.
 */
function topicAllowed(preferences: NotificationPreferences, topic: NotificationTopic): boolean {
  return preferences.types[topic === 'alerts' ? 'reminders' : topic];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Creates the in-app notification row and queues delivery on each channel the user's
 * preferences allow for this topic (e-mail, push). Runs inside the caller's transaction;
 * returns the notification row id, or null when no in-app row was made (the topic or the
 * in-app channel is off).
 */
export async function notifyUser(
  db: Kysely<Database>,
  userId: number,
  topic: NotificationTopic,
  notification: NewUserNotification,
): Promise<number | null> {
  const preferences = await preferencesOf(db, userId);
  if (!topicAllowed(preferences, topic)) return null;
  let notificationId: number | null = null;
  if (preferences.channels.inapp) {
    const row = await db
      .insertInto('notifications')
      .values({
        user_id: userId,
        type: notification.type,
        title: notification.title,
        body: notification.body,
        data: JSON.stringify(notification.data ?? {}),
        reminder_id: notification.reminderId ?? null,
        ...(notification.at ? { created_at: notification.at, updated_at: notification.at, last_synced_at: notification.at } : {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    notificationId = row.id;
  }
  if (preferences.channels.email) {
    const user = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
    if (user) {
      await queueEmail(db, {
        to: user.email,
        subject: notification.title,
        text: notification.body,
        html: `<h1>${escapeHtml(notification.title)}</h1>\n<p>${escapeHtml(notification.body).replace(/\n/g, '<br>')}</p>`,
        kind: 'notification',
        userId,
      });
    }
  }
  if (preferences.channels.push) {
    await queuePushes(db, userId, {
      title: notification.title,
      body: notification.body,
      type: notification.type,
      topic,
      notification_id: notificationId,
      data: notification.data ?? {},
    });
  }
  return notificationId;
}
