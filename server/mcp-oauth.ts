// The OAuth 2.1 authorization server for /mcp (docs/mcp.md, "OAuth"), so that a hosted assistant
// connects by URL alone: RFC 8414 metadata, RFC 7591 dynamic registration (public clients), the
// authorization endpoint with its consent page (PKCE S256 required, RFC 9207 `iss` on the
// redirect), and the token endpoint (server/mcp-oauth-grants.ts), every token bound to
// PUBLIC_URL/mcp (RFC 8707). Nothing is kept in a process: clients, codes and grants are rows,
// and the pending request travels in the consent form sealed under the app key, so any process
// of a fleet serves any step. These are OAuth's endpoints, outside the OpenAPI contract: their
// errors are the RFCs' JSON (`error`, `error_description`), not the API's envelope.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { SignJWT, jwtVerify } from 'jose';
import type { Kysely } from 'kysely';
import { findOauthClient, insertOauthClient, insertOauthCode, type OauthClient } from '../db/mcp-oauth.js';
import type { Database } from '../db/schema.js';
import { findUserForLogin } from '../db/users.js';
import { verifyPassword } from '../domain/passwords.js';
import { HttpError } from './errors.js';
import { OAuthError, PKCE_TEXT, exchangeCode, randomSecret, refreshTokens, sameUrl, sha256 } from './mcp-oauth-grants.js';
import { sendConsentPage, sendErrorPage } from './mcp-oauth-page.js';
import type { RateLimits } from './rate-limits.js';
import type { AppServices } from './services.js';

