// Social login providers (OAuth 2 / OpenID Connect), configured from the environment, and the
// few calls the login flows make to them: the authorization address, the code exchange, the
// user's identity, and the mobile variant's ID-token check against the provider's JWKS.
//
// Per driver D (upper case, `-` as `_`): OAUTH_D_CLIENT_ID, _CLIENT_SECRET, _AUTHORIZE_URL,
// _TOKEN_URL, _USERINFO_URL, _SCOPES, _REDIRECT_URL (web flow), _JWKS_URL, _ISSUER, _AUDIENCE
// (mobile ID tokens). Google and GitHub (and Apple, mobile only) have presets, so their client
// id and secret are enough; any other driver is declared by setting its own variables.
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { ProviderUnavailableError } from './rate-providers.js';

/** Upstream calls give up after this long. */
const OAUTH_TIMEOUT_MS = 10_000;

/** How the user-info answer is read. */
type ProfileStyle = 'oidc' | 'github';

/** The authorization-code flow of GET /oauth/{driver}/login and /callback. */
export interface OAuthWebFlow {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  /** GitHub only (OAUTH_GITHUB_EMAILS_URL): the user's addresses with their verified flags. */
  emailsUrl: string | null;
  scopes: string[];
  redirectUrl: string;
  profile: ProfileStyle;
}

/** How the mobile callback checks an ID token. */
export interface IdTokenCheck {
  jwksUrl: string;
  /** Accepted `iss` values (Google uses two spellings). */
  issuers: string[];
  audience: string;
}

export interface OAuthProvider {
  driver: string;
  /** null when the driver lacks the settings for the browser flow. */
  web: OAuthWebFlow | null;
  /** null when the driver lacks the settings for ID tokens. */
  idToken: IdTokenCheck | null;
}

/** Who the provider says signed in. */
export interface ProviderIdentity {
  /** The provider's stable user id. */
  subject: string;
  email: string | null;
  /** Only a verified address may be matched to an existing account. */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

/** The provider refused the authorization code or the ID token (401). */
export class OAuthRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthRefusedError';
  }
}

interface Preset {
  authorizeUrl?: string;
  tokenUrl?: string;
  userInfoUrl?: string;
  emailsUrl?: string;
  scopes: string[];
  profile: ProfileStyle;
  jwksUrl?: string;
  issuers?: string[];
}

const PRESETS: Record<string, Preset> = {
  google: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userInfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    scopes: ['openid', 'email', 'profile'],
    profile: 'oidc',
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    issuers: ['https://accounts.google.com', 'accounts.google.com'],
  },
  github: {
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userInfoUrl: 'https://api.github.com/user',
    emailsUrl: 'https://api.github.com/user/emails',
    scopes: ['read:user', 'user:email'],
    profile: 'github',
  },
  // Sign in with Apple: ID tokens from the app (its client id is the app's bundle id).
  apple: {
    scopes: ['name', 'email'],
    profile: 'oidc',
    jwksUrl: 'https://appleid.apple.com/auth/keys',
    issuers: ['https://appleid.apple.com'],
  },
};

/** What a Firebase project's ID tokens need (FIREBASE_PROJECT_ID), for drivers signing in through it. */
const FIREBASE_DRIVERS = ['google', 'apple'];
const firebaseCheck = (projectId: string): IdTokenCheck => ({
  jwksUrl: 'https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com',
  issuers: [`https://securetoken.google.com/${projectId}`],
  audience: projectId,
});

type Env = Record<string, string | undefined>;

const DRIVER = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const HTTP_URL = /^https?:\/\/\S+$/;

/**
 * The configured providers by driver, from the environment. A driver appears only when it
 * can serve at least one of the two flows; settings that are present but malformed are
 * reported in `problems` (the caller fails the start with them).
 */
export function oauthProvidersFrom(env: Env, publicUrl: string, problems: string[]): Record<string, OAuthProvider> {
  const declared = Object.keys(env)
    .map((name) => /^OAUTH_([A-Z0-9_]+?)_(CLIENT_ID|JWKS_URL)$/.exec(name)?.[1])
    .filter((name): name is string => name !== undefined)
    .map((name) => name.toLowerCase());
  const firebaseProject = env.FIREBASE_PROJECT_ID?.trim() || undefined;
  const drivers = new Set([...Object.keys(PRESETS), ...declared, ...(firebaseProject ? FIREBASE_DRIVERS : [])]);

  const providers: Record<string, OAuthProvider> = {};
  for (const driver of drivers) {
    if (!DRIVER.test(driver)) {
      problems.push(`OAuth driver "${driver}" must be lower-case letters, digits, "_" or "-" (at most 32)`);
      continue;
    }
    const provider = providerFrom(driver, env, publicUrl, problems, firebaseProject);
    if (provider.web || provider.idToken) providers[driver] = provider;
  }
  return providers;
}

