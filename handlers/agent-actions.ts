// Confirming and rejecting what the assistant proposed (spec: confirmAgentAction,
// rejectAgentAction). Confirm executes an action once: in one database transaction the action
// row is locked, a `confirmed` row returns its stored result without running again, and
// otherwise the record is written (shared/agent-action-executors.ts: through the ledger's own
// write paths, with the action's idempotency key as the record's client id). Members of a
// batch run independently (each in its own transaction); reject discards.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { withBudgetAlerts } from '../db/budget-alerts.js';
import { batchMembers, findAction, lockActions, markConfirmed, markFailed, markRejected } from '../db/agent-actions.js';
import type { AgentAction, Database, JsonObject } from '../db/schema.js';
import { ok } from '../server/envelope.js';
import { conflict, HttpError, invalidField, notFound, validationFailed } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import type { AppServices } from '../server/services.js';
import { insertContinuation } from '../db/chats.js';
import { chatOr404, nudgeAnswering } from './assistant.js';
import { checkPayload, executeAction, OVERRIDABLE } from './shared/agent-action-executors.js';
import { toAgentAction } from './views/chat.js';

const ACTION_NOT_FOUND = 'Action';
const CANNOT_CONFIRM = 'This action can no longer be confirmed.';
const ALREADY_DONE = 'This action was already completed.';
/** Confirming one of these resumes the request that needed it (spec: continuation_message_id). */
const RESUMES = new Set<AgentAction['action_type']>(['wallet.create', 'category.create', 'party.create']);

interface ActionCtx {
  db: Kysely<Database>;
  user: { id: number };
  services: AppServices;
  log: FastifyBaseLogger;
}

async function actionOr404(ctx: ActionCtx, chatId: number, actionId: number): Promise<AgentAction> {
  await chatOr404(ctx.db, ctx.user.id, chatId);
  const action = await findAction(ctx.db, ctx.user.id, chatId, actionId);
  if (!action) throw notFound(ACTION_NOT_FOUND);
  return action;
}

const isDone = (action: AgentAction) => action.status === 'confirmed' || action.status === 'executed';

/** The payload with the overrides applied (blank values dropped, unknown keys ignored). */
function withOverrides(action: AgentAction, overrides: Record<string, unknown> | undefined): JsonObject {
  const payload = { ...(action.payload as JsonObject) };
  if (!overrides) return payload;
  const allowed = OVERRIDABLE[action.action_type] ?? [];
  const display = { ...((payload._display ?? {}) as JsonObject) };
  for (const [key, value] of Object.entries(overrides)) {
    if (!allowed.includes(key) || value === '' || value === null || value === undefined) continue;
    payload[key] = value as JsonObject[string];
    delete display[key]; // the stored name no longer describes the value
  }
  payload._display = display;
  return payload;
}

type RunOutcome = { action: AgentAction; executed: boolean; error?: HttpError };

/**
 * Executes one action exactly once under its row lock. A confirmed action is returned as it
 * is; a failure marks it `failed` with the reason (nothing written) and is returned.
 */
async function runOnce(ctx: ActionCtx, action: AgentAction, payload: JsonObject | undefined): Promise<RunOutcome> {
  const now = ctx.services.now();
  try {
    return await withBudgetAlerts(ctx.services, ctx.log, (alert) =>
      ctx.db.transaction().execute(async (trx) => {
        const [locked] = await lockActions(trx, { ...action, batch_id: null });
        if (isDone(locked) || locked.status === 'rejected' || locked.status === 'expired') return { action: locked, executed: false };
        const record = await executeAction(trx, { ...ctx, alert }, locked, payload ?? (locked.payload as JsonObject), now);
        await markConfirmed(trx, locked.id, record, now);
        const row = await trx.selectFrom('agent_actions').selectAll().where('id', '=', locked.id).executeTakeFirstOrThrow();
        return { action: row, executed: true };
      }),
      { db: ctx.db, userId: ctx.user.id },
    );
  } catch (error) {
    const problem = error instanceof HttpError ? error : new HttpError(422, 'The action could not be completed.');
    if (!(error instanceof HttpError)) ctx.log.error({ err: error, actionId: action.id }, 'agent action failed');
    await markFailed(ctx.db, action.id, problem.message, now);
    const failed = (await findAction(ctx.db, ctx.user.id, action.chat_session_id, action.id))!;
    return { action: failed, executed: false, error: problem };
  }
}