export const SCOPES = ['read', 'write'] as const;
const PATHS = { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register' };
const METADATA_PATH = '/.well-known/oauth-authorization-server';
/** An authorization code lives one minute: the client exchanges it as soon as it is redirected. */
const CODE_TTL_MS = 60_000;
/** The consent form may stay open ten minutes. */
const CONSENT_TTL_SECONDS = 600;
const LIMITS = { body: 16 * 1024, redirectUris: 10, redirectUri: 2000, clientName: 200, state: 1000 };
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CONSENT_AUDIENCE = 'mcp-oauth-consent';

interface Deps {
  db: Kysely<Database>;
  services: AppServices;
  rateLimits: RateLimits;
}

/** The request the user is asked to approve, sealed in the consent form. */
interface PendingRequest {
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  resource: string;
  code_challenge: string;
  state?: string;
}

type Form = Record<string, string | undefined>;

/** The authorization server's metadata (RFC 8414): also what the protected-resource document points to. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}${PATHS.authorize}`,
    token_endpoint: `${issuer}${PATHS.token}`,
    registration_endpoint: `${issuer}${PATHS.register}`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

export function registerMcpOAuth(app: FastifyInstance, deps: Deps, resource: string): void {
  const { config } = deps.services;
  const issuer = config.publicUrl;
  const metadata = authorizationServerMetadata(issuer);
  const issuerPath = new URL(issuer).pathname.replace(/\/+$/, '');
  // RFC 8414 §3: with a path in the issuer, clients ask at the well-known address with the path appended
  for (const url of new Set([METADATA_PATH, `${METADATA_PATH}${issuerPath}`])) app.get(url, async () => metadata);

  // the app key (settled on first use, server/app-key.ts), apart from the tokens' by what it is mixed with
  let sealingKey: Promise<Uint8Array> | undefined;
  const consentKey = () => (sealingKey ??= deps.services.appKey().then((key) => new TextEncoder().encode(`${key}\u0000${CONSENT_AUDIENCE}`)));
  const seal = async (pending: PendingRequest) =>
    new SignJWT({ ...pending })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(CONSENT_AUDIENCE)
      .setIssuer(issuer)
      .setIssuedAt(Math.floor(deps.services.now().getTime() / 1000))
      .setExpirationTime(Math.floor(deps.services.now().getTime() / 1000) + CONSENT_TTL_SECONDS)
      .sign(await consentKey());
  const unseal = async (sealed: string | undefined): Promise<PendingRequest | undefined> => {
    if (!sealed) return undefined;
    try {
      const { payload } = await jwtVerify(sealed, await consentKey(), { algorithms: ['HS256'], audience: CONSENT_AUDIENCE, issuer, currentDate: deps.services.now() });
      return payload as unknown as PendingRequest;
    } catch {
      return undefined;
    }
  };
  /** Back to the client (RFC 6749 §4.1.2): its redirect URI with the answer, the state and our issuer (RFC 9207). */
  const redirectBack = (reply: FastifyReply, pending: Pick<PendingRequest, 'redirect_uri' | 'state'>, answer: Record<string, string>) => {
    const target = new URL(pending.redirect_uri);
    for (const [name, value] of Object.entries({ ...answer, ...(pending.state !== undefined ? { state: pending.state } : {}), iss: issuer })) target.searchParams.set(name, value);
    return reply.code(302).header('cache-control', 'no-store').header('location', target.href).send();
  };
  /** Runs rate-limit hooks; the message of a refusal (429, with Retry-After set), or undefined. */
  const refusedByLimit = async (hooks: preHandlerAsyncHookHandler[], request: FastifyRequest, reply: FastifyReply) => {
    try {
      for (const hook of hooks) await hook.call(app, request, reply);
      return undefined;
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 429) return error.message;
      throw error;
    }
  };

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: LIMITS.body }, (_request, text, done) =>
      done(null, Object.fromEntries(new URLSearchParams(text as string))),
    );
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: LIMITS.body }, (_request, text, done) => {
      try {
        done(null, JSON.parse(text as string));
      } catch {
        done(new OAuthError('invalid_request', 'The body is not JSON.'), undefined);
      }
    });
    scope.setErrorHandler((error, request, reply) => {
      const status = (error as { statusCode?: number }).statusCode ?? 500;
      if (!(error instanceof OAuthError) && status >= 500) request.log.error({ err: error }, 'MCP OAuth request failed');
      const description = status === 413 ? `The body is larger than ${LIMITS.body} bytes.` : status === 415 ? 'Send application/x-www-form-urlencoded (or JSON for registration).' : status < 500 ? (error as Error).message : 'Server error. Please try again later.';
      const answer = error instanceof OAuthError ? error : new OAuthError(status >= 500 ? 'server_error' : 'invalid_request', description, status);
      // a registration's unreadable body is its metadata's fault (RFC 7591 §3.2.2)
      const registering = request.url.startsWith(PATHS.register) && answer.error === 'invalid_request';
      return sendOAuthError(reply, registering ? new OAuthError('invalid_client_metadata', answer.description, answer.statusCode) : answer);
    });

    // ---- RFC 7591 dynamic client registration ----
    scope.post(PATHS.register, async (request, reply) => {
      const refused = await refusedByLimit(deps.rateLimits.forMcpOAuth('public'), request, reply);
      if (refused) return sendOAuthError(reply, new OAuthError('temporarily_unavailable', refused, 429));
      const client = clientFrom(request.body);
      const row = await insertOauthClient(deps.db, { clientId: `mcp-${randomBytes(16).toString('base64url')}`, ...client });
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({
          client_id: row.client_id,
          client_id_issued_at: Math.floor(row.created_at.getTime() / 1000),
          client_name: row.client_name,
          redirect_uris: client.redirectUris,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          scope: SCOPES.join(' '),
        });
    });

    // ---- the authorization endpoint: the consent page, then its answer ----
    scope.get(PATHS.authorize, async (request, reply) => {
      const refused = await refusedByLimit(deps.rateLimits.forMcpOAuth('public'), request, reply);
      if (refused) return sendErrorPage(reply, 429, refused);
      const query = stringsOf(request.query);
      const client = query.client_id ? await findOauthClient(deps.db, query.client_id) : undefined;
      if (!client) return sendErrorPage(reply, 400, 'The application is not registered here (unknown client_id).');
      const redirectUri = registeredRedirect(client, query.redirect_uri);
      if (!redirectUri) return sendErrorPage(reply, 400, 'The redirect_uri is not one the application registered.');
      const fail = (error: string, description: string) => redirectBack(reply, { redirect_uri: redirectUri, state: query.state }, { error, error_description: description });
      if (query.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
      if (!query.code_challenge || query.code_challenge_method !== 'S256') return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256.');
      if (!PKCE_TEXT.test(query.code_challenge)) return fail('invalid_request', 'code_challenge is not a base64url SHA-256.');
      if (query.state !== undefined && query.state.length > LIMITS.state) return fail('invalid_request', `state is longer than ${LIMITS.state} characters.`);
      // offline_access asks for a refresh token, which every grant gets: nothing to approve
      const named = (query.scope ?? '').split(' ').filter((name) => name && name !== 'offline_access');
      // none named: both, as a personal token without scopes
      const asked = named.length > 0 ? named : [...SCOPES];
      if (asked.some((name) => !(SCOPES as readonly string[]).includes(name))) return fail('invalid_scope', `The scopes are: ${SCOPES.join(', ')}.`);
      if (query.resource !== undefined && !sameUrl(query.resource, resource)) return fail('invalid_target', `This server grants access only to ${resource}.`);
      const scopes = SCOPES.filter((name) => asked.includes(name));
      const pending: PendingRequest = { client_id: client.clientId, redirect_uri: redirectUri, scopes, resource, code_challenge: query.code_challenge, ...(query.state !== undefined ? { state: query.state } : {}) };
      return sendConsentPage(reply, { clientName: client.clientName, scopes, resource, redirectUri, sealed: await seal(pending) });
    });

    scope.post(PATHS.authorize, async (request, reply) => {
      const form = stringsOf(request.body);
      const pending = await unseal(form.request);
      if (!pending) return sendErrorPage(reply, 400, 'This sign-in page expired or was altered.');
      if (form.decision !== 'approve') return redirectBack(reply, pending, { error: 'access_denied', error_description: 'The user denied the access.' });
      const client = await findOauthClient(deps.db, pending.client_id);
      if (!client) return sendErrorPage(reply, 400, 'The application is no longer registered here.');
      const view = { clientName: client.clientName, scopes: pending.scopes, resource: pending.resource, redirectUri: pending.redirect_uri, sealed: form.request!, email: form.email };
      // the login's throttling, with the login's counters (per IP and per e-mail)
      const refused = await refusedByLimit(deps.rateLimits.forMcpOAuth('sign-in'), request, reply);
      if (refused) return sendConsentPage(reply, { ...view, error: refused }, 429);
      const user = await signedInUser(deps, form.email, form.password);
      if (!user) return sendConsentPage(reply, { ...view, error: 'The e-mail or the password is wrong.' }, 401);
      const code = randomSecret();
      const now = deps.services.now();
      await insertOauthCode(
        deps.db,
        {
          codeHash: sha256(code),
          clientId: client.clientId,
          userId: user.id,
          redirectUri: pending.redirect_uri,
          codeChallenge: pending.code_challenge,
          scopes: pending.scopes.join(' '),
          resource: pending.resource,
          expiresAt: new Date(now.getTime() + CODE_TTL_MS),
        },
        now,
      );
      return redirectBack(reply, pending, { code });
    });

    // ---- the token endpoint ----
    scope.post(PATHS.token, async (request, reply) => {
      const refused = await refusedByLimit(deps.rateLimits.forMcpOAuth('public'), request, reply);
      if (refused) return sendOAuthError(reply, new OAuthError('temporarily_unavailable', refused, 429));
      const form = stringsOf(request.body);
      // a client that authenticates by HTTP Basic names itself there (its secret, if any, means nothing: every client is public)
      const clientId = form.client_id ?? basicClientId(request.headers.authorization);
      const client = clientId ? await findOauthClient(deps.db, clientId) : undefined;
      if (!client) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first.', 401);
      const ctx = { db: deps.db, services: deps.services, client, resource, form };
      const answer =
        form.grant_type === 'authorization_code'
          ? await exchangeCode(ctx)
          : form.grant_type === 'refresh_token'
            ? await refreshTokens(ctx)
            : (() => {
                throw new OAuthError('unsupported_grant_type', 'grant_type is authorization_code or refresh_token.');
              })();
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
    });
  });
}

