// Assistant chats and their messages (migration 006). Chats are not synced records: they are
// hard-deleted, and messages, actions and attachments cascade. An assistant reply goes
// pending -> processing -> completed | failed; the answering job claims pending replies here.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { ChatFormatHint, ChatMessage, ChatSession, Database, FilesTable, JsonObject } from './schema.js';
import { pageOffset } from './feed.js';

/** A chat with the counters its view shows. */
export interface ChatRow extends ChatSession {
  messages_count: number;
  has_pending_reply: boolean;
  last_message_at: Date | null;
}

export type ChatFileRow = Selectable<FilesTable>;

/** A reply held by `defer_processing` carries this in `result` until files release it. */
export const DEFERRED = { deferred: true };

function selectChats(db: Kysely<Database>, userId: number) {
  return db
    .selectFrom('chat_sessions as c')
    .selectAll('c')
    .select((eb) => [
      eb.selectFrom('chat_messages as m').whereRef('m.chat_session_id', '=', 'c.id').select((e) => e.fn.countAll<string>().as('n')).as('messages_count'),
      eb
        .exists(eb.selectFrom('chat_messages as m').whereRef('m.chat_session_id', '=', 'c.id').where('m.status', 'in', ['pending', 'processing']).select('m.id'))
        .as('has_pending_reply'),
      eb.selectFrom('chat_messages as m').whereRef('m.chat_session_id', '=', 'c.id').select((e) => e.fn.max('m.created_at').as('at')).as('last_message_at'),
    ])
    .where('c.user_id', '=', userId);
}

function toChatRow(row: any): ChatRow {
  return { ...row, messages_count: Number(row.messages_count ?? 0), has_pending_reply: Boolean(row.has_pending_reply), last_message_at: row.last_message_at ? new Date(row.last_message_at) : null };
}

