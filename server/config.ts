// Configuration from the environment: every setting has a documented default and is
// validated once at start, so a typo fails loudly instead of running with a surprise.
import path from 'node:path';
import { STRONG_PASSWORD_HASHING, type PasswordHashing } from '../domain/passwords.js';
import { oauthProvidersFrom, type OAuthProvider } from './oauth-providers.js';
import type { Env } from './outbox-config.js';
import { pushConfigFrom, type PushConfig } from './push-config.js';
import { bankSyncConfigFrom, type BankSyncConfig } from './bank-sync-config.js';
import { webhookConfigFrom, type WebhookConfig } from './webhook-config.js';
import { storageFrom, type StorageConfig } from './storage-config.js';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; unset means the embedded database in dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL: connections keep the plans of the statistics reads (db/kept-plans.ts); off behind a transaction-mode pooler. */
  databaseKeepPlans: boolean;
  dataDir: string;
  /** APP_KEY: the secret that signs access tokens; unset, the one kept in the database is used (server/app-key.ts). */
  appKey: string | undefined;
  /** BUILD_ID: the release's identifier; unset, a digest of the running code (server/code-fingerprint.ts). */
  buildId: string | undefined;
  /** Access-token lifetime in seconds. */
  tokenTtlSeconds: number;
  /** argon2id cost of new password hashes (PASSWORD_HASH_*); the strong defaults are for production. */
  passwordHashing: PasswordHashing;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Where uploaded bytes are kept (STORAGE_URL): the data folder, the database or an S3-compatible store. */
  storage: StorageConfig;
  /** Largest accepted request body or uploaded file, in bytes. */
  uploadLimitBytes: number;
  /** Requests per minute per IP and per e-mail on public account routes; 0 = off. */
  rateLimitAuth: number;
  /** Requests per minute per user on authenticated routes; 0 = off. */
  rateLimitApi: number;
  corsOrigins: string[] | '*';
  /** Redis for counters shared by several processes (rate limits); unset keeps them in memory. */
  redisUrl: string | undefined;
  /** The prefix of every Redis key the service writes (REDIS_KEY_PREFIX), so deployments can share one Redis. */
  redisKeyPrefix: string;
  trustProxy: boolean;
  /** COMPRESSION: answers negotiated into br or gzip by Accept-Encoding (server/compression.ts); off when a proxy compresses. */
  compression: boolean;
  /** RESPONSE_CACHE_MB: bytes of serialised (and compressed) answers kept per process by their ETag (server/body-cache.ts); 0 = none. */
  responseCacheBytes: number;
  /** Public base address of the service, used in links (files, OAuth redirects). */
  publicUrl: string;
  /** Seconds between SIGTERM (readiness turns 503) and the drain, so balancers stop sending first (SHUTDOWN_DELAY, default 5). */
  shutdownDelaySeconds: number;
  /** How long the readiness check waits for the database before answering 503 (READINESS_TIMEOUT_MS, default 2000). */
  readinessTimeoutMs: number;
  /**
   * When the request validators are compiled (COMPILE_VALIDATORS): 'at-start' (the default: a
   * broken schema fails the start, no request pays for compiling) or 'on-first-use' (each
   * operation's on its first request: a start ~0.9 s shorter, for short-lived processes such as
   * the tests' child services).
   */
  compileValidators: 'at-start' | 'on-first-use';
  /** Whether this process runs the background job workers (RUN_JOBS, default true). */
  runJobs: boolean;
  /** Exchange-rates provider: an HTTP base URL (RATES_PROVIDER_URL), or undefined for the bundled offline table. */
  ratesProviderUrl: string | undefined;
  /** API key sent to the rates provider as a bearer token (RATES_PROVIDER_KEY). */
  ratesProviderKey: string | undefined;
  /** How long a stored provider rate is trusted, in seconds (RATES_TTL, default 1h). */
  ratesTtlSeconds: number;
  /** Base URL of the CoinGecko-compatible asset price API (ASSET_PRICES_URL). */
  assetPricesUrl: string;
  /** SMTP server for outgoing mail (SMTP_URL, smtp:// or smtps://); unset writes .eml files to DATA_DIR/outbox. */
  smtpUrl: string | undefined;
  /** Sender of outgoing mail (MAIL_FROM), an address with an optional display name. */
  mailFrom: string;
  /** Social login providers by driver (OAUTH_<DRIVER>_*, FIREBASE_PROJECT_ID); only those with usable settings. */
  oauthProviders: Record<string, OAuthProvider>;
  /** OpenAI-compatible chat-completions endpoint of the assistant (LLM_BASE_URL, e.g. https://api.openai.com/v1); unset: no language model. */
  llmBaseUrl: string | undefined;
  /** Bearer key sent to the language model (LLM_API_KEY). */
  llmApiKey: string | undefined;
  /** Model name sent to the language model (LLM_MODEL, default gpt-4o-mini). */
  llmModel: string;
  /** Seconds one language-model call may take before the reply fails (LLM_TIMEOUT, default 60). */
  llmTimeoutSeconds: number;
  /** Document processor for PDF and image imports (DOCUMENT_PROCESSOR_URL); unset refuses them. */
  documentProcessorUrl: string | undefined;
  /** Bearer token sent to the document processor (DOCUMENT_PROCESSOR_KEY). */
  documentProcessorKey: string | undefined;
  /** Webhook delivery (WEBHOOK_*, server/webhook-config.ts). */
  webhooks: WebhookConfig;
  /** Push notifications (VAPID_*, FCM_SERVICE_ACCOUNT, PUSH_*; server/push-config.ts). */
  push: PushConfig;
  /** Whether the MCP server answers at /mcp (MCP_ENABLED, default on: it takes MCP tokens only). */
  mcpEnabled: boolean;
  /** Host names whose browser pages may call /mcp (MCP_ALLOWED_ORIGINS), besides PUBLIC_URL's and localhost. */
  mcpAllowedOrigins: string[];
  /** The OAuth authorization server for /mcp (MCP_OAUTH_*; docs/mcp.md, "OAuth"): on with MCP_ENABLED unless MCP_OAUTH_ENABLED=0. */
  mcpOAuth: { enabled: boolean; accessTokenTtlSeconds: number; refreshTokenTtlSeconds: number };
  /** Bank connections' syncing (BANK_SYNC_*; server/bank-sync-config.ts). */
  bankSync: BankSyncConfig;
}

