// One fastify route per operation of the spec. The request path is explicit, in order:
// authenticate (onRequest, before any body is read) → rate limits (preHandler) → media type
// and contract validation → the handler for the operationId → the envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import { operations, type OperationInfo } from '../generated/operations.js';
import type { Database } from '../db/schema.js';
import type { TokenService } from './auth.js';
import type { BodyCache } from './body-cache.js';
import { codingHeaders, encodeBody, negotiatedCoding, type Coding } from './compression.js';
import { checkConditional, notModified, tagAnswer } from './conditional.js';
import { deprecationHook } from './deprecation.js';
import type { Contract } from './contract.js';
import { isRaw, successBody, type RawResult, type Result } from './envelope.js';
import { forbidden, notFound, notImplemented, unsupportedMediaType, validationFailed } from './errors.js';
import { readMultipart, type UploadedFiles } from './multipart.js';
import { verified, type ResponseSerializers, type Serialize } from './serializers.js';
import { collectingNudges } from '../db/job-nudges.js';
import type { AuthUser, Handlers } from './handler-types.js';
import type { RateLimits } from './rate-limits.js';
import type { AppServices } from './services.js';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
    /** Tests: where a compiled serializer's output differed from JSON.stringify's. */
    serializerDifference: string | null;
  }
  interface FastifyContextConfig {
    operationId?: string;
  }
}

export interface RouteDeps {
  db: Kysely<Database>;
  contract: Contract;
  tokens: TokenService;
  handlers: Partial<Handlers>;
  services: AppServices;
  rateLimits: RateLimits;
  /** Compiled serializers of the hot responses; the others go through JSON.stringify. */
  serializers: ResponseSerializers;
  /** Where the docs are served: a deprecated operation's `Link` points at its entry there. */
  docsPrefix: string;
  /** Tests: check every compiled response against JSON.stringify (request.serializerDifference). */
  verifySerializers?: boolean;
  /** Whether answers are compressed (COMPRESSION). */
  compression: boolean;
  /** Conditional answers kept by their tag (RESPONSE_CACHE_MB). */
  bodies: BodyCache;
}

export function registerOperationRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.decorateRequest('user', null);
  app.decorateRequest('serializerDifference', null);
  app.decorateRequest('conditional', null);
  for (const operation of operations) {
    app.route({
      method: operation.method,
      url: operation.route,
      config: { operationId: operation.operationId },
      // stored files go as stored (server/compression.ts), with their length
      ...(STORED_FILES.has(operation.operationId) && { compress: false as const }),
      onRequest: operation.public ? undefined : authenticate(deps, operation.tag === ADMIN_TAG),
      preHandler: deps.rateLimits.forOperation(operation) as preHandlerHookHandler[],
      onSend: operation.deprecation ? deprecationHook(operation, deps.docsPrefix) : undefined,
      handler: (request, reply) => runOperation(operation, deps, request, reply),
    });
  }
  registerWrongMethodRoutes(app);
}

/** Operations that answer a stored file's bytes. */
const STORED_FILES = new Set(['downloadFile']);

/** Operations of this tag are for accounts with the admin role only. */
const ADMIN_TAG = 'Admin';

function authenticate(deps: RouteDeps, adminOnly: boolean) {
  return async (request: FastifyRequest) => {
    request.user = await deps.tokens.authenticate(deps.db, request.headers.authorization, deps.services.now());
    // Checked once here, before the body is read: 401 first, then 403 for any other account.
    if (adminOnly && request.user.role !== 'admin') throw forbidden('Forbidden. You do not have the required role.');
  };
}

async function runOperation(operation: OperationInfo, deps: RouteDeps, request: FastifyRequest, reply: FastifyReply) {
  checkMediaType(operation, request);
  let body = request.body;
  let files: UploadedFiles = {};
  if (request.isMultipart()) {
    const schema = deps.contract.requestSchema(operation.operationId, 'multipart/form-data');
    ({ body, files } = await readMultipart(request.body as never, schema, deps.contract.resolve));
  }
  const checked = checkedRequest(operation, deps, {
    path: request.url.slice('/api'.length).split('?')[0],
    headers: request.headers,
    query: request.query as Record<string, unknown>,
    body,
  });
  const handler = handlerOf(operation, deps);
  // x-conditional: an unchanged answer is 304 before anything of it is read
  const precondition = conditionalOf(operation, deps, request);
  if (precondition === 'not-modified') return notModified(request, reply, deps.compression);
  const coding = precondition ? negotiatedCoding(request, deps.compression) : 'identity';
  // the same tag's answer, already serialised and compressed: the request's identity is in the tag
  const kept = precondition === 'run' ? deps.bodies.get(request.user!, request.conditional!.tag, coding) : undefined;
  if (kept) {
    tagAnswer(request, reply);
    return sendEncoded(reply, kept.bytes, kept.coding, deps.compression);
  }

  const result = await callHandler(operation, deps, handler, { user: request.user, ...checked, body, files, request });
  if (isRaw(result)) return reply.code(result.status).headers(result.headers).send(result.body);
  const serialize = deps.serializers.for(operation.operationId, result.status);
  if (precondition && result.status === 200) {
    if (precondition === 'any') return notModified(request, reply, deps.compression);
    tagAnswer(request, reply);
    const text = (serialize ? (deps.verifySerializers ? verifiedFor(request, serialize) : serialize) : JSON.stringify)(successBody(result));
    const encoded = await encodeBody(text, coding);
    if (request.conditional!.taggable) deps.bodies.set(request.user!, request.conditional!.tag, coding, encoded);
    return sendEncoded(reply, encoded.bytes, encoded.coding, deps.compression);
  }
  // with its own serializer fastify sets no content type: the one it sets for JSON
  if (serialize) reply.type(JSON_TYPE).serializer(deps.verifySerializers ? verifiedFor(request, serialize) : serialize);
  return reply.code(result.status).send(successBody(result));
}

