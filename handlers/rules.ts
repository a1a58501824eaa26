// Rules: what files the caller's incoming transactions (domain/rules). Everything but the rule's
// own columns is the shared synced-resource flow (handlers/shared/crud.ts). Particular to rules:
// the language's checks (422 keyed by field, a regex that does not compile included), the
// records a rule names must be the caller's (404 keyed by the field), an explicit order
// (`position`, a new rule goes last) and a bound on live rules per user (409 beyond).
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../generated/api.js';
import { lockRuleList, MAX_RULES_PER_USER } from '../db/rules.js';
import type { Database } from '../db/schema.js';
import { missingLiveIds, selectSynced, type SyncedTable } from '../db/sync.js';
import { checkRule, referencedIds, type RuleAction, type RuleCondition } from '../domain/rules/language.js';
import { APPLY_RULE_JOB } from '../db/job-names.js';
import { existingChunk, existingCount, latestApplication } from '../db/rule-applications.js';
import { moneyToJson } from '../domain/money.js';
import { ok } from '../server/envelope.js';
import { conflict, HttpError, notFound, validationFailed } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { syncedResource } from './shared/crud.js';
import { MAX_PAGE_SIZE } from './shared/records.js';
import { ruleForExisting } from './shared/rule-existing.js';
import { changesView, toRule, toRuleApplication, type RuleRow } from './views/rule.js';

const rules = syncedResource<RuleRow, ReturnType<typeof toRule>>({
  table: 'rules',
  label: 'Rule',
  select: (db, userId) => selectSynced(db, 'rules', userId),
  view: toRule,
  order: [
    ['rules.position', 'asc'],
    ['rules.id', 'asc'],
  ],
});

