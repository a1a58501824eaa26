// Answers one claimed assistant reply: the configured language model with the tool catalog,
// or the local engine (server/assistant-local.ts) when none is configured or the model fails;
// the outcome (plain text, Markdown, figures, blocks, proposed actions) is stored in one
// transaction, only while the reply is still `processing` (a deleted chat drops it). Used by the answering job
// (jobs/answer-chat-message.ts) and by the synchronous POST /v1/ai/chat.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { confirmedSummariesAfter, insertProposals } from '../db/agent-actions.js';
import { finishReply, historyBefore, nameChatIfUntitled, type ReplyOutcome } from '../db/chats.js';
import type { ChatMessage, Database, JsonObject } from '../db/schema.js';
import { markdownToPlainText } from '../domain/markdown-text.js';
import { answerWithTools, type AgentAnswer, type AgentContext } from './assistant-agent.js';
import { answerLocally } from './assistant-local.js';
import { LlmError, llmSettings, type LlmSettings } from './llm.js';
import type { AppServices } from './services.js';

export const NO_QUESTION = 'No question found for this assistant message.';
const UNEXPECTED = 'The assistant could not answer this message. Please try again.';
/** Earlier messages the model sees with the question. */
const HISTORY = 10;

export async function answerReply(db: Kysely<Database>, services: AppServices, log: FastifyBaseLogger, reply: ChatMessage): Promise<void> {
  const history = await historyBefore(db, reply, HISTORY + 1);
  const questionIndex = history.map((m) => m.role).lastIndexOf('user');
  if (questionIndex === -1) return store(db, services, reply, failed(NO_QUESTION), []);
  const question = history[questionIndex];
  const settings = llmSettings(services.config);
  const ctx = { db, services, userId: reply.user_id, now: services.now(), language: reply.language };
  let answered: Answered;
  try {
    if (settings) {
      // A reply after earlier replies to the same question resumes it once changes were confirmed.
      const resumed = questionIndex < history.length - 1 ? await confirmedSummariesAfter(db, reply.chat_session_id, question.id) : [];
      const resumeNote = resumed.length > 0 ? `(Confirmed: ${resumed.join(' ')} Please continue with my request.)` : undefined;
      answered = await answerWithModelOrLocally(settings, ctx, history.slice(-HISTORY), question, resumeNote, log, reply.id);
    } else {
      // No model configured: the local engine answers.
      answered = { answer: await answerLocally(ctx, question.content ?? ''), engine: { engine: 'local', model_fallback: false } };
    }
  } catch (error) {
    log.error({ err: error, messageId: reply.id }, 'assistant reply failed');
    return store(db, services, reply, failed(UNEXPECTED), [], question);
  }
  const { answer, engine } = answered;
  await store(db, services, reply, completed(answer, engine), answer.proposals, question);
}

/**
 * A completed reply: `content` is plain text (clients print it as it is), the Markdown as
 * written is kept in `result.markdown` (and the agent's `markdown` block), and the figures of a
 * question's answer in `result.format_type`, `columns` + `rows`. A reply that proposes changes has none:
 * its cards are what the user reads.
 */
function completed(answer: AgentAnswer, engine: Engine): ReplyOutcome {
  const usedTools = answer.toolCalls.length > 0;
  const markdown = answer.text || (answer.proposals.length > 0 ? 'Please review the proposed changes below.' : "I don't have an answer to that.");
  const data = answer.proposals.length === 0 && answer.data && answer.data.rows.length > 0 ? answer.data : undefined;
  return {
    status: 'completed',
    content: answer.plainText || markdownToPlainText(markdown),
    error: null,
    progress: answer.progress,
    result: {
      source: usedTools ? 'agent' : 'general',
      markdown,
      blocks: usedTools ? [{ type: 'markdown', text: markdown }] : [],
      // jsonb keeps no key order: the columns are stored with the rows (handlers/views/chat.ts: dataRowsOf)
      ...(data ? { format_type: data.formatType, columns: Object.keys(data.rows[0]), rows: data.rows } : {}),
      tool_calls: answer.toolCalls,
      usage: answer.usage,
      ...engine,
    },
  };
}

/** Which engine answered a completed reply (stored in its result; spec: ChatMessage.engine). */
type Engine = { engine: 'model' | 'local'; model_fallback: boolean };
type Answered = { answer: AgentAnswer; engine: Engine };

/** The model's answer; when the model fails (unreachable, an error status, too slow, a broken answer), the local engine's. */
async function answerWithModelOrLocally(
  settings: LlmSettings,
  ctx: AgentContext,
  conversation: ChatMessage[],
  question: ChatMessage,
  resumeNote: string | undefined,
  log: FastifyBaseLogger,
  messageId: number,
): Promise<Answered> {
  try {
    return { answer: await answerWithTools(settings, ctx, conversation, resumeNote), engine: { engine: 'model', model_fallback: false } };
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    log.warn({ err: error, messageId }, 'language model failed; the local engine answers');
    return { answer: await answerLocally(ctx, question.content ?? ''), engine: { engine: 'local', model_fallback: true } };
  }
}

function failed(error: string): ReplyOutcome {
  return { status: 'failed', content: null, error, result: null, progress: [] };
}

/** Stores the outcome with its proposals (cards appended to the blocks) and names an untitled chat. */
async function store(
  db: Kysely<Database>,
  services: AppServices,
  reply: ChatMessage,
  outcome: ReplyOutcome,
  proposals: AgentAnswer['proposals'],
  question?: ChatMessage,
): Promise<void> {
  const now = services.now();
  await db.transaction().execute(async (trx) => {
    const live = await trx.selectFrom('chat_messages').select('status').where('id', '=', reply.id).forUpdate().executeTakeFirst();
    if (live?.status !== 'processing') return; // the chat was deleted meanwhile
    const actions = await insertProposals(trx, reply.user_id, reply.chat_session_id, reply.id, proposals, now);
    const cards: JsonObject[] = [];
    for (const action of actions) {
      if (!action.batch_id) cards.push({ type: 'proposed_action', id: action.id });
      else if (!cards.some((card) => card.batch === action.batch_id)) cards.push({ type: 'proposed_action_batch', batch: action.batch_id });
    }
    const result = outcome.result && cards.length > 0 ? { ...outcome.result, blocks: [...((outcome.result.blocks as JsonObject[]) ?? []), ...cards] } : outcome.result;
    await finishReply(trx, reply.id, { ...outcome, result }, now);
    // Spec: an untitled chat is named after its first completed reply.
    if (outcome.status === 'completed' && question?.content) await nameChatIfUntitled(trx, reply.chat_session_id, question.content);
  });
}
