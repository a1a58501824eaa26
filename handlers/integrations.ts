// Integrations: the adapters this server has, whether each is configured, and whether the
// caller may use it. There is no entitlement service, so every integration is allowed.
import { ok } from '../server/envelope.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { builtInIntegrations } from '../server/integrations.js';

const registry = builtInIntegrations();

async function listIntegrations({ services }: HandlerContext<'listIntegrations'>) {
  return ok(
    registry.all().map((integration) => ({
      key: integration.key,
      name: integration.name,
      category: integration.category,
      description: integration.description,
      icon: integration.icon,
      feature_key: integration.featureKey,
      configured: integration.isConfigured(services.config),
      entitled: true,
      ui: integration.ui,
    })),
  );
}

export const integrationHandlers = {
  listIntegrations,
} satisfies Partial<Handlers>;