function providerFrom(driver: string, env: Env, publicUrl: string, problems: string[], firebaseProject: string | undefined): OAuthProvider {
  const prefix = `OAUTH_${driver.toUpperCase().replace(/-/g, '_')}_`;
  const preset: Preset = PRESETS[driver] ?? { scopes: ['openid', 'email', 'profile'], profile: 'oidc' };
  const value = (name: string) => env[prefix + name]?.trim() || undefined;
  const url = (name: string, fallback?: string) => {
    const given = value(name);
    if (given !== undefined && !HTTP_URL.test(given)) problems.push(`${prefix}${name} must be an http(s) URL`);
    return given ?? fallback;
  };
  const list = (text: string) => text.split(/[\s,]+/).filter(Boolean);

  const clientId = value('CLIENT_ID');
  const clientSecret = value('CLIENT_SECRET');
  const authorizeUrl = url('AUTHORIZE_URL', preset.authorizeUrl);
  const tokenUrl = url('TOKEN_URL', preset.tokenUrl);
  const userInfoUrl = url('USERINFO_URL', preset.userInfoUrl);
  const emailsUrl = url('EMAILS_URL', preset.emailsUrl) ?? null;
  const redirectUrl = url('REDIRECT_URL', `${publicUrl}/api/v1/oauth/${driver}/callback`)!;
  const scopes = value('SCOPES') ? list(value('SCOPES')!) : preset.scopes;
  const web =
    clientId && clientSecret && authorizeUrl && tokenUrl && userInfoUrl
      ? { clientId, clientSecret, authorizeUrl, tokenUrl, userInfoUrl, emailsUrl, scopes, redirectUrl, profile: preset.profile }
      : null;

  // Explicit settings win; then Firebase (when the project is set); then the provider's own.
  const firebase = firebaseProject && FIREBASE_DRIVERS.includes(driver) ? firebaseCheck(firebaseProject) : undefined;
  const jwksUrl = url('JWKS_URL', firebase?.jwksUrl ?? preset.jwksUrl);
  const issuers = value('ISSUER') ? list(value('ISSUER')!) : (firebase?.issuers ?? preset.issuers);
  const audience = value('AUDIENCE') ?? firebase?.audience ?? clientId;
  const idToken = jwksUrl && issuers?.length && audience ? { jwksUrl, issuers, audience } : null;

  return { driver, web, idToken };
}

// ---- the browser flow ------------------------------------------------------------------------

/** A random state or PKCE verifier: 43 URL-safe characters. */
export const randomToken = () => randomBytes(32).toString('base64url');

/** The provider's authorization address for `state`, with the PKCE challenge of `codeVerifier`. */
export function authorizationUrl(flow: OAuthWebFlow, state: string, codeVerifier: string): string {
  const url = new URL(flow.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', flow.clientId);
  url.searchParams.set('redirect_uri', flow.redirectUrl);
  url.searchParams.set('scope', flow.scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', createHash('sha256').update(codeVerifier).digest('base64url'));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** Trades the authorization code for an access token. */
export async function exchangeCode(flow: OAuthWebFlow, code: string, codeVerifier: string): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: flow.redirectUrl,
    client_id: flow.clientId,
    client_secret: flow.clientSecret,
    code_verifier: codeVerifier,
  });
  const { status, body } = await call('The sign-in provider', flow.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  // GitHub answers a bad code with 200 and {error}; others with 400/401.
  const token = (body as { access_token?: unknown } | null)?.access_token;
  if (status >= 400 || typeof token !== 'string' || token === '') {
    throw new OAuthRefusedError('The sign-in provider rejected the authorization code.');
  }
  return token;
}

/** Who the access token belongs to, from the user-info endpoint (and GitHub's e-mail list). */
export async function fetchIdentity(flow: OAuthWebFlow, accessToken: string): Promise<ProviderIdentity> {
  const headers = { authorization: `Bearer ${accessToken}` };
  const { status, body } = await call('The sign-in provider', flow.userInfoUrl, { headers });
  if (status >= 400 || !isObject(body)) throw new OAuthRefusedError('The sign-in provider did not accept its own access token.');
  const identity = flow.profile === 'github' ? githubIdentity(body) : identityFromClaims(body);
  if (identity.subject === '') throw new ProviderUnavailableError('The sign-in provider', 'its user information names no user');
  if (flow.profile !== 'github') return identity;

  if (flow.emailsUrl) {
    const emails = await call('The sign-in provider', flow.emailsUrl, { headers });
    const primary = Array.isArray(emails.body)
      ? (emails.body as Array<Record<string, unknown>>).find((entry) => isObject(entry) && entry.primary === true && entry.verified === true)
      : undefined;
    if (emails.status < 400 && typeof primary?.email === 'string') return { ...identity, email: primary.email, emailVerified: true };
  }
  return identity;
}

function githubIdentity(user: Record<string, unknown>): ProviderIdentity {
  const [firstName, lastName] = splitName(text(user.name) ?? text(user.login));
  // The profile's public address carries no verified flag: only /user/emails can vouch for one.
  return { subject: String(user.id ?? ''), email: text(user.email), emailVerified: false, firstName, lastName };
}

// ---- ID tokens (mobile) ----------------------------------------------------------------------

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The provider's key set, fetched once and cached (jose refetches when it meets a new key id). */
function keySet(jwksUrl: string) {
  let keys = keySets.get(jwksUrl);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: OAUTH_TIMEOUT_MS });
    keySets.set(jwksUrl, keys);
  }
  return keys;
}

