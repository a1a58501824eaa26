// Social login: the browser flow (login address with a recorded state, then the callback that
// exchanges the code) and the mobile flow (an ID token checked against the provider's JWKS).
// Both end like POST /login: a new token and the account. The providers and their calls are
// in server/oauth-providers.ts.
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { findLinkedUser, linkOrCreateUser, rememberOAuthState, takeOAuthState } from '../db/oauth-accounts.js';
import type { Database } from '../db/schema.js';
import { avatarOf, type UserRecord } from '../db/users.js';
import { ok } from '../server/envelope.js';
import { HttpError, invalidField, notFound, validationFailed } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import {
  authorizationUrl,
  exchangeCode,
  fetchIdentity,
  OAuthRefusedError,
  randomToken,
  text,
  verifyIdToken,
  type OAuthProvider,
  type ProviderIdentity,
} from '../server/oauth-providers.js';
import { ProviderUnavailableError } from '../server/rate-providers.js';
import type { AppServices } from '../server/services.js';
import { signIn } from './authentication.js';
import { toUser } from './views/user.js';

/** How long a login's state may wait for its callback. */
const STATE_TTL_MS = 10 * 60 * 1000;

const SIGNED_IN = 'User authenticated successfully';

async function getOAuthRedirect({ params, query, db, services }: HandlerContext<'getOAuthRedirect'>) {
  const flow = settingsOf(services, params.driver, 'web');
  const state = query.state ?? randomToken();
  const codeVerifier = randomToken();
  const now = services.now();
  await rememberOAuthState(db, params.driver, state, codeVerifier, new Date(now.getTime() + STATE_TTL_MS), now);
  return ok({ url: authorizationUrl(flow, state, codeVerifier), state, message: 'oauth login redirection url' as const });
}

async function handleOAuthCallback({ params, query, db, services, log }: HandlerContext<'handleOAuthCallback'>) {
  const flow = settingsOf(services, params.driver, 'web');
  const codeVerifier = await takeOAuthState(db, params.driver, query.state, services.now());
  if (codeVerifier === undefined) throw invalidField('state', 'The state is invalid or has expired. Start the sign-in again.');
  const identity = await fromProvider(log, async () => fetchIdentity(flow, await exchangeCode(flow, query.code, codeVerifier)));
  return ok(await signInAs(db, services, params.driver, identity, 'code'), SIGNED_IN);
}

async function handleMobileOAuthCallback({ params, body, db, services, log }: HandlerContext<'handleMobileOAuthCallback'>) {
  const check = settingsOf(services, params.driver, 'idToken');
  const idToken = body.id_token ?? body.token;
  if (idToken === undefined) throw validationFailed({ id_token: ['The id token field is required.'] });
  const identity = await fromProvider(log, () => verifyIdToken(check, idToken));
  const firstName = text(body.first_name);
  const fallbackName = firstName ? { firstName, lastName: text(body.last_name) } : undefined;
  return ok(await signInAs(db, services, params.driver, identity, 'id_token', fallbackName), SIGNED_IN);
}

/** The driver's settings for one flow; an unknown driver, or one without them, is 404. */
function settingsOf<F extends 'web' | 'idToken'>(services: AppServices, driver: string, flow: F): NonNullable<OAuthProvider[F]> {
  const providers = services.config.oauthProviders;
  const settings = Object.hasOwn(providers, driver) ? providers[driver]![flow] : null;
  if (!settings) throw notFound('Sign-in provider');
  return settings;
}

/** Provider calls: a refusal is 401, an unreachable or misbehaving provider 503. */
async function fromProvider<T>(log: FastifyBaseLogger, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof OAuthRefusedError) throw new HttpError(401, error.message);
    if (error instanceof ProviderUnavailableError) {
      log.warn({ err: error }, 'sign-in provider failed');
      throw new HttpError(503, 'The sign-in provider cannot be reached right now. Please try again later.');
    }
    throw error;
  }
}

/**
 * The account of the provider user: the one already linked, else the one with the same
 * verified e-mail (then linked), else a new one. An address the provider has not verified
 * never signs into (or creates) an account, so nobody can claim someone else's address.
 */
async function signInAs(
  db: Kysely<Database>,
  services: AppServices,
  driver: string,
  identity: ProviderIdentity,
  field: 'code' | 'id_token',
  fallbackName?: { firstName: string; lastName: string | null },
) {
  let user: UserRecord | undefined = await findLinkedUser(db, driver, identity.subject);
  if (!user) {
    if (!identity.email) throw invalidField(field, 'The sign-in provider did not share an e-mail address. Allow access to your e-mail and try again.');
    if (!identity.emailVerified) throw invalidField(field, 'The sign-in provider has not verified this e-mail address.');
    const name = identity.firstName
      ? { firstName: identity.firstName, lastName: identity.lastName }
      : (fallbackName ?? { firstName: identity.email.split('@')[0]!, lastName: null });
    ({ user } = await linkOrCreateUser(
      db,
      { provider: driver, providerUserId: identity.subject, email: identity.email, firstName: name.firstName.slice(0, 255), lastName: name.lastName?.slice(0, 255) ?? null },
      services.now(),
    ));
  }
  return signIn(db, services, toUser(user, await avatarOf(db, user.id)));
}

export const oauthHandlers = {
  getOAuthRedirect,
  handleOAuthCallback,
  handleMobileOAuthCallback,
} satisfies Partial<Handlers>;
