// Actions the assistant proposed (migration 006). A proposal is a row `proposed`; confirming
// locks the row, executes it once and stores what it wrote (`confirmed`, result, resource);
// a confirmed row is never executed again. Members of a batch share batch_id.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { AgentAction, AgentActionType, Database, JsonObject } from './schema.js';

export interface Proposal {
  actionType: AgentActionType;
  toolName: string;
  payload: JsonObject;
  summary: string;
  risk: 'low' | 'high';
}

/** Stores proposals of one reply; two or more from one tool call form a batch. */
export async function insertProposals(
  trx: Transaction<Database>,
  userId: number,
  chatId: number,
  messageId: number,
  groups: Proposal[][],
  now: Date,
): Promise<AgentAction[]> {
  const rows = groups.flatMap((group) => {
    const batchId = group.length > 1 ? randomUUID() : null;
    return group.map((proposal) => ({
      user_id: userId,
      chat_session_id: chatId,
      chat_message_id: messageId,
      action_type: proposal.actionType,
      tool_name: proposal.toolName,
      payload: JSON.stringify(proposal.payload),
      summary: proposal.summary,
      risk: proposal.risk,
      status: 'proposed' as const,
      idempotency_key: randomUUID(),
      batch_id: batchId,
      created_at: now,
      updated_at: now,
    }));
  });
  if (rows.length === 0) return [];
  return trx.insertInto('agent_actions').values(rows).returningAll().execute();
}

/** Actions proposed by these messages, by id. */
export function actionsOfMessages(db: Kysely<Database>, userId: number, messageIds: number[]): Promise<AgentAction[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('agent_actions').selectAll().where('user_id', '=', userId).where('chat_message_id', 'in', messageIds).orderBy('id').execute();
}

export function findAction(db: Kysely<Database>, userId: number, chatId: number, actionId: number): Promise<AgentAction | undefined> {
  return db
    .selectFrom('agent_actions')
    .selectAll()
    .where('id', '=', actionId)
    .where('user_id', '=', userId)
    .where('chat_session_id', '=', chatId)
    .executeTakeFirst();
}

/** The action (or, for a batch member, every member of its batch) locked for this transaction, by id. */
export function lockActions(trx: Transaction<Database>, action: AgentAction): Promise<AgentAction[]> {
  let query = trx.selectFrom('agent_actions').selectAll().where('user_id', '=', action.user_id).where('chat_session_id', '=', action.chat_session_id);
  query = action.batch_id ? query.where('batch_id', '=', action.batch_id) : query.where('id', '=', action.id);
  return query.orderBy('id').forUpdate().execute();
}

export function batchMembers(db: Kysely<Database>, action: AgentAction): Promise<AgentAction[]> {
  if (!action.batch_id) return Promise.resolve([action]);
  return db.selectFrom('agent_actions').selectAll().where('user_id', '=', action.user_id).where('batch_id', '=', action.batch_id).orderBy('id').execute();
}

export interface ExecutedRecord {
  resourceType: string;
  resourceId: number;
  result: JsonObject;
  payload?: JsonObject;
  summary?: string;
}

export async function markConfirmed(trx: Transaction<Database>, actionId: number, record: ExecutedRecord, now: Date): Promise<void> {
  await trx
    .updateTable('agent_actions')
    .set({
      status: 'confirmed',
      error: null,
      result: JSON.stringify(record.result),
      executed_resource_type: record.resourceType,
      executed_resource_id: record.resourceId,
      confirmed_at: now,
      executed_at: now,
      updated_at: now,
      ...(record.payload ? { payload: JSON.stringify(record.payload) } : {}),
      ...(record.summary ? { summary: record.summary } : {}),
    })
    .where('id', '=', actionId)
    .execute();
}

export async function markFailed(db: Kysely<Database>, actionId: number, error: string, now: Date): Promise<void> {
  await db.updateTable('agent_actions').set({ status: 'failed', error, updated_at: now }).where('id', '=', actionId).where('status', '<>', 'confirmed').execute();
}

/** Rejects the given actions that are not confirmed yet; their updated_at is the rejection time. */
export async function markRejected(trx: Transaction<Database>, actionIds: number[], now: Date): Promise<void> {
  if (actionIds.length === 0) return;
  await trx.updateTable('agent_actions').set({ status: 'rejected', updated_at: now }).where('id', 'in', actionIds).where('status', 'in', ['proposed', 'failed']).execute();
}

/** Summaries of the chat's actions confirmed from replies after this message, in order. */
export async function confirmedSummariesAfter(db: Kysely<Database>, chatId: number, messageId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('agent_actions')
    .select('summary')
    .where('chat_session_id', '=', chatId)
    .where('chat_message_id', '>', messageId)
    .where('status', 'in', ['confirmed', 'executed'])
    .orderBy('id')
    .execute();
  return rows.map((row) => row.summary);
}