/** Seconds of clock difference tolerated on `exp`, `nbf` and `iat`. */
const ID_TOKEN_CLOCK_TOLERANCE_S = 60;

/** jose's verdicts on the token itself; any other failure is about reaching the keys. */
const TOKEN_FAULTS = new Set([
  joseErrors.JWTExpired.code,
  joseErrors.JWTClaimValidationFailed.code,
  joseErrors.JWTInvalid.code,
  joseErrors.JWSInvalid.code,
  joseErrors.JWSSignatureVerificationFailed.code,
  joseErrors.JWKSNoMatchingKey.code,
  joseErrors.JWKSMultipleMatchingKeys.code,
  joseErrors.JOSEAlgNotAllowed.code,
  joseErrors.JOSENotSupported.code,
]);

/** Checks signature, issuer, audience and expiry; the claims become the identity. */
export async function verifyIdToken(check: IdTokenCheck, idToken: string): Promise<ProviderIdentity> {
  try {
    decodeJwt(idToken);
  } catch {
    throw new OAuthRefusedError('Invalid token');
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(check.jwksUrl), {
      issuer: check.issuers,
      audience: check.audience,
      requiredClaims: ['sub', 'exp'],
      // The provider's clock and ours differ a little: a token "not yet valid" or "just
      // expired" by a few seconds is still the one the provider just issued.
      clockTolerance: ID_TOKEN_CLOCK_TOLERANCE_S,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JOSEError && TOKEN_FAULTS.has(error.code)) throw new OAuthRefusedError('Invalid token');
    const reason = error instanceof joseErrors.JWKSTimeout ? `no answer within ${OAUTH_TIMEOUT_MS} ms` : 'its keys cannot be fetched';
    throw new ProviderUnavailableError('The sign-in provider', reason);
  }
  return identityFromClaims(payload as Record<string, unknown>);
}

// ---- shared ------------------------------------------------------------------------------------

/** OpenID Connect claims (user-info answer or ID token) as an identity. */
function identityFromClaims(claims: Record<string, unknown>): ProviderIdentity {
  const given = text(claims.given_name);
  const [firstName, lastName] = given ? [given, text(claims.family_name)] : splitName(text(claims.name));
  return {
    subject: String(claims.sub ?? claims.id ?? ''),
    email: text(claims.email),
    // Apple sends the flag as the string "true".
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    firstName,
    lastName,
  };
}

/** "Ada King Lovelace" → ["Ada", "King Lovelace"]. */
function splitName(name: string | null): [string | null, string | null] {
  if (!name) return [null, null];
  const [first, ...rest] = name.split(/\s+/);
  return [first!, rest.join(' ') || null];
}

/** A non-empty string claim, trimmed; NUL (which PostgreSQL text cannot hold) removed. */
export function text(value: unknown): string | null {
  const cleaned = typeof value === 'string' ? value.replace(/\u0000/g, '').trim() : '';
  return cleaned !== '' ? cleaned : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One JSON call; unreachable, slow, 5xx/429 or non-JSON answers become ProviderUnavailableError. */
async function call(provider: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string }) {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      // GitHub answers form-encoded without this, and refuses requests without a User-Agent.
      headers: { accept: 'application/json', 'user-agent': 'finance-service', ...init.headers },
      signal: AbortSignal.timeout(OAUTH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new ProviderUnavailableError(provider, timedOut ? `no answer within ${OAUTH_TIMEOUT_MS} ms` : 'it cannot be reached');
  }
  if (response.status >= 500 || response.status === 429) {
    await response.body?.cancel();
    throw new ProviderUnavailableError(provider, `it answered ${response.status}`);
  }
  try {
    return { status: response.status, body: (await response.json()) as unknown };
  } catch {
    // A refusal may come as plain text; an unreadable success is the provider's fault.
    if (response.status >= 400) return { status: response.status, body: null };
    throw new ProviderUnavailableError(provider, 'its answer is not valid JSON');
  }
}
