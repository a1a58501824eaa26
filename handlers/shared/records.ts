// What handlers of synced resources share: the 404 for records that are not the caller's,
// the 422 for references to records that are not the caller's, client ids, list parameters,
// and the client's `updated_at` check.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { parseClientId, type ClientId } from '../../domain/client-id.js';
import { parseSyncedSince } from '../../domain/sync-time.js';
import { looksLikeListCursor, openListCursor, sealListCursor } from '../../domain/list-cursor.js';
import { parseFeedCursor, type FeedCursor, type FeedOptions } from '../../db/feed.js';
import type { Database } from '../../db/schema.js';
import { findLive, type SyncedRow, type SyncedTable } from '../../db/sync.js';
import { heldBackBy } from '../../server/conditional.js';
import { invalidField, notFound } from '../../server/errors.js';
import type { AuthUser } from '../../server/handler-types.js';

/** The caller's live record, or 404 (also when it belongs to someone else). */
export async function ownedOr404<T extends SyncedTable>(db: Kysely<Database>, table: T, userId: number, id: number, what: string): Promise<SyncedRow<T>> {
  const row = await findLive(db, table, userId, id);
  if (!row) throw notFound(what);
  return row;
}

/** A referenced id must name one of the caller's live records: 422 on `field` otherwise. */
export async function requireOwned(db: Kysely<Database>, table: SyncedTable, userId: number, id: number, field: string, what: string): Promise<void> {
  if (!(await findLive(db, table, userId, id))) throw invalidField(field, `The selected ${what} is invalid.`);
}

/** The parsed client id, undefined when none was sent, 422 when malformed. */
export function clientIdFrom(value: string | null | undefined, field = 'client_id'): ClientId | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parsed = parseClientId(value);
  if (!parsed) {
    throw invalidField(field, `The ${field} must be in the format xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.`);
  }
  return parsed;
}

/** An offline client's `updated_at` may not be earlier than the record's creation. */
export function checkClientUpdatedAt(updatedAt: string | undefined, createdAt: Date): void {
  if (updatedAt !== undefined && new Date(updatedAt).getTime() < createdAt.getTime()) {
    throw invalidField('updated_at', 'The updated at date is less than the created at date.');
  }
}

/** The most rows a list page holds: a larger `limit` is served as this (DECISIONS.md; the reference clamps too). */
export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;

/** The page and page size a list request asks for: `limit` 20 by default, clamped to MAX_PAGE_SIZE. */
export function pageRequest(query: { page?: number; limit?: number }): { page: number; limit: number } {
  return { page: query.page ?? 1, limit: Math.min(query.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
}

export interface ListQuery {
  limit?: number;
  page?: number;
  synced_since?: string;
  cursor?: string;
  no_client_id?: boolean;
}

/** Whether a list request asks for a sync feed (tombstones included): `synced_since`, or a sync feed's cursor (a plain list's cursor keeps it plain). */
export function asksForSyncFeed(query: ListQuery): boolean {
  return Boolean(query.synced_since) || (query.cursor !== undefined && parseFeedCursor(query.cursor) !== undefined);
}

/** Who reads a feed: their token pages it by marks (unless `pagesByMark` is false), their request's tag depends on its horizon. */
export interface FeedReader {
  user: AuthUser;
  request: FastifyRequest;
  pagesByMark?: boolean;
  /** The deployment's key (services.appKey): with it a plain list's full pages carry a `next_cursor`, and its cursors are read. */
  cursorKey?: string;
}

/**
 * The paging and sync parameters of a list request (422 on an unreadable `synced_since` or
 * `cursor`). With the reader, pages of a `synced_since` feed continue after the page before
 * (page marks of the reader's token, db/feed.ts), keyed by every other parameter of the
 * request, and a sync page that its horizon may have held rows back from is not tagged. With
 * the reader's `cursorKey`, a `cursor` is either a sync feed's (`<stamp>.<id>`) or a plain
 * list's (domain/list-cursor.ts), and a plain list's full pages carry the next one's.
 */
export function feedOptions(query: ListQuery, now: Date, order: FeedOptions['order'], reader?: FeedReader): FeedOptions {
  let since: Date | undefined;
  if (query.synced_since !== undefined && query.synced_since !== '') {
    since = parseSyncedSince(query.synced_since);
    if (!since) throw invalidField('synced_since', 'The synced since must be an ISO 8601 date-time, e.g. 2026-11-21T05:25:22Z.');
  }
  let cursor: FeedCursor | undefined;
  let after: string[] | undefined;
  // which list a plain list's cursor belongs to: the resource's order and every parameter but those choosing a page
  const list = reader?.cursorKey ? `${JSON.stringify(order)}\n${listKey(query)}` : undefined;
  if (query.cursor !== undefined && query.cursor !== '') {
    cursor = parseFeedCursor(query.cursor);
    if (!cursor) after = listCursorKey(query.cursor, reader?.cursorKey, list);
  }
  return {
    ...pageRequest(query),
    since,
    cursor,
    noClientId: query.no_client_id === true,
    order,
    now,
    // only a synced_since feed pages by marks
    ...(reader && reader.pagesByMark !== false && since ? { marks: { tokenId: reader.user.tokenId, feed: feedKey(query) } } : {}),
    ...(reader ? { horizonRead: (horizon: Date) => heldBackBy(reader.request, reader.user, horizon) } : {}),
    // deep pages start at a kept key of the same list as the data stands at this version (db/page-anchors.ts)
    ...(reader && !cursor && !after ? { anchorList: `${reader.user.id}\n${reader.user.dataVersion}\n${listKey(query)}` } : {}),
    // a plain list's cursor: after the last row's sort key (domain/list-cursor.ts)
    ...(after ? { after } : {}),
    ...(reader?.cursorKey && list ? { sealCursor: (key: string[]) => sealListCursor(reader.cursorKey!, list, key) } : {}),
  };
}

/**
 * The sort key a plain list's cursor continues after: 422 on `cursor` when it is not one, was
 * changed, or was returned by this list with other parameters (its rows would be another list's).
 */
function listCursorKey(text: string, secret: string | undefined, list: string | undefined): string[] {
  const opened = secret && list && looksLikeListCursor(text) ? openListCursor(secret, list, text) : undefined;
  if (!opened || (!opened.ok && opened.reason === 'damaged')) throw invalidField('cursor', 'The cursor must be a next_cursor value returned by this list, unchanged.');
  if (!opened.ok) throw invalidField('cursor', 'The cursor was returned by another list, or by this one with other filters: send it with the parameters of the request that returned it.');
  return opened.key;
}

/** Every parameter of a list request but those that only choose a page of it, in a stable order: which list it is. */
function listKey(query: ListQuery): string {
  const { page: _page, cursor: _cursor, limit: _limit, ...rest } = query as Record<string, unknown>;
  return JSON.stringify(Object.keys(rest).sort().map((key) => [key, rest[key]]));
}

/** Every parameter of a list request but the page (and the cursor), in a stable order. */
function feedKey(query: ListQuery): string {
  const { page: _page, cursor: _cursor, ...rest } = query as Record<string, unknown>;
  return JSON.stringify(Object.keys(rest).sort().map((key) => [key, rest[key]]));
}