/** A page of the user's chats, most recently active first. */
export async function chatPage(db: Kysely<Database>, userId: number, page: number, limit: number): Promise<{ rows: ChatRow[]; total: number }> {
  const [rows, counted] = await Promise.all([
    selectChats(db, userId).orderBy('c.updated_at', 'desc').orderBy('c.id', 'desc').limit(limit).offset(pageOffset({ page, limit })).execute(),
    db.selectFrom('chat_sessions').select((eb) => eb.fn.countAll<string>().as('total')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toChatRow), total: Number(counted.total) };
}

export async function findChat(db: Kysely<Database>, userId: number, chatId: number): Promise<ChatRow | undefined> {
  const row = await selectChats(db, userId).where('c.id', '=', chatId).executeTakeFirst();
  return row ? toChatRow(row) : undefined;
}

export function messagesOf(db: Kysely<Database>, userId: number, chatId: number): Promise<ChatMessage[]> {
  return db
    .selectFrom('chat_messages')
    .selectAll()
    .where('user_id', '=', userId)
    .where('chat_session_id', '=', chatId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findMessage(db: Kysely<Database>, userId: number, chatId: number, messageId: number): Promise<ChatMessage | undefined> {
  return db
    .selectFrom('chat_messages')
    .selectAll()
    .where('id', '=', messageId)
    .where('user_id', '=', userId)
    .where('chat_session_id', '=', chatId)
    .executeTakeFirst();
}

/** Attachments of these messages, oldest first. */
export function filesOfMessages(db: Kysely<Database>, userId: number, messageIds: number[]): Promise<ChatFileRow[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('files').selectAll().where('user_id', '=', userId).where('chat_message_id', 'in', messageIds).orderBy('id').execute();
}

export async function insertChat(trx: Transaction<Database>, userId: number, title: string | null, now: Date): Promise<number> {
  const { id } = await trx
    .insertInto('chat_sessions')
    .values({ user_id: userId, title, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export interface TurnInput {
  content: string;
  formatHint: ChatFormatHint | null;
  language: string | null;
  deferred: boolean;
}

/**
 * A question and its pending reply (the reply a moment later, so "oldest first" is stable);
 * the chat's updated_at moves. Returns both rows.
 */
/**
 * A question and its pending reply. The chat row is touched first, which locks it: a delete
 * running at the same time either waits for this turn (and removes it with the chat) or has
 * already removed the chat, and then nothing is written and the answer is undefined.
 */
export async function insertTurn(trx: Transaction<Database>, userId: number, chatId: number, turn: TurnInput, now: Date): Promise<[ChatMessage, ChatMessage] | undefined> {
  const chat = await trx.updateTable('chat_sessions').set({ updated_at: now }).where('id', '=', chatId).where('user_id', '=', userId).returning('id').executeTakeFirst();
  if (!chat) return undefined;
  const base = { user_id: userId, chat_session_id: chatId, format_hint: turn.formatHint, language: turn.language, updated_at: now };
  const user = await trx
    .insertInto('chat_messages')
    .values({ ...base, role: 'user', content: turn.content, status: null, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const assistant = await trx
    .insertInto('chat_messages')
    .values({ ...base, role: 'assistant', content: null, status: 'pending', result: turn.deferred ? JSON.stringify(DEFERRED) : null, created_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return [user, assistant];
}

/** Deletes the chat (messages, actions and attachment rows cascade); returns the storage keys of its attachments. */
export async function deleteChat(db: Kysely<Database>, userId: number, chatId: number): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const files = await trx
      .selectFrom('files')
      .innerJoin('chat_messages', 'chat_messages.id', 'files.chat_message_id')
      .select('files.path')
      .where('files.user_id', '=', userId)
      .where('chat_messages.chat_session_id', '=', chatId)
      .execute();
    await trx.deleteFrom('chat_sessions').where('id', '=', chatId).where('user_id', '=', userId).execute();
    return files.map((file) => file.path);
  });
}

/** The pending reply a held question releases: the first assistant message after it. */
export async function releaseDeferredReply(db: Kysely<Database>, userId: number, chatId: number, questionId: number, now: Date): Promise<boolean> {
  const next = await db
    .selectFrom('chat_messages')
    .select(['id', 'status', 'result'])
    .where('user_id', '=', userId)
    .where('chat_session_id', '=', chatId)
    .where('role', '=', 'assistant')
    .where('id', '>', questionId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!next || next.status !== 'pending' || !(next.result as JsonObject | null)?.deferred) return false;
  await db.updateTable('chat_messages').set({ result: null, updated_at: now }).where('id', '=', next.id).execute();
  return true;
}

/** A `processing` reply older than this is taken as abandoned (its worker died) and claimed again. */
const ABANDONED_AFTER_MS = 5 * 60_000;

/**
 * Claims one reply to answer: pending (not held), or processing but abandoned. The row lock
 * (SKIP LOCKED) and the status change in one statement mean two workers never claim one reply.
 */
export async function claimReply(db: Kysely<Database>, now: Date): Promise<ChatMessage | undefined> {
  const abandoned = new Date(now.getTime() - ABANDONED_AFTER_MS);
  const { rows } = await sql<ChatMessage>`
    update chat_messages set status = 'processing', updated_at = ${now}
    where id = (
      select id from chat_messages
      where role = 'assistant'
        and ((status = 'pending' and (result is null or not (result ? 'deferred')))
          or (status = 'processing' and updated_at < ${abandoned}))
      order by created_at, id
      limit 1
      for update skip locked
    )
    returning *`.execute(db);
  return rows[0];
}

/** Claims a reply held back from the job (inserted deferred) to answer it here; undefined if it is no longer pending. */
export async function claimHeldReply(db: Kysely<Database>, replyId: number, now: Date): Promise<ChatMessage | undefined> {
  return db
    .updateTable('chat_messages')
    .set({ status: 'processing', result: null, updated_at: now })
    .where('id', '=', replyId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** The conversation before a reply, oldest first (at most `limit` messages with content). */
export async function historyBefore(db: Kysely<Database>, reply: ChatMessage, limit: number): Promise<ChatMessage[]> {
  const rows = await db
    .selectFrom('chat_messages')
    .selectAll()
    .where('chat_session_id', '=', reply.chat_session_id)
    .where('id', '<', reply.id)
    .where('content', 'is not', null)
    .where('content', '<>', '')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}

export interface ReplyOutcome {
  status: 'completed' | 'failed';
  content: string | null;
  error: string | null;
  result: JsonObject | null;
  progress: string[];
}

/** Stores the outcome of a claimed reply; false when it is no longer being processed (the chat was deleted). */
export async function finishReply(trx: Transaction<Database>, replyId: number, outcome: ReplyOutcome, now: Date): Promise<boolean> {
  const updated = await trx
    .updateTable('chat_messages')
    .set({
      status: outcome.status,
      content: outcome.content,
      error: outcome.error,
      result: outcome.result ? JSON.stringify(outcome.result) : null,
      progress: JSON.stringify(outcome.progress),
      completed_at: now,
      updated_at: now,
    })
    .where('id', '=', replyId)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Names a chat after its first question when it has no title yet (at most 60 characters). */
export async function nameChatIfUntitled(trx: Transaction<Database>, chatId: number, question: string): Promise<void> {
  const words = question.trim().split(/\s+/);
  const title = words.length <= 6 ? words.join(' ') : question.trim().slice(0, 60);
  await trx.updateTable('chat_sessions').set({ title: title.slice(0, 255) }).where('id', '=', chatId).where('title', 'is', null).execute();
}

/** Replies the assistant may add after one question by resuming it (spec: continuation_message_id). */
export const MAX_CONTINUATIONS = 5;

/**
 * After a confirmed create, a new pending reply that resumes the latest question; undefined
 * when that question already has MAX_CONTINUATIONS replies. The chat row is locked so two
 * confirms cannot both pass the count.
 */
export async function insertContinuation(db: Kysely<Database>, userId: number, chatId: number, now: Date): Promise<number | undefined> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('chat_sessions').select('id').where('id', '=', chatId).where('user_id', '=', userId).forUpdate().executeTakeFirstOrThrow();
    const question = await trx
      .selectFrom('chat_messages')
      .select(['id', 'language'])
      .where('chat_session_id', '=', chatId)
      .where('role', '=', 'user')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!question) return undefined;
    const { n } = await trx
      .selectFrom('chat_messages')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('chat_session_id', '=', chatId)
      .where('role', '=', 'assistant')
      .where('id', '>', question.id)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_CONTINUATIONS) return undefined;
    const { id } = await trx
      .insertInto('chat_messages')
      .values({ user_id: userId, chat_session_id: chatId, role: 'assistant', status: 'pending', content: null, language: question.language, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.updateTable('chat_sessions').set({ updated_at: now }).where('id', '=', chatId).execute();
    return id;
  });
}
