// The assistant's chats (spec: AI). A question is stored with an assistant reply `pending`;
// after the commit the answering job is nudged (jobs/answer-chat-message.ts) and clients poll
// the chat. Proposed actions are confirmed or rejected in handlers/agent-actions.ts.
import type { Kysely } from 'kysely';
import { actionsOfMessages } from '../db/agent-actions.js';
import {
  chatPage,
  claimHeldReply,
  deleteChat,
  filesOfMessages,
  findChat,
  findMessage,
  releaseDeferredReply,
  insertChat,
  insertTurn,
  messagesOf,
  type ChatRow,
  type TurnInput,
} from '../db/chats.js';
import { pageMeta } from '../db/feed.js';
import { ANSWER_CHAT_MESSAGE_JOB } from '../db/job-names.js';
import type { ChatMessage, Database } from '../db/schema.js';
import { renderMarkdownDocument } from '../domain/chat-export.js';
import { slugify } from '../domain/slug.js';
import { created, done, ok } from '../server/envelope.js';
import { HttpError, invalidField, notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { llmReachable, llmSettings } from '../server/llm.js';
import { removeStoredFiles } from '../server/stored-files.js';
import { answerReply } from '../server/assistant-reply.js';
import type { AppServices } from '../server/services.js';
import { attachChatFiles, checkChatFiles } from './shared/chat-attachments.js';
import { pageRequest } from './shared/records.js';
import { isExportable, markdownOf, toAssistantAnswer, toChatMessage, toChatSession } from './views/chat.js';

export const CHAT_NOT_FOUND = 'Chat session';

/** The caller's chat, or 404 "Chat session not found." (also for another user's chat). */
export async function chatOr404(db: Kysely<Database>, userId: number, chatId: number): Promise<ChatRow> {
  const chat = await findChat(db, userId, chatId);
  if (!chat) throw notFound(CHAT_NOT_FOUND);
  return chat;
}

/** Messages as views, with their files and proposed actions loaded for all of them at once. */
export async function presentMessages(db: Kysely<Database>, services: AppServices, userId: number, messages: ChatMessage[]) {
  const ids = messages.map((m) => m.id);
  const [files, actions] = await Promise.all([filesOfMessages(db, userId, ids), actionsOfMessages(db, userId, ids)]);
  return messages.map((m) => toChatMessage(m, files, actions, services.config.publicUrl));
}

async function chatDetail(db: Kysely<Database>, services: AppServices, userId: number, chatId: number) {
  const chat = await chatOr404(db, userId, chatId);
  const messages = await presentMessages(db, services, userId, await messagesOf(db, userId, chatId));
  return { ...toChatSession(chat), messages };
}

/** The primary language of an Accept-Language header's first entry, e.g. `fr` for `fr-CA,en;q=0.5` (null when absent). */
function replyLanguage(header: string | string[] | undefined): string | null {
  const first = String(header ?? '').split(',')[0]?.split(';')[0]?.split('-')[0]?.trim().toLowerCase();
  return first && /^[a-z]{2,8}$/.test(first) ? first : null;
}

function turnFrom(ctx: { body: { message: string; format_hint?: TurnInput['formatHint'] | null; defer_processing?: boolean }; request: { headers: Record<string, string | string[] | undefined> } }): TurnInput {
  return {
    content: ctx.body.message.trim(),
    formatHint: ctx.body.format_hint ?? null,
    language: replyLanguage(ctx.request.headers['accept-language']),
    deferred: ctx.body.defer_processing === true,
  };
}

/** After the commit: a queued reply is nudged to the answering job (its cron catches a lost nudge). */
export async function nudgeAnswering(services: AppServices): Promise<void> {
  await services.jobs.send(ANSWER_CHAT_MESSAGE_JOB);
}

export const assistantHandlers = {
  listChats: async ({ db, user, query, services }: HandlerContext<'listChats'>) => {
    const { page, limit } = pageRequest(query);
    const { rows, total } = await chatPage(db, user.id, page, limit);
    const meta = pageMeta(rows, total, { page, limit, now: services.now() });
    return ok({ ...meta, data: rows.map(toChatSession) });
  },

  createChat: async (ctx: HandlerContext<'createChat'>) => {
    const { db, user, body, services } = ctx;
    const turn = turnFrom(ctx);
    const now = services.now();
    const chatId = await db.transaction().execute(async (trx) => {
      const id = await insertChat(trx, user.id, body.title?.trim() || null, now);
      await insertTurn(trx, user.id, id, turn, now);
      return id;
    });
    if (!turn.deferred) await nudgeAnswering(services);
    return created(await chatDetail(db, services, user.id, chatId), 'Chat session created.');
  },

  getChat: async ({ db, user, params, services }: HandlerContext<'getChat'>) => ok(await chatDetail(db, services, user.id, params.chat)),

  deleteChat: async ({ db, user, params, services, log }: HandlerContext<'deleteChat'>) => {
    await chatOr404(db, user.id, params.chat);
    const storedKeys = await deleteChat(db, user.id, params.chat);
    await removeStoredFiles(services.storage, storedKeys, log); // after the commit
    return done('Chat session deleted.');
  },

  sendChatMessage: async (ctx: HandlerContext<'sendChatMessage'>) => {
    const { db, user, params, services } = ctx;
    await chatOr404(db, user.id, params.chat);
    const turn = turnFrom(ctx);
    const now = services.now();
    const inserted = await db.transaction().execute((trx) => insertTurn(trx, user.id, params.chat, turn, now));
    if (!inserted) throw notFound(CHAT_NOT_FOUND); // deleted while this message arrived
    const [question, reply] = inserted;
    if (!turn.deferred) await nudgeAnswering(services);
    const [userView, assistantView] = await presentMessages(db, services, user.id, [question, reply]);
    return created({ user: userView, assistant: assistantView }, 'Message queued.');
  },

  // The web client's one-shot question: a chat whose reply is answered here, not by the job.
  askAssistant: async (ctx: HandlerContext<'askAssistant'>) => {
    const { db, user, services, log } = ctx;
    const held = { ...turnFrom(ctx), deferred: true }; // the job leaves a held reply alone
    const now = services.now();
    const [chatId, reply] = await db.transaction().execute(async (trx) => {
      const id = await insertChat(trx, user.id, null, now);
      const inserted = await insertTurn(trx, user.id, id, held, now);
      if (!inserted) throw new Error(`chat ${id} created in this transaction was not found`);
      return [id, inserted[1]] as const;
    });
    const claimed = await claimHeldReply(db, reply.id, services.now());
    if (claimed) await answerReply(db, services, log, claimed);
    const answered = await findMessage(db, user.id, chatId, reply.id);
    if (answered?.status !== 'completed') throw new HttpError(503, answered?.error ?? 'The assistant could not answer this message. Please try again.');
    return ok(toAssistantAnswer(answered, ctx.body.answer_format === 'markdown'), 'Answered.');
  },

  getAiHealth: async ({ services }: HandlerContext<'getAiHealth'>) => {
    const settings = llmSettings(services.config);
    // Without a provider there is no model to answer: replies fail with a clear message.
    const available = settings ? await llmReachable(settings) : false;
    return ok({
      provider: settings ? 'openai-compatible' : 'local',
      model: settings?.model ?? null,
      configured: settings !== undefined,
      available,
      status: available ? ('ok' as const) : ('unavailable' as const),
      document_processor_configured: Boolean(services.config.documentProcessorUrl),
    });
  },

  uploadChatMessageFiles: async ({ db, user, params, body, files, services }: HandlerContext<'uploadChatMessageFiles'>) => {
    await chatOr404(db, user.id, params.chat);
    const message = await findMessage(db, user.id, params.chat, params.message);
    if (!message || message.role !== 'user') throw notFound('Message');
    const checked = await checkChatFiles(files.files ?? []);
    const now = services.now();
    await attachChatFiles(db, services.storage, { userId: user.id, messageId: message.id, documentType: body.document_type ?? null }, checked, now);
    // A reply held with defer_processing is queued now that its files are here.
    if (await releaseDeferredReply(db, user.id, params.chat, message.id, now)) await nudgeAnswering(services);
    const [view] = await presentMessages(db, services, user.id, [message]);
    return ok(view, 'Files attached.');
  },

  exportChatMessage: async ({ db, user, params, query }: HandlerContext<'exportChatMessage'>) => {
    if ((query.format ?? 'md') !== 'md') throw invalidField('format', 'Unsupported export format.');
    const chat = await chatOr404(db, user.id, params.chat);
    const message = await findMessage(db, user.id, params.chat, params.message);
    if (!message) throw notFound('Message');
    const blocks = ((message.result as { blocks?: Record<string, unknown>[] } | null)?.blocks ?? []);
    const document = isExportable(message) ? renderMarkdownDocument({ content: markdownOf(message), blocks, chatTitle: chat.title }) : undefined;
    if (!document) throw new HttpError(404, 'This message has no document to export.');
    return {
      status: 200,
      raw: true,
      headers: {
        'content-type': 'text/markdown; charset=utf-8',
        'content-disposition': `attachment; filename="${document.title.trim() ? slugify(document.title) : 'document'}.md"`,
      },
      body: document.markdown,
    };
  },
} satisfies Partial<Handlers>;
