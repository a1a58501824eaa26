// Conditional requests (RFC 9110 §13.1.2). The GETs the spec marks `x-conditional` answer 200
// with an ETag, and 304 with no body, without running their handler, when If-None-Match names
// the current tag. The tag hashes what the answer is a function of:
// - the user's data version (db/migrations/033), which the commit of any change of a row their
//   answers show bumps, read with the token before the page is read: a change that commits
//   after that read bumps it again, so no tag is ever paired with an answer that misses a
//   change the tag counts;
// - the token: page N of a sync feed continues where page N-1 ended for that token;
// - the request as sent: method, path and query string, Accept-Language;
// - the build (its answers to the same data may differ from another build's);
// - the operation's facts outside the user's rows (`x-conditional: {also-varies-with}`):
//   `today`, the quarter hour (every zone's offset is a whole number of quarter hours, so the
//   user's local date, whatever their zone, is one value within one quarter hour), and
//   `exchange-rates`, the version of the stored rates.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OperationInfo } from '../generated/operations.js';
import type { AuthUser } from './handler-types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for a conditional operation's GET: its current tag, and whether a 200 may carry it. */
    conditional: Conditional | null;
  }
}

interface Conditional {
  tag: string;
  /** false once the answer was found to depend on more than the tag covers (heldBackBy). */
  taggable: boolean;
}

const QUARTER_HOUR_MS = 15 * 60_000;

/** `private, no-cache`: a browser keeps the answer but revalidates it every time; shared caches do not store it. */
const CACHE_CONTROL = 'private, no-cache';

export interface TagInputs {
  operation: OperationInfo;
  user: AuthUser;
  now: Date;
  build: string;
}

/** The weak ETag of the answer to this request as the data stands at the user's version. */
export function entityTag(request: FastifyRequest, { operation, user, now, build }: TagInputs): string {
  const facts = (operation.conditional ?? []).map((fact) => (fact === 'today' ? Math.floor(now.getTime() / QUARTER_HOUR_MS) : user.ratesVersion ?? 0));
  const language = request.headers['accept-language'] ?? '';
  const key = [user.id, user.tokenId, user.dataVersion, request.method, request.url, language, build, ...facts].join('\n');
  return `W/"${createHash('sha256').update(key).digest('base64url').slice(0, 22)}"`;
}

/** What If-None-Match asks: `*` (any current answer), or the opaque parts of the tags it lists. */
function parseIfNoneMatch(header: string | string[] | undefined): { any: boolean; tags: string[] } {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  if (value.trim() === '*') return { any: true, tags: [] };
  // weak comparison: W/ is ignored on both sides; anything that is no quoted tag matches nothing
  return { any: false, tags: [...value.matchAll(/(?:W\/)?"([^"]*)"/g)].map((match) => match[1]) };
}

const opaque = (tag: string) => tag.slice(tag.indexOf('"') + 1, -1);

/**
 * Before the handler: the request's tag, and whether If-None-Match names it (then the answer is
 * 304 without reading anything). `*` is decided after the handler: only an answer that exists
 * (200) matches it.
 */
export function checkConditional(request: FastifyRequest, inputs: TagInputs): 'not-modified' | 'any' | 'run' {
  const tag = entityTag(request, inputs);
  request.conditional = { tag, taggable: true };
  const asked = parseIfNoneMatch(request.headers['if-none-match']);
  if (asked.any) return 'any';
  return asked.tags.includes(opaque(tag)) ? 'not-modified' : 'run';
}

/** 304: the tag, and the headers its 200 would carry that say how to cache it (RFC 9110 §15.4.5). */
export function notModified(request: FastifyRequest, reply: FastifyReply, variesByCoding = false) {
  if (variesByCoding) reply.header('vary', 'accept-encoding');
  return reply.code(304).header('etag', request.conditional!.tag).header('cache-control', CACHE_CONTROL).send();
}

/** The headers of a conditional operation's 200: its tag, unless the answer may hold back a counted change. */
export function tagAnswer(request: FastifyRequest, reply: FastifyReply): void {
  const conditional = request.conditional!;
  if (conditional.taggable) reply.header('etag', conditional.tag);
  reply.header('cache-control', CACHE_CONTROL);
}

/**
 * A sync page hands out only rows stamped before its horizon (db/feed.ts). Every row a change
 * counted in the user's version carries a stamp at or before that version's `changed_at`; when
 * the horizon is not past it, a write still open (anyone's) may have held one of them back, and
 * the same request will show it once that write ends, at the same version: such an answer
 * carries no tag, so it is never revalidated into hiding the row.
 */
export function heldBackBy(request: FastifyRequest, user: AuthUser, horizon: Date): void {
  if (!request.conditional || !user.dataChangedAt) return;
  // stamps are whole milliseconds, at or before changed_at's (as read, rounded or truncated)
  if (horizon.getTime() <= user.dataChangedAt.getTime()) request.conditional.taggable = false;
}
