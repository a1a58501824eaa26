// Outreach campaigns: who an audience is, recording a campaign with one outreach_sends row
// per recipient, and queueing their e-mails. Everything per recipient happens in SQL
// (insert ... select), so a campaign to every user is a few statements, not a loop.
//
// The campaign's `sent` and `failed` are counted from outreach_sends, whose status the
// deliver-emails job (jobs/deliver-emails.ts) sets as each e-mail goes out: no counter to keep.
import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { OutreachTemplate, Placeholder } from '../domain/outreach-render.js';
import { listPage, type PageMeta } from './feed.js';
import type { Database, OutreachAttachment, OutreachAudience as Audience, OutreachMessagesTable } from './schema.js';

/** "Active" means a transaction dated within this many days before now. */
export const ACTIVE_DAYS = 30;

/** An attachment as a campaign records it (the file row, and what the API shows). */
export type StoredAttachment = OutreachAttachment & { size: number };

export type OutreachRow = Selectable<OutreachMessagesTable> & { sent: number; failed: number };

export interface AudienceChoice {
  audience: Audience;
  /** The calling admin (the `test` audience). */
  adminId: number;
  /** The `specific` audience. */
  userIds?: number[];
  now: Date;
}

/** The condition on `users` that selects an audience. */
function audienceFilter(choice: AudienceChoice) {
  const activeSince = new Date(choice.now.getTime() - ACTIVE_DAYS * 86_400_000);
  const hasRecentTransaction = sql<boolean>`exists (select 1 from transactions t
    where t.user_id = users.id and t.deleted_at is null and t.datetime >= ${activeSince} and t.datetime <= ${choice.now})`;
  return (eb: ExpressionBuilder<Database, 'users'>): Expression<SqlBool> => {
    switch (choice.audience) {
      case 'all':
        return sql<boolean>`true`;
      case 'active':
        return hasRecentTransaction;
      case 'inactive':
        return sql<boolean>`not ${hasRecentTransaction}`;
      case 'test':
        return eb('users.id', '=', choice.adminId);
      case 'specific':
        return eb('users.id', 'in', choice.userIds && choice.userIds.length > 0 ? choice.userIds : [0]);
    }
  };
}

/** Which of these ids name no user. */
export async function unknownUserIds(db: Kysely<Database>, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('users').select('id').where('id', 'in', [...new Set(ids)]).execute();
  const known = new Set(found.map((row) => row.id));
  return ids.filter((id) => !known.has(id));
}

export interface NewCampaign {
  senderId: number;
  subject: string;
  body: string;
  cta_label: string | null;
  cta_url: string | null;
  image_url: string | null;
  audience: Audience;
  userIds: number[] | null;
  attachments: StoredAttachment[];
  now: Date;
}

/**
 * Records the campaign, one outreach_sends row per recipient of the audience, and one
 * outreach e-mail per send in the outbox (the bulk form of db/email-outbox.ts queueEmail), all in
 * the caller's transaction. `template` has the placeholders that `fillPlaceholders` fills
 * per recipient. Returns the campaign id and the number of recipients.
 */