function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  return reply.code(error.statusCode).header('cache-control', 'no-store').send({ error: error.error, error_description: error.description });
}

/** The user the consent form's e-mail and password name, checked as the login checks them; undefined otherwise. */
async function signedInUser(deps: Deps, email: string | undefined, password: string | undefined) {
  if (!email || !password) return undefined;
  const user = await findUserForLogin(deps.db, { email: email.trim() });
  const valid = await verifyPassword(user?.password_hash ?? null, password, deps.services.config.passwordHashing);
  return valid && user ? user : undefined;
}

/** The client id of an `Authorization: Basic` header (RFC 6749 §2.3.1: form-encoded, then base64). */
function basicClientId(header: string | undefined): string | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const id = decoded.slice(0, decoded.includes(':') ? decoded.indexOf(':') : undefined);
  try {
    return decodeURIComponent(id.replace(/\+/g, ' ')) || undefined;
  } catch {
    return undefined;
  }
}

/** A query or form as strings: a repeated parameter is not one (RFC 6749 §3.1), so it counts as absent. */
function stringsOf(input: unknown): Form {
  if (!input || typeof input !== 'object') return {};
  return Object.fromEntries(Object.entries(input).map(([name, value]) => [name, typeof value === 'string' ? value : undefined]));
}

/** The registration request's metadata, checked (RFC 7591 §2); a problem is the RFC's error. */
function clientFrom(body: unknown): { clientName: string; redirectUris: string[] } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The body is a JSON object of client metadata.');
  const metadata = body as Record<string, unknown>;
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > LIMITS.redirectUris || !uris.every((uri) => typeof uri === 'string')) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris is a list of 1 to ${LIMITS.redirectUris} URLs.`);
  }
  for (const uri of uris as string[]) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `${uri.slice(0, 100)} ${problem}.`);
  }
  const name = metadata.client_name ?? 'MCP client';
  if (typeof name !== 'string' || name.trim() === '' || name.length > LIMITS.clientName) throw new OAuthError('invalid_client_metadata', `client_name is a text of 1 to ${LIMITS.clientName} characters.`);
  const grantTypes = metadata.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || grantTypes.some((type) => type !== 'authorization_code' && type !== 'refresh_token')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.');
  }
  const responseTypes = metadata.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types may hold code only.');
  if (metadata.scope !== undefined && (typeof metadata.scope !== 'string' || metadata.scope.split(' ').some((s) => s && s !== 'offline_access' && !(SCOPES as readonly string[]).includes(s)))) {
    throw new OAuthError('invalid_client_metadata', `scope may hold ${SCOPES.join(' ')} only.`);
  }
  // token_endpoint_auth_method: every client is public here ("none"), whatever it asked (RFC 7591 §3.2.1 lets the server replace it)
  return { clientName: name.trim(), redirectUris: [...new Set(uris as string[])] };
}

/** Why a redirect URI cannot be registered: https anywhere, http only on a loopback address (RFC 8252 §7.3). */
function redirectUriProblem(text: string): string | undefined {
  if (text.length > LIMITS.redirectUri) return `is longer than ${LIMITS.redirectUri} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash || text.includes('#')) return 'has a fragment';
  if (url.username || url.password) return 'carries credentials';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must be https, or http on a loopback address (127.0.0.1, localhost, [::1])';
}

/** The redirect URI the request may use: one the client registered (a loopback one on any port, RFC 8252 §7.3). */
function registeredRedirect(client: OauthClient, requested: string | undefined): string | undefined {
  if (requested === undefined) return client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
  if (client.redirectUris.includes(requested)) return requested;
  const asked = urlOf(requested);
  if (!asked || asked.protocol !== 'http:' || !LOOPBACK.has(asked.hostname)) return undefined;
  const samePlace = (uri: string) => {
    const known = urlOf(uri);
    return known?.protocol === 'http:' && known.hostname === asked.hostname && known.pathname === asked.pathname && known.search === asked.search;
  };
  return client.redirectUris.some(samePlace) ? requested : undefined;
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