function batchOutcome(members: AgentAction[]) {
  if (!members[0]?.batch_id) return null;
  const count = (status: string) => members.filter((m) => toAgentAction(m).status === status).length;
  return {
    id: members[0].batch_id,
    actions: members.map(toAgentAction),
    confirmed_count: count('confirmed'),
    failed_count: count('failed'),
    rejected_count: count('rejected'),
  };
}

export const agentActionHandlers = {
  confirmAgentAction: async (ctx: HandlerContext<'confirmAgentAction'>) => {
    const { params, body } = ctx;
    const action = await actionOr404(ctx, params.chat, params.action);
    const overrides = body?.overrides;
    if (action.batch_id) {
      if (overrides && Object.keys(overrides).length > 0) throw invalidField('overrides', 'Overrides cannot be applied to an action of a batch.');
      const members = await batchMembers(ctx.db, action);
      if (members.every((m) => m.status === 'rejected' || m.status === 'expired')) throw conflict(CANNOT_CONFIRM);
      const failures: HttpError[] = [];
      for (const member of members.filter((m) => m.status === 'proposed' || m.status === 'failed')) {
        const { error } = await runOnce(ctx, member, undefined);
        if (error) failures.push(error);
      }
      const after = await batchMembers(ctx.db, action);
      const done = after.filter(isDone).length;
      const self = after.find((m) => m.id === action.id)!;
      const message = failures.length === 0 ? (done === 1 ? 'Action completed.' : `${done} actions completed.`) : `${done} done, ${failures.length} could not be completed.`;
      return ok({ action: toAgentAction(self), resource: (self.result as Record<string, unknown> | null) ?? null, batch: batchOutcome(after), continuation_message_id: null }, message);
    }
    if (isDone(action)) return ok({ action: toAgentAction(action), resource: action.result as Record<string, unknown>, batch: null, continuation_message_id: null }, 'Action already completed.');
    if (action.status === 'rejected' || action.status === 'expired') throw conflict(CANNOT_CONFIRM);
    let payload: JsonObject | undefined;
    if (overrides && Object.keys(overrides).length > 0) {
      payload = withOverrides(action, overrides);
      await checkPayload(ctx.db, ctx.user.id, action, payload, ctx.services.now()); // invalid overrides: 422, nothing changes
    }
    const { action: after, executed, error } = await runOnce(ctx, action, payload);
    if (error) throw validationFailed(error.errors ?? { action: [error.message] }, error.message);
    if (after.status === 'rejected') throw conflict(CANNOT_CONFIRM); // rejected while we waited for the lock
    // A created wallet, category or party was usually a step of a request: the assistant resumes it.
    const continuation = executed && RESUMES.has(after.action_type) ? await insertContinuation(ctx.db, ctx.user.id, after.chat_session_id, ctx.services.now()) : undefined;
    if (continuation !== undefined) await nudgeAnswering(ctx.services);
    return ok(
      { action: toAgentAction(after), resource: (after.result as Record<string, unknown> | null) ?? null, batch: null, continuation_message_id: continuation ?? null },
      executed ? 'Action completed.' : 'Action already completed.',
    );
  },

  rejectAgentAction: async (ctx: HandlerContext<'rejectAgentAction'>) => {
    const { params, services } = ctx;
    const action = await actionOr404(ctx, params.chat, params.action);
    const members = await ctx.db.transaction().execute(async (trx) => {
      const locked = await lockActions(trx, action);
      if (locked.every(isDone)) throw conflict(ALREADY_DONE);
      await markRejected(trx, locked.filter((m) => !isDone(m)).map((m) => m.id), services.now());
      return action.batch_id ? batchMembers(trx, action) : lockActions(trx, action);
    });
    const self = members.find((m) => m.id === action.id)!;
    return ok({ action: toAgentAction(self), resource: null, batch: batchOutcome(members), continuation_message_id: null }, action.batch_id ? 'Actions dismissed.' : 'Action dismissed.');
  },
} satisfies Partial<Handlers>;