export const ruleHandlers = {
  listRules: (ctx: HandlerContext<'listRules'>) => rules.list(ctx),

  getRule: (ctx: HandlerContext<'getRule'>) => rules.show(ctx),

  createRule: (ctx: HandlerContext<'createRule'>) =>
    createRuleFrom(ctx, { name: ctx.body.name, position: ctx.body.position, enabled: ctx.body.enabled, stop_after: ctx.body.stop_after, match: ctx.body.match, conditions: ctx.body.conditions as RuleCondition[], actions: ctx.body.actions as RuleAction[] }),

  updateRule: async (ctx: HandlerContext<'updateRule'>) => {
    const { body, user, db } = ctx;
    if (body.conditions !== undefined || body.actions !== undefined) {
      const current = await rules.liveOr404(db, user.id, ctx.params.id);
      const content = { conditions: (body.conditions ?? current.conditions) as RuleCondition[], actions: (body.actions ?? current.actions) as RuleAction[] };
      await checkRuleContent(db, user.id, content);
    }
    return rules.update(ctx, async (trx, rule, columns) => {
      await trx
        .updateTable('rules')
        .set({
          // Kysely leaves out undefined values: a field the body omits keeps its value.
          ...columns,
          name: body.name,
          position: body.position,
          enabled: body.enabled,
          stop_after: body.stop_after,
          match: body.match,
          conditions: body.conditions === undefined ? undefined : JSON.stringify(body.conditions),
          actions: body.actions === undefined ? undefined : JSON.stringify(body.actions),
        })
        .where('id', '=', rule.id)
        .execute();
    });
  },

  deleteRule: (ctx: HandlerContext<'deleteRule'>) => rules.remove(ctx),

  previewRule: async (ctx: HandlerContext<'previewRule'>) => {
    const { user, db } = ctx;
    const rule = await rules.liveOr404(db, user.id, ctx.params.id);
    const limit = Math.min(ctx.query.limit ?? 20, MAX_PAGE_SIZE);
    return ok(await previewOnExisting(db, user.id, rule, limit));
  },

  applyRule: async (ctx: HandlerContext<'applyRule'>) => {
    const { user, db, services } = ctx;
    const rule = await rules.liveOr404(db, user.id, ctx.params.id);
    const run = await db.transaction().execute(async (trx) => {
      // one run per rule at a time: the rule's row lock orders two requests
      await trx.selectFrom('rules').select('id').where('id', '=', rule.id).forUpdate().execute();
      const latest = await latestApplication(trx, user.id, rule.id);
      if (latest?.state === 'running') throw conflict('This rule is being applied already: wait for the run to end.');
      const now = services.now();
      return trx
        .insertInto('rule_applications')
        .values({ user_id: user.id, rule_id: rule.id, total: await existingCount(trx, user.id), created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    await services.jobs.send(APPLY_RULE_JOB, { applicationId: run.id });
    return { status: 202 as const, data: toRuleApplication(run), message: 'The rule is being applied to your transactions.' };
  },

  getRuleApplication: async (ctx: HandlerContext<'getRuleApplication'>) => {
    const { user, db } = ctx;
    const rule = await rules.liveOr404(db, user.id, ctx.params.id);
    const run = await latestApplication(db, user.id, rule.id);
    if (!run) throw notFound('Rule application');
    return ok(toRuleApplication(run));
  },
} satisfies Partial<Handlers>;

/** A new rule's fields, as POST /v1/rules takes them. */
export interface NewRule {
  name: string;
  position?: number;
  enabled?: boolean;
  stop_after?: boolean;
  match?: 'all' | 'any';
  conditions: RuleCondition[];
  actions: RuleAction[];
}

/**
 * Creates a rule through the shared synced-record flow (a known `client_id` is a replay), after
 * the language's checks and those of the records it names; `within` runs in the rule's database
 * transaction once it is written (an accepted proposal is closed with it).
 */
export async function createRuleFrom(
  ctx: Parameters<typeof rules.create>[0],
  rule: NewRule,
  within?: (trx: Transaction<Database>, ruleId: number) => Promise<void>,
) {
  const { user, db } = ctx;
  const content = { conditions: rule.conditions, actions: rule.actions };
  await checkRuleContent(db, user.id, content);
  return rules.create(ctx, async (trx, columns) => {
    const list = await lockRuleList(trx, user.id);
    if (list.count >= MAX_RULES_PER_USER) throw conflict(`A user may keep at most ${MAX_RULES_PER_USER} rules; delete one first.`);
    const row = await trx
      .insertInto('rules')
      .values({
        ...columns,
        name: rule.name,
        position: rule.position ?? list.nextPosition,
        enabled: rule.enabled ?? true,
        stop_after: rule.stop_after ?? false,
        match: rule.match ?? 'all',
        conditions: JSON.stringify(content.conditions),
        actions: JSON.stringify(content.actions),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await within?.(trx, row.id);
    return row.id;
  });
}

/** The dry run: every live income and expense read a chunk at a time; counts and the first `limit` changes. */
async function previewOnExisting(db: Kysely<Database>, userId: number, rule: RuleRow, limit: number) {
  const onExisting = await ruleForExisting(db, userId, rule);
  const preview: components['schemas']['RulePreview'] = { rule_id: rule.id, scanned: 0, matched: 0, changed: 0, data: [] };
  for (let after = 0; ; ) {
    const chunk = await existingChunk(db, userId, after, PREVIEW_CHUNK);
    for (const tx of chunk) {
      const { matched, changes } = onExisting(tx);
      if (matched) preview.matched++;
      if (!changes) continue;
      preview.changed++;
      if (preview.data.length < limit) {
        preview.data.push({ transaction_id: tx.id, datetime: tx.date, amount: moneyToJson(tx.amount), type: tx.type, description: tx.description, changes: changesView(changes) });
      }
    }
    preview.scanned += chunk.length;
    if (chunk.length < PREVIEW_CHUNK) return preview;
    after = chunk.at(-1)!.id;
  }
}

/** Transactions read per query by the dry run. */
const PREVIEW_CHUNK = 10_000;

const REFERENCE_NAMES: Record<'categories' | 'wallets' | 'groups' | 'parties', string> = {
  categories: 'category',
  wallets: 'wallet',
  groups: 'group',
  parties: 'party',
};

/**
 * The language's checks (422 with every error keyed by its field), then the records the rule
 * names: one that is not the caller's live record is 404 keyed by the field naming it, as for
 * any other user's record (never whose it is).
 */
async function checkRuleContent(db: Kysely<Database>, userId: number, content: { conditions: RuleCondition[]; actions: RuleAction[] }): Promise<void> {
  const errors = checkRule(content);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const refs = referencedIds(content);
  for (const table of Object.keys(REFERENCE_NAMES) as Array<keyof typeof REFERENCE_NAMES>) {
    const named = refs[table];
    const missing = new Set(await missingLiveIds(db, table as SyncedTable, userId, [...new Set(named.map(([, id]) => id))]));
    const first = named.find(([, id]) => missing.has(id));
    if (first) {
      const message = `The selected ${REFERENCE_NAMES[table]} was not found.`;
      throw new HttpError(404, message, { [first[0]]: [message] });
    }
  }
}
