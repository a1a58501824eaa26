// Chats, messages and proposed actions as the API shows them. A reply's `result` (jsonb)
// holds source, blocks, tool calls and usage. Proposal cards are stored as references
// ({type: proposed_action, id} / {type: proposed_action_batch, batch}) and filled in here
// from the action ledger, so a card's status always follows its actions.
import type { components } from '../../generated/api.js';
import type { ChatFileRow, ChatRow } from '../../db/chats.js';
import type { AgentAction, ChatMessage, JsonObject } from '../../db/schema.js';
import { fileLink, fileOwner } from './file.js';

export type ChatSessionView = components['schemas']['ChatSession'];
export type ChatMessageView = components['schemas']['ChatMessage'];
export type ChatBlockView = components['schemas']['ChatBlock'];
export type AgentActionView = components['schemas']['AgentAction'];
export type AgentActionFieldView = components['schemas']['AgentActionField'];

export function toChatSession(row: ChatRow): ChatSessionView {
  return {
    id: row.id,
    user_id: row.user_id,
    owner_type: 'App\\Models\\User',
    owner_id: row.user_id,
    title: row.title,
    messages_count: row.messages_count,
    has_pending_reply: row.has_pending_reply,
    last_message_at: row.last_message_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function actionUrls(action: Pick<AgentAction, 'chat_session_id' | 'id'>) {
  const base = `/api/v1/ai/chats/${action.chat_session_id}/actions/${action.id}`;
  return { confirm_url: `${base}/confirm`, reject_url: `${base}/reject` };
}

/** The API status of a ledger row (`executed` is what this build calls `confirmed`). */
function statusOf(action: AgentAction): AgentActionView['status'] {
  if (action.status === 'executed') return 'confirmed';
  if (action.status === 'expired') return 'rejected';
  return action.status;
}

const humanise = (key: string) => key.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

/** Review fields of a proposal: one per payload key, labelled, typed by what the key holds. */
export function fieldsOf(action: AgentAction): AgentActionFieldView[] {
  const payload = action.payload as JsonObject;
  const names = (payload._display ?? {}) as Record<string, string>;
  return Object.entries(payload)
    .filter(([key]) => !key.startsWith('_'))
    .map(([key, value]) => {
      const type: AgentActionFieldView['type'] =
        key === 'wallet_id' || key === 'from_wallet_id' || key === 'to_wallet_id'
          ? 'wallet'
          : key === 'party_id'
            ? 'party'
            : key === 'categories'
              ? 'categories'
              : key === 'datetime'
                ? 'datetime'
                : key === 'type'
                  ? 'enum'
                  : typeof value === 'number'
                    ? 'number'
                    : 'text';
      const shown = names[key] ?? (Array.isArray(value) ? value.join(', ') : String(value));
      const field: AgentActionFieldView = { key, label: humanise(key), type, value: value as AgentActionFieldView['value'], display: shown };
      if (key === 'type' && action.action_type === 'transaction.create') {
        field.options = [
          { value: 'expense', label: 'Expense' },
          { value: 'income', label: 'Income' },
        ];
        field.display = humanise(String(value));
      }
      return field;
    });
}

/** The payload without the display names kept for the review card. */
export function publicPayload(action: AgentAction): JsonObject {
  return Object.fromEntries(Object.entries(action.payload as JsonObject).filter(([key]) => !key.startsWith('_')));
}

export function toAgentAction(action: AgentAction): AgentActionView {
  const resourceType = action.executed_resource_type as AgentActionView['resource_type'];
  return {
    id: action.id,
    chat_id: action.chat_session_id,
    message_id: action.chat_message_id,
    tool_name: action.tool_name ?? '',
    ...proposal(action),
    batch_id: action.batch_id,
    idempotency_key: action.idempotency_key,
    resource_type: resourceType ?? null,
    resource_id: action.executed_resource_id,
    result: (action.result as Record<string, unknown> | null) ?? null,
    error: action.error,
    confirmed_at: action.confirmed_at?.toISOString() ?? null,
    rejected_at: action.status === 'rejected' ? action.updated_at.toISOString() : null,
    created_at: action.created_at.toISOString(),
    updated_at: action.updated_at.toISOString(),
  };
}

/** What an action proposes, as both the action and its card in the reply show it. */
function proposal(action: AgentAction) {
  return {
    action_type: action.action_type,
    summary: action.summary,
    risk: action.risk,
    status: statusOf(action),
    payload: publicPayload(action),
    fields: fieldsOf(action),
  };
}

function actionCard(action: AgentAction): ChatBlockView {
  return {
    type: 'proposed_action',
    id: action.id,
    ...proposal(action),
    ...actionUrls(action),
  };
}

/** Spec: proposed while any member is, else confirmed if any is, else rejected if all are, else failed. */
function batchStatus(members: AgentAction[]): string {
  const statuses = members.map(statusOf);
  if (statuses.includes('proposed')) return 'proposed';
  if (statuses.includes('confirmed')) return 'confirmed';
  if (statuses.every((status) => status === 'rejected')) return 'rejected';
  return 'failed';
}

function batchCard(batchId: string, members: AgentAction[]): ChatBlockView {
  const first = members[0];
  return {
    type: 'proposed_action_batch',
    batch: batchId,
    action_type: first.action_type,
    summary: `${members.length} changes: ${members.map((m) => m.summary).join(' ')}`,
    risk: members.some((m) => m.risk === 'high') ? 'high' : 'low',
    status: batchStatus(members),
    actions: members.map(actionCard),
    ...actionUrls(first),
  };
}

/** Stored blocks with their proposal references filled in from the ledger (unknown ones dropped). */
export function hydrateBlocks(blocks: JsonObject[], actions: AgentAction[]): ChatBlockView[] {
  return blocks.flatMap((block): ChatBlockView[] => {
    if (block.type === 'proposed_action') {
      const action = actions.find((a) => a.id === block.id);
      return action ? [actionCard(action)] : [];
    }
    if (block.type === 'proposed_action_batch') {
      const members = actions.filter((a) => a.batch_id === block.batch);
      return members.length > 0 ? [batchCard(String(block.batch), members)] : [];
    }
    if (block.type === 'canvas' && Array.isArray(block.blocks)) {
      return [{ ...(block as ChatBlockView), blocks: hydrateBlocks(block.blocks as JsonObject[], actions) }];
    }
    return [block as ChatBlockView];
  });
}

export function toChatFile(row: ChatFileRow, publicUrl: string): components['schemas']['ChatFile'] {
  const metadata = (row.metadata ?? {}) as JsonObject;
  return {
    id: row.id,
    path: row.path,
    link: fileLink(publicUrl, row.id),
    type: row.type === 'image' || row.type === 'pdf' ? row.type : 'document',
    ...fileOwner(row),
    mime_type: row.mime_type,
    size: Number(row.size),
    name: row.original_name ?? row.path.split('/').pop() ?? '',
    document_type: (metadata.document_type as components['schemas']['ChatFile']['document_type']) ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Whether the reply has a document to export (a completed reply with content or blocks). */
export function isExportable(message: ChatMessage): boolean {
  if (message.role !== 'assistant' || message.status !== 'completed') return false;
  const blocks = ((message.result as JsonObject | null)?.blocks ?? []) as unknown[];
  return Boolean(message.content?.trim()) || blocks.length > 0;
}

/** A reply's Markdown, stored beside its plain-text `content` (replies stored before that kept Markdown as their content). */
export function markdownOf(message: ChatMessage): string | null {
  if (message.role === 'user') return null;
  const stored = (message.result as JsonObject | null)?.markdown;
  return typeof stored === 'string' ? stored : message.content;
}

type DataRow = ChatMessageView['rows'][number];

/** A reply's figures, each row's keys in the stored column order (jsonb sorts an object's keys; clients lay rows out by key order). */
function dataRowsOf(result: JsonObject): DataRow[] {
  const rows = (result.rows ?? []) as DataRow[];
  if (!Array.isArray(result.columns)) return rows;
  const columns = result.columns as string[];
  return rows.map((row) => Object.fromEntries(columns.map((column) => [column, row[column] ?? null])));
}

export type AssistantAnswerView = components['schemas']['AssistantAnswer'];

/** A completed reply as the web client's one-shot question reads it: plain text and its figures; the Markdown only when asked. */
export function toAssistantAnswer(message: ChatMessage, withMarkdown: boolean): AssistantAnswerView {
  const result = (message.result ?? {}) as JsonObject;
  return {
    answer: message.content ?? '',
    format_type: (result.format_type as AssistantAnswerView['format_type']) ?? 'raw',
    results: dataRowsOf(result),
    ...(withMarkdown ? { answer_markdown: markdownOf(message) ?? '' } : {}),
    chat_id: message.chat_session_id,
    message_id: message.id,
  };
}

export function toChatMessage(message: ChatMessage, files: ChatFileRow[], actions: AgentAction[], publicUrl: string): ChatMessageView {
  const result = (message.result ?? {}) as JsonObject;
  const own = actions.filter((a) => a.chat_message_id === message.id);
  return {
    id: message.id,
    chat_session_id: message.chat_session_id,
    chat_id: message.chat_session_id,
    user_id: message.role === 'user' ? message.user_id : null,
    role: message.role === 'user' ? 'user' : 'assistant',
    content: message.content,
    content_markdown: message.status === 'completed' ? markdownOf(message) : null,
    status: message.role === 'user' ? null : message.status,
    source: message.status === 'completed' ? ((result.source as ChatMessageView['source']) ?? null) : null,
    // Replies stored before the local engine existed were all the model's.
    engine: message.status === 'completed' ? ((result.engine as ChatMessageView['engine']) ?? 'model') : null,
    model_fallback: message.status === 'completed' && result.model_fallback === true,
    format_hint: message.format_hint,
    format_type: (result.format_type as ChatMessageView['format_type']) ?? null,
    rows: dataRowsOf(result),
    blocks: hydrateBlocks((result.blocks ?? []) as JsonObject[], own),
    tool_calls: (result.tool_calls as ChatMessageView['tool_calls']) ?? [],
    usage: (result.usage as ChatMessageView['usage']) ?? null,
    progress: (message.progress as string[] | null) ?? [],
    error: message.error,
    language: message.language,
    files: files.filter((f) => f.chat_message_id === message.id).map((f) => toChatFile(f, publicUrl)),
    actions: own.map(toAgentAction),
    exportable: isExportable(message),
    completed_at: message.completed_at?.toISOString() ?? null,
    created_at: message.created_at.toISOString(),
    updated_at: message.updated_at.toISOString(),
  };
}