export class ConfigError extends Error {}


const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const FLAG_ON = ['1', 'true', 'on', 'yes'];
const FLAG_OFF = ['0', 'false', 'off', 'no'];

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  // an on/off setting: one spelling for all of them, and a typo is an error, not the default
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (FLAG_ON.includes(raw)) return true;
    if (FLAG_OFF.includes(raw)) return false;
    problems.push(`${name} must be one of ${[...FLAG_ON, ...FLAG_OFF].join(', ')}, got "${env[name]}"`);
    return fallback;
  };

  const logLevel = (env.LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const tokenTtlSeconds = parseDuration(env.TOKEN_TTL ?? '30d');
  if (tokenTtlSeconds === undefined) problems.push('TOKEN_TTL must be a duration such as 3600, 12h or 30d');

  const databaseUrl = env.DATABASE_URL || undefined;
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');
  const redisKeyPrefix = env.REDIS_KEY_PREFIX ?? 'finance-rl:';
  if (!/^[\w:.-]{1,64}$/.test(redisKeyPrefix)) problems.push('REDIS_KEY_PREFIX must be 1 to 64 letters, digits or _ : . -');

  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }

  const databaseKeepPlans = flag('DATABASE_KEEP_PLANS', true);
  const trustProxy = flag('TRUST_PROXY', false);
  const runJobs = flag('RUN_JOBS', true);
  const compression = flag('COMPRESSION', true);

  const ratesTtlSeconds = parseDuration(env.RATES_TTL || '1h');
  if (ratesTtlSeconds === undefined) problems.push('RATES_TTL must be a duration such as 3600, 30m or 1h');
  const ratesProvider = (env.RATES_PROVIDER_URL || 'offline').trim();
  if (ratesProvider !== 'offline' && !/^https?:\/\//.test(ratesProvider)) {
    problems.push('RATES_PROVIDER_URL must be an http(s) URL or "offline"');
  }
  const assetPricesUrl = (env.ASSET_PRICES_URL || 'https://api.coingecko.com/api/v3').trim();
  if (!/^https?:\/\//.test(assetPricesUrl)) problems.push('ASSET_PRICES_URL must be an http(s) URL');

  const smtpUrl = env.SMTP_URL?.trim() || undefined;
  if (smtpUrl && !/^smtps?:\/\/[^/]/.test(smtpUrl)) problems.push('SMTP_URL must look like smtp://user:pass@host:port or smtps://...');
  const mailFrom = (env.MAIL_FROM || 'Finance <no-reply@localhost>').trim();
  if (!/^(?:[^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(mailFrom)) {
    problems.push('MAIL_FROM must be an address, optionally with a name: "Finance <no-reply@example.com>"');
  }

  const llmBaseUrl = env.LLM_BASE_URL?.trim() || undefined;
  if (llmBaseUrl && !/^https?:\/\//.test(llmBaseUrl)) problems.push('LLM_BASE_URL must be an http(s) URL');

  const documentProcessorUrl = env.DOCUMENT_PROCESSOR_URL?.trim() || undefined;
  if (documentProcessorUrl && !/^https?:\/\//.test(documentProcessorUrl)) problems.push('DOCUMENT_PROCESSOR_URL must be an http(s) URL');

  const port = int('PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const origins = (env.CORS_ORIGINS ?? '*').trim();
  const publicUrl = (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, '');
  const oauthProviders = oauthProvidersFrom(env, publicUrl, problems);
  // read before the problems are reported, so a bad value is one of them, not a silent default
  const uploadLimitBytes = int('UPLOAD_LIMIT_MB', 10, 1, 1024) * 1024 * 1024;
  const rateLimitAuth = int('RATE_LIMIT_AUTH', 10);
  const rateLimitApi = int('RATE_LIMIT_API', 600);
  const storage = storageFrom(env, int('STORAGE_TIMEOUT_MS', 5000, 100, 120_000), problems);
  const llmTimeoutSeconds = int('LLM_TIMEOUT', 60, 1, 600);
  const responseCacheBytes = int('RESPONSE_CACHE_MB', 32, 0, 4096) * 1024 * 1024;
  const shutdownDelaySeconds = int('SHUTDOWN_DELAY', 5, 0, 300);
  const readinessTimeoutMs = int('READINESS_TIMEOUT_MS', 2000, 50, 60_000);
  const compileValidators = env.COMPILE_VALIDATORS ?? 'at-start';
  if (compileValidators !== 'at-start' && compileValidators !== 'on-first-use') problems.push(`COMPILE_VALIDATORS must be at-start or on-first-use, got "${compileValidators}"`);
  const passwordHashing: PasswordHashing = {
    memoryCost: int('PASSWORD_HASH_MEMORY_KIB', STRONG_PASSWORD_HASHING.memoryCost, 8, 4 * 1024 * 1024),
    timeCost: int('PASSWORD_HASH_ITERATIONS', STRONG_PASSWORD_HASHING.timeCost, 1, 100),
    parallelism: int('PASSWORD_HASH_PARALLELISM', STRONG_PASSWORD_HASHING.parallelism, 1, 64),
  };

  const mcpEnabled = flag('MCP_ENABLED', true);
  const mcpAllowedOrigins = (env.MCP_ALLOWED_ORIGINS ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  for (const name of mcpAllowedOrigins) if (!/^[a-z0-9.-]+$|^\[[0-9a-f:]+\]$/.test(name)) problems.push(`MCP_ALLOWED_ORIGINS takes host names (no scheme, no port), got "${name}"`);

  const mcpOAuthAccessTtl = parseDuration(env.MCP_OAUTH_ACCESS_TOKEN_TTL || '1h');
  if (mcpOAuthAccessTtl === undefined) problems.push('MCP_OAUTH_ACCESS_TOKEN_TTL must be a duration such as 3600, 15m or 1h');
  const mcpOAuthRefreshTtl = parseDuration(env.MCP_OAUTH_REFRESH_TOKEN_TTL || '30d');
  if (mcpOAuthRefreshTtl === undefined) problems.push('MCP_OAUTH_REFRESH_TOKEN_TTL must be a duration such as 12h or 30d');
  const mcpOAuth = { enabled: mcpEnabled && flag('MCP_OAUTH_ENABLED', true), accessTokenTtlSeconds: mcpOAuthAccessTtl!, refreshTokenTtlSeconds: mcpOAuthRefreshTtl! };

  const webhooks = webhookConfigFrom(env, int, problems, parseDuration);
  const push = pushConfigFrom(env, int, mailFrom, problems);
  const bankSync = bankSyncConfigFrom(int);

  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);

  return {
    port,
    host,
    databaseUrl,
    databaseKeepPlans,
    dataDir,
    appKey: env.APP_KEY || undefined,
    buildId: env.BUILD_ID?.trim() || undefined,
    tokenTtlSeconds: tokenTtlSeconds!,
    passwordHashing,
    logLevel,
    storage,
    uploadLimitBytes,
    rateLimitAuth,
    rateLimitApi,
    corsOrigins: origins === '*' ? '*' : origins.split(',').map((o) => o.trim()).filter(Boolean),
    redisUrl,
    redisKeyPrefix,
    trustProxy,
    compression,
    responseCacheBytes,
    publicUrl,
    shutdownDelaySeconds,
    readinessTimeoutMs,
    compileValidators: compileValidators as Config['compileValidators'],
    runJobs,
    ratesProviderUrl: ratesProvider === 'offline' ? undefined : ratesProvider.replace(/\/+$/, ''),
    ratesProviderKey: env.RATES_PROVIDER_KEY || undefined,
    ratesTtlSeconds: ratesTtlSeconds!,
    assetPricesUrl: assetPricesUrl.replace(/\/+$/, ''),
    oauthProviders,
    smtpUrl,
    mailFrom,
    llmBaseUrl: llmBaseUrl?.replace(/\/+$/, ''),
    llmApiKey: env.LLM_API_KEY || undefined,
    llmModel: (env.LLM_MODEL || 'gpt-4o-mini').trim(),
    llmTimeoutSeconds,
    documentProcessorUrl,
    documentProcessorKey: env.DOCUMENT_PROCESSOR_KEY || undefined,
    webhooks,
    push,
    mcpEnabled,
    mcpAllowedOrigins,
    mcpOAuth,
    bankSync,
  };
}

/** Seconds in "3600", "90s", "15m", "12h" or "30d". */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
