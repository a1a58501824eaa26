// Admin outreach: e-mail campaigns to an audience of users. Preview renders the message for
// the calling admin; send records the campaign with one send per recipient and queues their
// personalised e-mails in the outbox (the deliver-emails job sends them and records each
// recipient's status); list shows past campaigns with counts from those sends.
import type { Kysely } from 'kysely';
import { findOutreach, outreachPage, recordCampaign, unknownUserIds, type StoredAttachment } from '../db/outreach.js';
import type { Database } from '../db/schema.js';
import { renderOutreach, renderOutreachTemplate, type RenderOptions } from '../domain/outreach-render.js';
import type { Config } from '../server/config.js';
import { ok } from '../server/envelope.js';
import { validationFailed, type FieldErrors } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import type { FileStorage } from '../server/storage.js';
import { publicMediaUrl } from '../server/public-media.js';
import { checkOutreachAttachments, checkOutreachImage, type CheckedFile } from './shared/outreach-uploads.js';
import { pageRequest } from './shared/records.js';
import { toOutreach } from './views/admin.js';

/** The sender's display name from MAIL_FROM ("Finance <no-reply@...>" → "Finance"). */
function renderOptions(config: Config): RenderOptions {
  const name = /^\s*"?([^"<]*?)"?\s*</.exec(config.mailFrom)?.[1]?.trim();
  return { brand: name || config.mailFrom };
}

async function previewOutreach({ body, user, services }: HandlerContext<'previewOutreach'>) {
  const email = renderOutreach(body ?? {}, user, renderOptions(services.config));
  return ok({ html: email.html }, 'Preview rendered');
}

async function uploadOutreachMedia({ files, services }: HandlerContext<'uploadOutreachMedia'>) {
  const image = await checkOutreachImage(files.image?.[0]);
  const key = await services.storage.put('outreach', image.file.data, image.extension, image.mime);
  return ok({ url: publicMediaUrl(services.config, key) }, 'Image uploaded');
}

async function sendOutreach({ body, files, user, db, services }: HandlerContext<'sendOutreach'>) {
  const errors: FieldErrors = {};
  if (body.cta_label && !body.cta_url) errors.cta_url = ['The cta url field is required when cta label is present.'];
  // The e-mail would silently drop a button to any other kind of address (see safeUrl).
  else if (body.cta_url && !/^(https?:\/\/|mailto:)/i.test(body.cta_url.trim())) errors.cta_url ??= ['The cta url must be an http(s) or mailto address.'];
  const userIds = body.audience === 'specific' ? (body.user_ids ?? []) : null;
  if (userIds) Object.assign(errors, await userIdErrors(db, userIds));
  const attachments = await checkOutreachAttachments(files.files);
  Object.assign(errors, attachments.errors);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const now = services.now();
  const template = renderOutreachTemplate(body, renderOptions(services.config));
  const choice = { audience: body.audience, adminId: user.id, userIds: userIds ?? undefined, now };
  const campaign = await withStoredAttachments(services.storage, attachments.checked, (stored) =>
    db.transaction().execute(async (trx) => {
      const recorded: StoredAttachment[] = [];
      for (const file of stored) {
        const row = await trx
          .insertInto('files')
          .values({
            user_id: user.id,
            model: 'outreach',
            path: file.path,
            original_name: file.file.filename || null,
            mime_type: file.mime,
            size: file.file.data.length,
            type: file.kind,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        recorded.push({ file_id: row.id, name: file.file.filename || `attachment.${file.extension}`, mime_type: file.mime, size: file.file.data.length });
      }
      return recordCampaign(
        trx,
        {
          senderId: user.id,
          subject: body.subject,
          body: body.body,
          cta_label: body.cta_label ?? null,
          cta_url: body.cta_url ?? null,
          image_url: body.image_url ?? null,
          audience: body.audience,
          userIds,
          attachments: recorded,
          now,
        },
        choice,
        template,
      );
    }),
  );
  await services.jobs.send(DELIVER_EMAILS_JOB);
  const outreach = toOutreach(await findOutreach(db, campaign.id));
  return ok({ sent: campaign.recipients, outreach }, `Outreach sent to ${campaign.recipients} recipients`);
}

async function listOutreach({ db, query, services }: HandlerContext<'listOutreach'>) {
  const page = await outreachPage(db, { ...pageRequest(query), now: services.now() });
  return ok({ ...page.meta, data: page.rows.map(toOutreach) }, 'Outreach retrieved');
}

/** `user_ids` is required for a specific audience, and each must name a user (422 on `user_ids.N`). */
async function userIdErrors(db: Kysely<Database>, ids: number[]): Promise<FieldErrors> {
  if (ids.length === 0) return { user_ids: ['The user ids field is required when audience is specific.'] };
  const unknown = new Set(await unknownUserIds(db, ids));
  const errors: FieldErrors = {};
  ids.forEach((id, index) => {
    if (unknown.has(id)) errors[`user_ids.${index}`] = [`The selected user_ids.${index} is invalid.`];
  });
  return errors;
}

/** Stores the attachments' bytes, runs `write`, and removes the bytes again if it fails. */
async function withStoredAttachments<T>(storage: FileStorage, files: CheckedFile[], write: (stored: Array<CheckedFile & { path: string }>) => Promise<T>): Promise<T> {
  const stored: Array<CheckedFile & { path: string }> = [];
  try {
    for (const file of files) stored.push({ ...file, path: await storage.put('outreach/attachments', file.file.data, file.extension, file.mime) });
    return await write(stored);
  } catch (error) {
    await Promise.all(stored.map((file) => storage.delete(file.path)));
    throw error;
  }
}

export const outreachHandlers = { previewOutreach, uploadOutreachMedia, sendOutreach, listOutreach } satisfies Partial<Handlers>;
