// Security headers on every response, set in one onSend hook: API answers, errors, 404s,
// stored files and the docs alike. JSON and files get a policy that allows nothing (a file
// opened in a browser cannot run script or be framed); the interactive reference under /docs
// gets the least it needs: its own scripts and styles (Swagger UI sets inline styles), the
// logo as a data: image, and fetching the spec from this origin. HSTS only on HTTPS requests:
// behind a TLS proxy with TRUST_PROXY, X-Forwarded-Proto says so.
import type { FastifyInstance } from 'fastify';

const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const ALWAYS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const HSTS = 'max-age=31536000; includeSubDomains';

export function registerSecurityHeaders(app: FastifyInstance, docsPrefix: string): void {
  // A `done` hook, not an async one: it runs on every response, and a promise each is waste.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(ALWAYS);
    // a page that set its own (the MCP OAuth consent page, server/mcp-oauth-page.ts) keeps it
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', isUnder(request.url, docsPrefix) ? DOCS_POLICY : API_POLICY);
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done(null, payload);
  });
}

/** Whether the path of `url` (query aside) is `prefix` or below it. */
function isUnder(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url[prefix.length];
  return next === undefined || next === '/' || next === '?';
}
