// Learned rules (tag Rules): the proposals made from the caller's corrections of imported lines
// (handlers/shared/rule-learning.ts records them), accepted into a rule or dismissed. A proposal
// is offered while it is open, backed by two corrections or more, and the caller's rules do not
// already file its line that way: the rules are evaluated on the latest corrected line as it was
// imported, so an accepted proposal (or a rule the user wrote alike) ends the offer.
import type { Kysely } from 'kysely';
import { closeProposal, importedLines, offeredProposals, type ImportedLine, type OfferedProposal } from '../db/rule-proposals.js';
import type { Database } from '../db/schema.js';
import { evaluateRules } from '../domain/rules/evaluate.js';
import { proposedRule } from '../domain/rules/learning.js';
import { foldText } from '../domain/rules/text.js';
import type { components } from '../generated/api.js';
import { done, ok } from '../server/envelope.js';
import { notFound } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { createRuleFrom } from './rules.js';
import { loadUserRules, type UserRules } from './shared/transaction-rules.js';

type ProposalView = components['schemas']['RuleProposal'];

export const ruleProposalHandlers = {
  listRuleProposals: async (ctx: HandlerContext<'listRuleProposals'>) => {
    const { db, user } = ctx;
    return ok((await stillNeeded(db, user.id, await offeredProposals(db, user.id))).map(toProposal));
  },

  acceptRuleProposal: async (ctx: HandlerContext<'acceptRuleProposal'>) => {
    const { db, user, services } = ctx;
    const proposal = await offeredOr404(db, user.id, ctx.params.proposal);
    const body: components['schemas']['RuleProposalAccept'] = ctx.body ?? {};
    const rule = proposedRule(proposal);
    return createRuleFrom(
      { ...ctx, body },
      { ...rule, name: body.name ?? rule.name, position: body.position, enabled: body.enabled, stop_after: body.stop_after },
      async (trx, ruleId) => {
        // two accepts at once: the proposal's lock orders them, and the later one finds it closed
        if ((await offeredProposals(trx, user.id, { id: proposal.id, lock: true })).length === 0) throw notFound('Rule proposal');
        await closeProposal(trx, user.id, proposal.id, { state: 'accepted', ruleId }, services.now());
      },
    );
  },

  dismissRuleProposal: async (ctx: HandlerContext<'dismissRuleProposal'>) => {
    const { db, user, services } = ctx;
    const proposal = await offeredOr404(db, user.id, ctx.params.proposal);
    await db.transaction().execute(async (trx) => {
      if ((await offeredProposals(trx, user.id, { id: proposal.id, lock: true })).length === 0) throw notFound('Rule proposal');
      await closeProposal(trx, user.id, proposal.id, { state: 'dismissed' }, services.now());
    });
    return done('Rule proposal dismissed.');
  },
} satisfies Partial<Handlers>;

/** The proposal when it is offered to the caller (listed); 404 otherwise. */
async function offeredOr404(db: Kysely<Database>, userId: number, id: number): Promise<OfferedProposal> {
  const [proposal] = await stillNeeded(db, userId, await offeredProposals(db, userId, { id }));
  if (!proposal) throw notFound('Rule proposal');
  return proposal;
}

/** The proposals whose latest corrected line the caller's rules do not already file as proposed. */
async function stillNeeded(db: Kysely<Database>, userId: number, proposals: OfferedProposal[]): Promise<OfferedProposal[]> {
  if (proposals.length === 0) return [];
  const rules = await loadUserRules(db, userId);
  if (rules.compiled.rules.length === 0) return proposals;
  const lines = await importedLines(db, userId, proposals.map((p) => p.transactionIds[0]));
  return proposals.filter((proposal) => {
    const line = lines.get(proposal.transactionIds[0]);
    return !line || !filedAsProposed(rules, line, proposal);
  });
}

/** Whether the rules set the proposal's value on the line as it was imported. */
function filedAsProposed(rules: UserRules, line: ImportedLine, proposal: OfferedProposal): boolean {
  const outcome = evaluateRules(rules.compiled, {
    description: line.description,
    partyName: line.counterparty,
    counterparty: line.counterparty,
    amount: line.amount ?? '0',
    type: line.type ?? 'expense',
    walletId: line.walletId,
    currency: line.currency,
    date: line.date ?? '',
  });
  if (proposal.kind === 'category') return outcome.categoryIds?.[0] === proposal.targetId;
  if (!outcome.party) return false;
  return 'id' in outcome.party ? outcome.party.id === proposal.targetId : foldText(outcome.party.name) === foldText(proposal.targetName);
}

function toProposal(proposal: OfferedProposal): ProposalView {
  return {
    id: proposal.id,
    kind: proposal.kind,
    field: proposal.field,
    text: proposal.text,
    rule: proposedRule(proposal),
    corrections: proposal.corrections,
    transaction_ids: proposal.transactionIds,
    created_at: proposal.createdAt.toISOString(),
    updated_at: proposal.updatedAt.toISOString(),
  };
}
