// Builds the fastify app: plugins, the contract routes, errors in the envelope, the docs.
// Nothing here listens or opens the database: main.ts and the tests do that, then pass it in.
import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { operations } from '../generated/operations.js';
import { isDatabaseUnreachable, type DatabaseHandle } from '../db/connection.js';
import { allHandlers } from '../handlers/index.js';
import { appKeySource } from './app-key.js';
import { TokenService } from './auth.js';
import type { Config } from './config.js';
import { Contract } from './contract.js';
import { errorBody } from './envelope.js';
import { HttpError } from './errors.js';
import type { Handlers } from './handler-types.js';
import { setupRateLimits } from './rate-limits.js';
import { openFileStorage } from './storage.js';
import { runningCodeFingerprint } from './code-fingerprint.js';
import { AssetPriceService, CoinGeckoClient } from './asset-prices.js';
import { ratesProviderFor } from './rate-providers.js';
import { createRateService } from './rates.js';
import { registerPublicMedia } from './public-media.js';
import { registerSecurityHeaders } from './security-headers.js';
import { HEALTH_OPERATIONS, holdRequestsWhileStarting, Lifecycle } from './lifecycle.js';
import { BodyCache } from './body-cache.js';
import { registerCompression } from './compression.js';
import { registerMcp } from './mcp.js';
import { registerOperationRoutes } from './routes.js';
import { ResponseSerializers } from './serializers.js';
import { AttachableJobQueue, type AppServices } from './services.js';
import { vapidKeySource } from './vapid-keys.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What handlers receive as `services`; main.ts hands it to the job runner too. */
    services: AppServices;
    /** Conditional answers kept by their tag (server/body-cache.ts). */
    bodyCache: BodyCache;
  }
  interface FastifyRequest {
    /** Set once the body parser has finished: an error before that is about the body. */
    bodyRead: boolean;
  }
}

export interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  /** Benchmarks: other response serializers than the compiled ones of the spec (none: JSON.stringify everywhere). */
  serializers?: ResponseSerializers;
  /** main.ts: a process that listens before it migrates starts in phase `starting`; default: serving. */
  lifecycle?: Lifecycle;
  /** Reuse a loaded contract (tests build many apps). */
  contract?: Contract;
  handlers?: Partial<Handlers>;
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  /** Tests: called after every operation's response with what the contract says of it. */
  onResponseChecked?: (report: ContractReport) => void;
}

export interface ContractReport {
  operationId: string;
  status: number;
  violations: string[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const DOCS_PREFIX = '/docs';

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    trustProxy: config.trustProxy,
    bodyLimit: config.uploadLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  });

  const contract = options.contract ?? (await Contract.load(undefined, { compile: config.compileValidators }));
  const handlers = options.handlers ?? allHandlers;
  const appKey = appKeySource(config, database.db, (message) => app.log.warn(message));
  const lifecycle = options.lifecycle ?? new Lifecycle('serving', config.readinessTimeoutMs);
  const services: AppServices = {
    config,
    databaseKind: database.kind,
    tokens: new TokenService(appKey, config.tokenTtlSeconds),
    appKey,
    vapidKeys: vapidKeySource(config.push, database.db),
    lifecycle,
    storage: await openFileStorage(config, database.db, (error) => app.log.warn({ err: error }, 'file storage failed')),
    rates: createRateService({
      provider: ratesProviderFor(config),
      ttlSeconds: config.ratesTtlSeconds,
      onProviderFailure: (error) => app.log.warn({ err: error }, 'exchange-rates provider failed'),
    }),
    assetPrices: new AssetPriceService(new CoinGeckoClient(config.assetPricesUrl)),
    specVersion: String((contract.document.info as { version: string }).version),
    build: config.buildId ?? `code-${await runningCodeFingerprint()}`,
    operationCounts: {
      total: operations.length,
      implemented: operations.filter((op) => op.operationId in handlers).length,
    },
    now: options.now ?? (() => new Date()),
    jobs: new AttachableJobQueue((error) => app.log.warn({ err: error }, 'could not queue a job run')),
  };

  app.decorate('services', services);
  // Hooks that run on every request take `done` instead of being async: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  holdRequestsWhileStarting(app, lifecycle, HEALTH_OPERATIONS);
  registerSecurityHeaders(app, DOCS_PREFIX);
  acceptEmptyJsonBodies(app);
  await app.register(cors, {
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    // and what browser-based MCP clients send to /mcp and read from it
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'X-Request-Id', 'If-None-Match', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'ETag', 'WWW-Authenticate', 'Mcp-Session-Id'],
  });
  await app.register(multipart, {
    attachFieldsToBody: true,
    limits: { fileSize: config.uploadLimitBytes, files: 20 },
  });
  // After the multipart plugin's own preValidation hook, which reads the form.
  app.decorateRequest('bodyRead', false);
  app.addHook('preValidation', (request, _reply, done) => {
    request.bodyRead = true;
    done();
  });
  const rateLimits = await setupRateLimits(app, config);
  // before the routes: the plugin adds its hook to each route as it is registered
  await registerCompression(app, config.compression);
  const bodyCache = new BodyCache(config.responseCacheBytes);
  app.decorate('bodyCache', bodyCache);

  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send(errorBody(error.message, error.errors));
    }
    const known = knownFrameworkError(error, config.uploadLimitBytes);
    if (known) return reply.code(known.status).send(errorBody(known.message));
    if (isDatabaseUnreachable(error)) {
      request.log.warn({ err: error }, 'the database cannot be reached');
      return reply.code(503).header('retry-after', '5').send(errorBody('The service cannot reach its database right now. Please try again later.'));
    }
    // The multipart parser (busboy) throws plain errors for a missing boundary or a truncated form.
    if (!request.bodyRead && request.isMultipart()) return reply.code(400).send(errorBody('The request body could not be parsed.'));
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody('Server error. Please try again later.', undefined, request.id));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(`The route ${request.method} ${request.url.split('?')[0]} does not exist.`)),
  );

  if (options.onResponseChecked) reportContract(app, contract, options.onResponseChecked);

  await registerDocs(app, contract);
  registerPublicMedia(app, services.storage);
  registerOperationRoutes(app, {
    db: database.db,
    contract,
    tokens: services.tokens,
    handlers,
    services,
    rateLimits,
    serializers: options.serializers ?? ResponseSerializers.of(contract.document),
    verifySerializers: options.onResponseChecked !== undefined,
    docsPrefix: DOCS_PREFIX,
    compression: config.compression,
    bodies: bodyCache,
  });
  registerMcp(app, { db: database.db, contract, handlers, services, rateLimits }, services.specVersion);
  return app;
}

