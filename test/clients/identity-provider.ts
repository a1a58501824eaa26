// A social-login provider on a loopback port for the client suites: the web's OAuth code flow
// (token and userinfo endpoints) and the mobile app's Firebase ID tokens (signed here, keys
// served as JWKS).
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startFakeProvider } from '../helpers/fake-provider.js';
import { oauthProvidersFrom } from '../../server/oauth-providers.js';

const FIREBASE_PROJECT = 'finance-clients-test';

export async function identityProvider(t: { teardown(fn: () => unknown): void }) {
  const fake = await startFakeProvider(t);
  const keys = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'clients-1', alg: 'RS256', use: 'sig' };
  /** The e-mail each authorization code signs in as. */
  const people = new Map<string, string>();
  fake.answer((request) => {
    if (request.path === '/jwks') return { json: { keys: [jwk] } };
    if (request.path === '/token') return { json: { access_token: `at-${people.size}`, token_type: 'bearer' } };
    if (request.path === '/userinfo') {
      const email = [...people.values()].at(-1);
      return { json: { sub: `sub-${email}`, email, email_verified: true, given_name: 'Web', family_name: 'Person' } };
    }
    return { status: 404, json: { error: 'unknown' } };
  });
  const env = {
    FIREBASE_PROJECT_ID: FIREBASE_PROJECT,
    OAUTH_GOOGLE_CLIENT_ID: 'web-client',
    OAUTH_GOOGLE_CLIENT_SECRET: 'web-secret',
    OAUTH_GOOGLE_AUTHORIZE_URL: `${fake.url}/authorize`,
    OAUTH_GOOGLE_TOKEN_URL: `${fake.url}/token`,
    OAUTH_GOOGLE_USERINFO_URL: `${fake.url}/userinfo`,
    OAUTH_GOOGLE_JWKS_URL: `${fake.url}/jwks`,
    OAUTH_GOOGLE_ISSUER: `https://securetoken.google.com/${FIREBASE_PROJECT}`,
    OAUTH_GOOGLE_AUDIENCE: FIREBASE_PROJECT,
    OAUTH_APPLE_JWKS_URL: `${fake.url}/jwks`,
    OAUTH_APPLE_ISSUER: `https://securetoken.google.com/${FIREBASE_PROJECT}`,
    OAUTH_APPLE_AUDIENCE: FIREBASE_PROJECT,
  };
  const problems: string[] = [];
  const oauthProviders = oauthProvidersFrom(env, 'http://localhost:3000', problems);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return {
    oauthProviders,
    /** An authorization code for the web flow that signs in as `email`. */
    codeFor(email: string): string {
      const code = `code-${people.size + 1}`;
      people.set(code, email);
      return code;
    },
    /** A Firebase ID token, as the mobile app gets it from the Firebase SDK. */
    async idToken(email: string): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ email, email_verified: true, name: 'Mobile Person' })
        .setProtectedHeader({ alg: 'RS256', kid: 'clients-1' })
        .setIssuer(`https://securetoken.google.com/${FIREBASE_PROJECT}`)
        .setAudience(FIREBASE_PROJECT)
        .setSubject(`firebase-${email}`)
        .setIssuedAt(now - 10)
        .setExpirationTime(now + 600)
        .sign(keys.privateKey);
    },
  };
}
