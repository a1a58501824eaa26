// Info: what this server is, publicly. Issue 5 extends it; the shape is the spec's ServerInfo.
import { additions } from '../generated/operations.js';
import { ok } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';

async function getServerInfo({ services }: HandlerContext<'getServerInfo' | 'getServerInfoV1'>) {
  return ok({
    name: 'finance-service',
    version: services.specVersion,
    build: services.build,
    database: services.databaseKind,
    operations: services.operationCounts,
    additions: [...additions],
  });
}

/** What the reference's mobile app shows on its upgrade screen: a self-hosted server sells nothing. */
const SELF_HOSTED = {
  title: 'Self-hosted',
  description: 'This server is run by its owner: every feature is included and there is nothing to subscribe to.',
};

export const infoHandlers = {
  getServerInfo,
  getServerInfoV1: getServerInfo,
  getCloudBenefits: async (_ctx: HandlerContext<'getCloudBenefits'>) => ok({ overview: SELF_HOSTED, benefits: [], trial_days: 0 }),
  listCloudPlans: async ({ query }: HandlerContext<'listCloudPlans'>) =>
    ok({ overview: SELF_HOSTED, region: query.region?.toUpperCase() ?? 'GLOBAL', currency: 'USD', trial_days: 0, free_plan_enabled: true, plans: [] }),
} satisfies Partial<Handlers>;