/** What an operation's request carries, as the contract reads it (path relative to `/api`, without the query). */
export interface OperationRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The request checked by the contract: coerced params and query, or 422 keyed by field (404 for a malformed id in the path). */
function checkedRequest(operation: OperationInfo, deps: Pick<RouteDeps, 'contract'>, parts: OperationRequest) {
  const check = deps.contract.checkRequest(operation.operationId, { method: operation.method, ...parts });
  if (!check.ok) {
    // A malformed id in the path names no record: 404, as for an unknown id.
    if (check.pathInvalid) throw notFound();
    throw validationFailed(check.errors);
  }
  return { params: check.params, query: check.query };
}

type AnyHandler = (ctx: unknown) => Promise<Result | RawResult>;

/** The operation's handler, or 501 when it has none yet. */
export function handlerOf(operation: OperationInfo, deps: Pick<RouteDeps, 'handlers'>): AnyHandler {
  const handler = deps.handlers[operation.operationId] as AnyHandler | undefined;
  if (!handler) throw notImplemented(operation.operationId);
  return handler;
}

export interface HandlerInput {
  user: AuthUser | null;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  files: UploadedFiles;
  request: FastifyRequest;
}

/** Runs the handler with its context; after a write, sends the jobs it asked for. Every door (HTTP, MCP) calls it. */
export async function callHandler(operation: OperationInfo, deps: Pick<RouteDeps, 'db' | 'services'>, handler: AnyHandler, input: HandlerInput): Promise<Result | RawResult> {
  const run = () => handler({ ...input, db: deps.db, services: deps.services, log: input.request.log });
  // Reads write nothing that asks for a job, so only writes pay for collecting the nudges (a nudge
  // missed would only wait for the job's schedule).
  const nudges = new Set<string>();
  const result = operation.method === 'GET' ? await run() : await collectingNudges(nudges, run);
  // the handler's writes have committed: jobs they asked for may run now
  for (const job of nudges) await deps.services.jobs.send(job);
  return result;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A conditional GET's 200 as bytes already serialised (and compressed). */
function sendEncoded(reply: FastifyReply, bytes: Buffer, coding: Coding, compression: boolean) {
  codingHeaders(reply, coding, compression);
  return reply.code(200).type(JSON_TYPE).send(bytes);
}

/** For a GET of an `x-conditional` operation by a user: its tag is set, and what If-None-Match asks of it. */
function conditionalOf(operation: OperationInfo, deps: RouteDeps, request: FastifyRequest) {
  if (!operation.conditional || !request.user || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  return checkConditional(request, { operation, user: request.user, now: deps.services.now(), build: deps.services.build });
}

function verifiedFor(request: FastifyRequest, serialize: Serialize): Serialize {
  return verified(serialize, (difference) => (request.serializerDifference = difference));
}

/** 415 when a body arrives in a media type the operation does not take. */
function checkMediaType(operation: OperationInfo, request: FastifyRequest): void {
  const contentType = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (!contentType || request.body === undefined) return;
  if (operation.bodyTypes.length === 0) return; // a body the operation does not read is ignored
  if (!operation.bodyTypes.includes(contentType)) throw unsupportedMediaType(operation.bodyTypes);
}

/** Every path answers the methods it lacks with 405 and an Allow header, in the envelope. */
function registerWrongMethodRoutes(app: FastifyInstance): void {
  const byRoute = new Map<string, Set<string>>();
  for (const op of operations) {
    const methods = byRoute.get(op.route) ?? new Set<string>();
    methods.add(op.method);
    byRoute.set(op.route, methods);
  }
  for (const [route, methods] of byRoute) {
    const allowed = [...methods];
    if (methods.has('GET')) allowed.push('HEAD');
    const missing = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    app.route({
      method: missing as ('GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH')[],
      url: route,
      exposeHeadRoute: false,
      handler: async (request, reply) =>
        reply
          .code(405)
          .header('allow', allowed.join(', '))
          .send({ success: false, message: `The ${request.method} method is not supported for this route. Supported: ${allowed.join(', ')}.` }),
    });
  }
}
