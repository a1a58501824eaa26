// The registry of integrations (the adapters behind external services), as GET /integrations
// lists them: each says what it is and decides from the configuration whether the server has
// the settings it needs. Registering a key again replaces the earlier entry in its place.
import type { Config } from './config.js';

export interface IntegrationUi {
  slots: string[];
  card: { title: string; cta: string | null; description: string } | null;
  connect: unknown;
  onboarding: { step: string; optional: boolean; order: number } | null;
  component: string | null;
  [key: string]: unknown;
}

export interface IntegrationDefinition {
  key: string;
  name: string;
  category: string;
  description: string | null;
  icon: string | null;
  /** The entitlement it needs; null when everyone may use it. */
  featureKey: string | null;
  /** Whether the server has the settings this integration needs. */
  isConfigured(config: Config): boolean;
  ui: IntegrationUi | null;
}

export class IntegrationRegistry {
  private readonly byKey = new Map<string, IntegrationDefinition>();

  register(definition: IntegrationDefinition): this {
    this.byKey.set(definition.key, definition); // a Map keeps the first insertion's place
    return this;
  }

  /** In registration order. */
  all(): IntegrationDefinition[] {
    return [...this.byKey.values()];
  }
}

/** A settings card in the client's integrations page. */
const card = (title: string, description: string): IntegrationUi => ({
  slots: ['settings.integrations'],
  card: { title, cta: null, description },
  connect: null,
  onboarding: null,
  component: null,
});

const NOT_IN_THIS_BUILD = () => false;

/** The adapters this server ships, with their state under `config`. */
export function builtInIntegrations(): IntegrationRegistry {
  return new IntegrationRegistry()
    .register({
      key: 'exchange-rates',
      name: 'Exchange rates',
      category: 'currency',
      description: 'Converts between currencies for statistics and budgets: an open-rates HTTP provider, or the bundled offline table.',
      icon: null,
      featureKey: null,
      // The bundled table works offline, so rates are always available.
      isConfigured: () => true,
      ui: card('Exchange rates', 'Rates used to convert amounts into your default currency.'),
    })
    .register({
      key: 'asset-prices',
      name: 'Asset prices',
      category: 'market-data',
      description: 'Prices of crypto assets from a CoinGecko-compatible API.',
      icon: null,
      featureKey: null,
      isConfigured: (config) => config.assetPricesUrl !== '',
      ui: card('Asset prices', 'Live prices for your holdings.'),
    })
    .register({
      key: 'file-storage',
      name: 'File storage',
      category: 'storage',
      description: 'Keeps attachments, icons and imported files: in the data folder, the database or an S3-compatible object store (STORAGE_URL).',
      icon: null,
      featureKey: null,
      // every store, the data folder included, works with nothing more to set
      isConfigured: () => true,
      ui: null,
    })
    // The adapters below have no settings in this build yet: they report not configured
    // until their configuration lands in server/config.ts.
    .register({
      key: 'email',
      name: 'E-mail',
      category: 'messaging',
      description: 'Delivers verification codes, password resets and notifications by e-mail: over SMTP, or as .eml files in the data folder.',
      icon: null,
      featureKey: null,
      // Like the rates table, the outbox default works offline: mail is always delivered somewhere.
      isConfigured: () => true,
      ui: null,
    })
    .register({
      key: 'language-model',
      name: 'Language model',
      category: 'assistant',
      description: 'Answers assistant chats through an OpenAI-compatible endpoint.',
      icon: null,
      featureKey: null,
      isConfigured: (config) => config.llmBaseUrl !== undefined,
      ui: card('Assistant', 'Ask questions about your finances in plain language.'),
    })
    .register({
      key: 'document-processor',
      name: 'Document processor',
      category: 'import',
      description: 'Reads PDF and image statements for imports.',
      icon: null,
      featureKey: null,
      isConfigured: (config) => config.documentProcessorUrl !== undefined,
      ui: card('Statement import', 'Import transactions from PDF or scanned statements.'),
    })
    .register({
      key: 'social-login',
      name: 'Social login',
      category: 'authentication',
      description: 'Sign-in with OAuth 2 / OpenID Connect providers.',
      icon: null,
      featureKey: null,
      // configured as soon as one provider has usable settings (OAUTH_<DRIVER>_*)
      isConfigured: (config) => Object.keys(config.oauthProviders).length > 0,
      ui: null,
    });
}