export async function recordCampaign(
  trx: Transaction<Database>,
  campaign: NewCampaign,
  choice: AudienceChoice,
  template: OutreachTemplate,
): Promise<{ id: number; recipients: number }> {
  const { id } = await trx
    .insertInto('outreach_messages')
    .values({
      sender_id: campaign.senderId,
      subject: campaign.subject,
      body: campaign.body,
      cta_label: campaign.cta_label,
      cta_url: campaign.cta_url,
      image_url: campaign.image_url,
      audience: campaign.audience,
      audience_user_ids: campaign.userIds ? JSON.stringify(campaign.userIds) : null,
      attachments: JSON.stringify(campaign.attachments),
      created_at: campaign.now,
      updated_at: campaign.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();

  const sends = await trx
    .insertInto('outreach_sends')
    .columns(['outreach_id', 'user_id', 'email', 'created_at', 'updated_at'])
    .expression(
      trx
        .selectFrom('users')
        .select([sql.lit(id).as('outreach_id'), 'users.id', 'users.email', sql`${campaign.now}::timestamptz`.as('c'), sql`${campaign.now}::timestamptz`.as('u')])
        .where(audienceFilter(choice))
        // an account closed while the campaign is written is skipped, not a foreign-key failure (found by the fuzzer)
        .forKeyShare(),
    )
    .executeTakeFirst();
  const recipients = Number(sends.numInsertedOrUpdatedRows ?? 0);

  await trx
    .insertInto('emails')
    .columns(['user_id', 'kind', 'to_address', 'subject', 'text_body', 'html_body', 'outreach_send_id', 'created_at', 'updated_at'])
    .expression(
      trx
        .selectFrom('outreach_sends')
        .innerJoin('users', 'users.id', 'outreach_sends.user_id')
        .select([
          'outreach_sends.user_id',
          sql.lit('outreach').as('kind'),
          'outreach_sends.email',
          fillPlaceholders(template.subject, false).as('subject'),
          sql<string>`${fillPlaceholders(template.text, false)} || ${template.textButton}::text`.as('text_body'),
          fillPlaceholders(template.html, true).as('html_body'),
          'outreach_sends.id',
          'outreach_sends.created_at',
          'outreach_sends.updated_at',
        ])
        .where('outreach_sends.outreach_id', '=', id),
    )
    .execute();

  await trx.updateTable('outreach_messages').set({ recipients_count: recipients }).where('id', '=', id).execute();
  return { id, recipients };
}

/** Each placeholder's value for the joined `users` row. */
const PLACEHOLDER_SQL: Record<Placeholder, RawBuilder<string>> = {
  first_name: sql<string>`coalesce(users.first_name, '')`,
  last_name: sql<string>`coalesce(users.last_name, '')`,
  name: sql<string>`trim(coalesce(users.first_name, '') || ' ' || coalesce(users.last_name, ''))`,
  email: sql<string>`users.email`,
};

function escapedHtml(value: RawBuilder<string>): RawBuilder<string> {
  return sql<string>`replace(replace(replace(replace(replace(${value}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')`;
}

/**
 * domain/outreach-render.ts personalize(), in SQL: the template's placeholders replaced by
 * the recipient's values (HTML-escaped in HTML). E-mail first, so a name that spells a
 * placeholder can only ever show the recipient their own details.
 */
function fillPlaceholders(template: string, html: boolean): RawBuilder<string> {
  const order: Placeholder[] = ['email', 'name', 'first_name', 'last_name'];
  return order.reduce<RawBuilder<string>>(
    (text, key) => sql<string>`replace(${text}, ${`{{${key}}}`}, ${html ? escapedHtml(PLACEHOLDER_SQL[key]) : PLACEHOLDER_SQL[key]})`,
    sql<string>`${template}::text`,
  );
}

/** Campaigns of all admins, newest first, with delivery counts from their sends. */
export async function outreachPage(db: Kysely<Database>, options: { page: number; limit: number; now: Date }): Promise<{ rows: OutreachRow[]; meta: PageMeta }> {
  const { rows, meta } = await listPage(
    db
      .selectFrom('outreach_messages')
      .selectAll('outreach_messages')
      .select((eb) => [sendCount(eb, 'sent').as('sent'), sendCount(eb, 'failed').as('failed')])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
    options,
  );
  return { rows: rows.map((row) => ({ ...row, sent: Number(row.sent), failed: Number(row.failed) })), meta };
}

export async function findOutreach(db: Kysely<Database>, id: number): Promise<OutreachRow> {
  const row = await db
    .selectFrom('outreach_messages')
    .selectAll('outreach_messages')
    .select((eb) => [sendCount(eb, 'sent').as('sent'), sendCount(eb, 'failed').as('failed')])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { ...row, sent: Number(row.sent), failed: Number(row.failed) };
}

function sendCount(eb: any, status: 'sent' | 'failed') {
  return eb
    .selectFrom('outreach_sends')
    .select((s: any) => s.fn.countAll().as('n'))
    .whereRef('outreach_sends.outreach_id', '=', 'outreach_messages.id')
    .where('outreach_sends.status', '=', status);
}

/**
 * The files attached to the campaign an outreach e-mail belongs to, for the mail sender:
 * storage paths with the names and types to attach them under.
 */
export async function outreachAttachmentsOf(db: Kysely<Database>, outreachSendId: number): Promise<Array<{ path: string; name: string; mime_type: string }>> {
  const row = await db
    .selectFrom('outreach_sends')
    .innerJoin('outreach_messages', 'outreach_messages.id', 'outreach_sends.outreach_id')
    .select('outreach_messages.attachments')
    .where('outreach_sends.id', '=', outreachSendId)
    .executeTakeFirst();
  const attachments = row?.attachments ?? [];
  if (attachments.length === 0) return [];
  const files = await db
    .selectFrom('files')
    .select(['id', 'path'])
    .where('id', 'in', attachments.map((a) => a.file_id))
    .execute();
  const pathOf = new Map(files.map((file) => [file.id, file.path]));
  return attachments.flatMap((a) => (pathOf.has(a.file_id) ? [{ path: pathOf.get(a.file_id)!, name: a.name, mime_type: a.mime_type }] : []));
}