/** Clients send `Content-Type: application/json` with no body on POSTs like logout: that is no body, not an error. */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const source = String(text);
    if (source.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(source));
    } catch {
      done(new HttpError(400, 'The body is not valid JSON.'), undefined);
    }
  });
}

function knownFrameworkError(error: FastifyError, limitBytes: number): { status: number; message: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
      return { status: 413, message: `The request is larger than the limit of ${Math.floor(limitBytes / 1048576)} MB.` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'Unsupported Content-Type. Send application/json (or multipart/form-data where files are accepted).' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 400, message: 'The request body could not be parsed.' };
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: error.message };
  }
  return undefined;
}

/** Serves the bundled spec and an interactive reference that works offline. */
async function registerDocs(app: FastifyInstance, contract: Contract): Promise<void> {
  app.get('/api/openapi.json', async () => contract.document);
  await app.register(swagger, { mode: 'static', specification: { document: contract.document as never } });
  const product = String((contract.document.info as { title: string }).title);
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    // no validator badge: it is an image from another site, and the page's policy allows none
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    // the product's name instead of the framework's logo, and no "Explore" box: the page shows this API only
    logo: { type: 'image/svg+xml', content: productLogo(product), href: DOCS_PREFIX },
    theme: { title: `${product}: API reference`, css: [{ filename: 'product.css', content: '.swagger-ui .topbar .download-url-wrapper { display: none }' }] },
  });
}

/** The top bar's logo: the product name as text, escaped for SVG. */
function productLogo(product: string): string {
  const text = product.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${12 * text.length}" height="40"><text x="0" y="28" font-family="sans-serif" font-size="22" font-weight="bold" fill="#ffffff">${text}</text></svg>`;
}

/** Tests: validates each operation's response against the spec before it is sent. */
function reportContract(app: FastifyInstance, contract: Contract, report: (r: ContractReport) => void): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const operationId = request.routeOptions.config.operationId;
    if (!operationId) return payload;
    const contentType = String(reply.getHeader('content-type') ?? '');
    let violations: string[] = [];
    if (payload === undefined || payload === null || payload === '') {
      violations = emptyResponseViolations(contract, operationId, reply.statusCode, reply.getHeaders());
    } else if (contentType.startsWith('application/json')) {
      try {
        violations = contract.checkResponse(operationId, reply.statusCode, JSON.parse(decodedText(payload, reply.getHeader('content-encoding'))));
      } catch (error) {
        violations = [`response is not JSON: ${(error as Error).message}`];
      }
    }
    if (request.serializerDifference) violations.push(`the compiled serializer differs from JSON.stringify at ${request.serializerDifference}`);
    report({ operationId, status: reply.statusCode, violations });
    return payload;
  });
}

/** Tests: the text of a body this app compressed itself (server/compression.ts); the plugin compresses after this hook. */
function decodedText(payload: unknown, coding: unknown): string {
  if (coding === 'gzip') return gunzipSync(payload as Buffer).toString();
  if (coding === 'br') return brotliDecompressSync(payload as Buffer).toString();
  return String(payload);
}

/**
 * A response without a body (a 304): the spec must document its very status without content,
 * and every header it documents for it (they are all such a response says).
 */
function emptyResponseViolations(contract: Contract, operationId: string, status: number, headers: Record<string, unknown>): string[] {
  const operation = operations.find((op) => op.operationId === operationId)!;
  const responses = (contract.document.paths?.[operation.path] as Record<string, any>)[operation.method.toLowerCase()].responses;
  const response = contract.resolve(responses[String(status)]);
  if (!response) return [`status ${status} without a body is not documented`];
  if (response.content) return [`status ${status} is documented with a body, sent without one`];
  const present = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  return Object.keys(response.headers ?? {})
    .filter((name) => !present.has(name.toLowerCase()))
    .map((name) => `header ${name} is missing`);
}
