// Deprecation a client can see: an operation marked deprecated in the spec (itself, or a
// property of its request or answers) answers with `Deprecation` (RFC 9745: the date it was
// deprecated, as a structured-field date), `Sunset` (RFC 8594: when it may be removed, as an
// HTTP date) when the spec sets one, and a `Link` to its entry in the docs. A deprecated query
// parameter only marks the answers to requests that send it. Dates come from the spec's
// `x-deprecation` through generated/operations.ts (scripts/contract/deprecations.ts).
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { OperationInfo } from '../generated/operations.js';

/** The headers for a deprecation, or undefined when the request does not touch what is deprecated. */
export function deprecationHeaders(operation: OperationInfo, query: Record<string, unknown>, docsPrefix: string): Record<string, string> | undefined {
  const deprecation = operation.deprecation;
  if (!deprecation) return undefined;
  if (deprecation.parameters && !deprecation.parameters.some((name) => query[name] !== undefined)) return undefined;
  const docs = `<${docsPrefix}#/${encodeURIComponent(operation.tag)}/${operation.operationId}>`;
  const links = [`${docs}; rel="deprecation"; type="text/html"`];
  const headers: Record<string, string> = { deprecation: `@${Date.parse(`${deprecation.date}T00:00:00Z`) / 1000}` };
  if (deprecation.sunset) {
    headers.sunset = new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString();
    links.push(`${docs}; rel="sunset"; type="text/html"`);
  }
  headers.link = links.join(', ');
  return headers;
}

/** The route's onSend hook for a deprecated operation: every answer, errors included. */
export function deprecationHook(operation: OperationInfo, docsPrefix: string): onSendHookHandler {
  return (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    const headers = deprecationHeaders(operation, (request.query ?? {}) as Record<string, unknown>, docsPrefix);
    if (headers) reply.headers(headers);
    done(null, payload);
  };
}
