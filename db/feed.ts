// Lists with paging and sync semantics, for every resource.
//
// A plain list (no `synced_since`, no sync cursor) shows live rows in the resource's own order,
// by `page`, or after a plain list's cursor: the sort key of an earlier page's last row
// (domain/list-cursor.ts), found in the order's index as a first page is.
// A sync feed shows rows changed at or after `synced_since` (or after an exact sync `cursor`),
// tombstones included, ordered by the database's change stamp (`last_synced_at`, set by a
// trigger) and id. Three rules make a feed lose nothing (docs/sync.md):
// - only rows stamped before the sync horizon (db/sync-horizon.ts) are handed out, and no
//   watermark a response carries (`last_sync`, a row's `last_synced_at`, a sync `next_cursor`) ever
//   passes that horizon, so a write that commits later cannot fall behind what a client saw;
// - page N of a `synced_since` feed continues after the last row that page N-1 gave the same
//   token (a page mark), not at an offset that concurrent edits and deletes shift;
// - a `synced_since` in the future is read as "now" and never echoed back.
import { sql, type Kysely, type QueryCreator, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import { syncHorizon } from './sync-horizon.js';
import type { SyncedTable } from './sync.js';
import { VERSIONED_TABLES } from './migrations/033_user_versions.js';
import { afterKey, afterRow, keyable, ordered, sortKeyOf, withoutSortKey, type ListOrder } from './list-order.js';
import { pageAnchorsOf, type PageAnchors } from './page-anchors.js';

export type { ListOrder } from './list-order.js';

/**
 * The row offset of a 1-based page: the one paging rule of every list. Capped so a page far
 * past the end still gives an offset PostgreSQL accepts (bigint): it is simply empty.
 */
export function pageOffset(options: { page: number; limit: number }): number {
  return Math.min((options.page - 1) * options.limit, Number.MAX_SAFE_INTEGER);
}

/**
 * A page of a list that is no sync feed (records without sync stamps: webhook endpoints, push
 * subscriptions, import sessions): `rows` selected and ordered, its total counted from the same
 * query without its selection and order.
 */
export async function listPage<DB, TB extends keyof DB, Row extends { updated_at: Date }>(
  rows: SelectQueryBuilder<DB, TB, Row>,
  options: { page: number; limit: number; now: Date },
): Promise<{ rows: Row[]; meta: PageMeta }> {
  const [page, counted] = await Promise.all([
    rows.limit(options.limit).offset(pageOffset(options)).execute(),
    rows
      .clearSelect()
      .clearOrderBy()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  // (the selection's type is not resolved for a generic table; it is the one column selected above)
  return { rows: page, meta: pageMeta(page, Number((counted as { total: number | string }).total), options) };
}

/** A position in a sync feed: after this stamp and id. */
export interface FeedCursor {
  stamp: Date;
  id: number;
}

/** `<milliseconds since 1970>.<id>`: opaque to clients, exact (stamps are whole milliseconds). */
export function formatFeedCursor(cursor: FeedCursor): string {
  return `${cursor.stamp.getTime()}.${cursor.id}`;
}

export function parseFeedCursor(text: string): FeedCursor | undefined {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  if (!match) return undefined;
  const stamp = new Date(Number(match[1]));
  const id = Number(match[2]);
  return Number.isNaN(stamp.getTime()) || !Number.isSafeInteger(id) ? undefined : { stamp, id };
}

export interface FeedOptions {
  page: number;
  limit: number;
  /** Already parsed and floored to the second. */
  since?: Date;
  /** Continue exactly after this position (new clients; page is then relative to it). */
  cursor?: FeedCursor;
  noClientId?: boolean;
  /** The order of a plain (non-sync) listing; its last key must be unique (an id) for a deep page to be read backwards. */
  order: ListOrder;
  /**
   * The same rows as the feed's query without the joins that only add columns: a deep page
   * finds its ids in it, which lets PostgreSQL skip the rows before the page in an index-only
   * scan (a left join it removes still keeps the joined column needed, and the heap read).
   */
  bare?: SelectQueryBuilder<any, any, any>;
  now: Date;
  /** How many live rows a plain list has, when the resource knows it cheaper than count(*). */
  countLive?: () => Promise<number>;
  /**
   * Work on the page's rows (as they will be returned) that runs while the page's count and
   * page mark are still in flight, e.g. loading what the rows show nested.
   */
  alongside?: (rows: any[]) => Promise<unknown>;
  /**
   * The sync horizon, when the caller reads it in a statement of its own work that is under way
   * already (the transaction list's totals); the page's rows are read after it has returned.
   */
  horizon?: Promise<Date>;
  /** Who pages this feed, and its parameters but the page (the table is added to them). */
  marks?: { tokenId: number; feed: string };
  /** Told the horizon a sync page held back the rows stamped at or after (the request's ETag depends on it). */
  horizonRead?: (horizon: Date) => void;
  /** Which list this is, as the data stands (user, data version, every parameter but the page's): its page anchors' key. */
  anchorList?: string;
  /**
   * A plain list only: continue after the row with this sort key (the values of `order`'s
   * columns as PostgreSQL writes them as text, from an earlier page's last row); `page` then
   * counts from it, as it does from a sync feed's cursor.
   */
  after?: readonly string[];
  /** A plain list whose order is a key: its full pages say where the next one starts, as this makes it a `next_cursor`. */
  sealCursor?: (key: string[]) => string;
  /**
   * Where the row at a position of a plain list starts, known without walking the rows before it
   * (the transaction list's day counts, db/transaction-positions.ts); null past the list's end.
   */
  pageStart?: (offset: number) => Promise<PageStart | null>;
}

/** The rows of a list from `position` on are the list's rows matching `where`, in its order. */
export interface PageStart {
  position: number;
  where: RawBuilder<boolean>;
}

/**
 * From this offset on, a plain page counts its rows first: the scan that skips them is the
 * page's cost, so a page in the back half is read from the end (the last page costs what the
 * first does, the middle of the list the most).
 */
const DEEP_OFFSET = 10_000;

/** Rows an offset may skip before a page asks where it starts (`pageStart`, one statement) instead. */
const KNOWN_START_FROM = 1_000;

export interface PageMeta {
  last_sync: string;
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
}

export interface FeedMeta extends PageMeta {
  /** Pass as `cursor` to continue exactly after this page: on sync feeds always, on plain lists after a full page. */
  next_cursor?: string;
}

/**
 * A sync feed counts at most this many rows past the page it returns: counting a two-year
 * feed of a million rows would cost more than the page (10,000 rows cost 5-27 ms per page
 * at 1M rows, more than the rest of the page's queries). A client that stops at `last_page`
 * resumes from its watermark on its next pull, which continues exactly where it stopped.
 */
export const FEED_COUNT_CAP = 1_000;

interface StampedRow {
  id: number;
  last_synced_at: Date;
}

export async function feedPage<Row extends StampedRow>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<any, any, Row>,
  table: SyncedTable,
  options: FeedOptions,
): Promise<{ rows: Row[]; meta: FeedMeta }> {
  const sync = Boolean(options.since || options.cursor);
  // the previous page's mark is a position written by an earlier request, not data the horizon
  // bounds: read it in the same round trip's wait as the horizon
  const [horizon, mark] = await Promise.all([
    options.horizon ?? syncHorizon(db), // before the data it bounds
    sync && !options.cursor && options.page > 1 ? pageMark(db, table, options, options.page - 1) : undefined,
  ]);
  const narrowed = <Q extends SelectQueryBuilder<any, string, any>>(q: Q): Q => (options.noClientId ? (q.where(`${table}.client_generated_id`, 'is', null) as Q) : q);
  const filtered = narrowed(query as SelectQueryBuilder<any, string, Row>);
  if (sync) return syncPage(db, filtered, table, options, horizon, mark);
  return plainPage(db, filtered, options.bare ? narrowed(options.bare) : filtered, table, options, horizon);
}

/** Live rows in the resource's order, paged by offset, or after a cursor's key. */
async function plainPage<Row extends StampedRow>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<any, string, Row>,
  bare: SelectQueryBuilder<any, string, any>,
  table: SyncedTable,
  options: FeedOptions,
  horizon: Date,
) {
  const live = query.where(`${table}.deleted_at`, 'is', null);
  const count = options.countLive ?? (async () => Number((await live.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow()).total));
  const offset = pageOffset(options);
  const { after } = options;
  const keyed = keyable(options.order);
  // a cursor's rows are those after its key, which the list's index finds as it finds a first page
  const from = <Q extends SelectQueryBuilder<any, string, any>>(q: Q): Q => (after && keyed ? (q.where(afterKey(options.order, after)) as Q) : q);
  // every row says its sort key (text, exact): the last one of a full page is the next page's cursor
  const rowsOf = from((options.sealCursor && keyed ? live.select(sortKeyOf(options.order).as('sort_key')) : live) as typeof live);
  const ids = from(bare.where(`${table}.deleted_at`, 'is', null).clearSelect().select(`${table}.id`));
  const anchors = after ? undefined : anchorsOf(db, table, options);
  // a page far from any known start waits for the count to know which end of the list is nearer
  const near = anchors && keyed ? anchors.store.nearest(anchors.list, offset) : undefined;
  const known = !after && offset - (near?.position ?? 0) >= DEEP_OFFSET && options.order.length > 0 && !options.pageStart ? await count() : undefined;
  let next: Array<string | null> | undefined;
  // a cursor's page starts at its key: no known start applies to it
  const start = after ? undefined : options.pageStart;
  const capped = pageRows(rowsOf, ids, table, { order: options.order, limit: options.limit, offset, total: known, anchors, start }).then((rows) => {
    if (rows.length === options.limit) next = (rows.at(-1) as { sort_key?: Array<string | null> }).sort_key;
    return withoutSortKey(capAtHorizon(rows, horizon));
  });
  // a first page shorter than the limit holds every live row: no count (lists of a few records)
  const total = known ?? (offset === 0 && !after && !options.countLive ? capped.then((rows) => (rows.length < options.limit ? rows.length : count())) : count());
  const [rows, totalRows] = await Promise.all([capped, total, capped.then((rows) => options.alongside?.(rows))]);
  const meta: FeedMeta = pageMeta(rows.map(stampOf), totalRows, { ...options, now: horizon });
  // a full page may have a next one; a shorter page is the end of the list
  if (next && options.sealCursor && next.every((value) => value !== null)) meta.next_cursor = options.sealCursor(next as string[]);
  return { rows, meta };
}

/** Tables whose every change bumps their user's data version: only their lists' anchors can be keyed by it. */
const VERSIONED = new Set(VERSIONED_TABLES.map(([table]) => table));

/** The page anchors of this list (db/page-anchors.ts), when the caller named it. */
function anchorsOf(db: Kysely<Database>, table: SyncedTable, options: FeedOptions): ListAnchors | undefined {
  return options.anchorList && VERSIONED.has(table) ? { store: pageAnchorsOf(db), list: `${table}\n${options.anchorList}` } : undefined;
}

interface ListAnchors {
  store: PageAnchors;
  list: string;
}

/**
 * One page of `query` in `order`. A page past the first finds its ids in `ids` first (`query`'s
 * rows with only their id selected; the rows it skips are read from the index alone), then
 * reads just those rows: two statements, because as one (`id in (…)`) a table without fresh
 * statistics (a bulk import, or the embedded database, which has no autovacuum) was planned as
 * a nested loop that ran the skipping scan once per row (10,000 rows: a minute). Where the ids
 * start: after a page anchor of the same list (db/page-anchors.ts) when one is near; else at a
 * known start (`start`, e.g. the first row of the page's day) when it is nearer; else, given the
 * rows' `total`, a page nearer the end is found from the end; else by offset. Every page leaves
 * the anchors of both its ends.
 */
async function pageRows<Row>(
  query: SelectQueryBuilder<any, string, Row>,
  ids: SelectQueryBuilder<any, string, any>,
  table: SyncedTable,
  page: { order: ListOrder; limit: number; offset: number; total?: number; anchors?: ListAnchors; start?: FeedOptions['pageStart'] },
): Promise<Row[]> {
  const { order, limit, offset, total, anchors } = page;
  if (total !== undefined && offset >= total) return [];
  const record = (position: number, row: unknown) => anchors?.store.record(anchors.list, position, Number((row as { id: number }).id));
  let found;
  if (offset === 0) {
    found = (await ordered(query, order).limit(limit).execute()) as Row[];
    if (found.length > 0) record(found.length, found.at(-1));
    return found;
  }
  const anchor = anchors && keyable(order) ? anchors.store.nearest(anchors.list, offset) : undefined;
  const anchored: PageStart | undefined = anchor && { position: anchor.position, where: afterRow(table, order, anchor.afterId) };
  // a known start costs a statement: asked only when no anchor puts the page within reach
  const known = page.start && offset - (anchor?.position ?? 0) > KNOWN_START_FROM ? await page.start(offset) : undefined;
  if (known === null) return [];
  const from = known && (!anchored || known.position > anchored.position) ? known : anchored;
  const fromEnd = total !== undefined && offset > total / 2 ? total - offset : Infinity;
  if (from && offset - from.position <= Math.min(offset, fromEnd)) {
    // from the start's key; one row more when the page does not start at it, whose id anchors this page's start
    const skip = offset - from.position;
    const before = skip > 0 ? 1 : 0;
    if (skip <= limit) {
      // a few rows to skip: the page's rows in one statement, as a first page reads them
      const rows = (await ordered(query.where(from.where), order).limit(limit + before).offset(skip - before).execute()) as Row[];
      if (before && rows.length > 0) record(offset, rows.shift());
      if (rows.length > 0) record(offset + rows.length, rows.at(-1));
      return rows;
    }
    found = await ordered(ids.where(from.where), order).limit(limit + before).offset(skip - before).execute();
    if (before && found.length > 0) record(offset, found.shift());
  } else if (fromEnd !== Infinity) {
    // rows [offset, end) counted from the end are [total - end, total - offset)
    const end = Math.min(offset + limit, total!);
    found = (await ordered(ids, order, true).limit(end - offset).offset(total! - end).execute()).reverse();
  } else {
    // the row before the page too: it anchors the page's start
    found = await ordered(ids, order).limit(limit + 1).offset(offset - 1).execute();
    if (found.length > 0) record(offset, found.shift());
  }
  if (found.length === 0) return [];
  record(offset + found.length, found.at(-1));
  const wanted = found.map((row) => Number(row.id));
  return (await ordered(query.where(`${table}.id`, '=', sql<number>`any(${wanted}::bigint[])`), order).execute()) as Row[];
}

/** Rows stamped in [since, horizon) or after the cursor, in stamp order, paged by position. */
async function syncPage<Row extends StampedRow>(
  db: Kysely<Database>,
  query: SelectQueryBuilder<any, string, Row>,
  table: SyncedTable,
  options: FeedOptions,
  horizon: Date,
  /** Where page N-1 of this feed ended for this token, when known (page > 1, no cursor). */
  mark: FeedCursor | undefined,
) {
  const stamp = sql.ref(`${table}.last_synced_at`);
  const id = sql.ref(`${table}.id`);
  // a cursor takes precedence over synced_since; a since in the future reads as now
  const since = options.cursor ? undefined : options.since && options.since > horizon ? horizon : options.since;
  let window = query.where(`${table}.last_synced_at`, '<', horizon);
  options.horizonRead?.(horizon);
  if (since) window = window.where(`${table}.last_synced_at`, '>=', since);

  const after = (c: FeedCursor) => sql<boolean>`(${stamp}, ${id}) > (${c.stamp}, ${c.id})`;
  const inStampOrder: ListOrder = [
    [`${table}.last_synced_at`, 'asc'],
    [`${table}.id`, 'asc'],
  ];
  const continued = options.cursor ?? mark;
  const start = continued ? window.where(after(continued)) : window;
  // With a cursor, `page` counts from it; with a page mark, page N starts right after N-1;
  // without either (a client that jumps to a page), it is an offset.
  const skipped = mark ? 0 : pageOffset(options);
  // stamped before the horizon already: nothing to cap
  // a client that jumps to a page starts at a kept key of the same feed (not after a mark or a cursor: page N is then relative)
  const anchors = continued ? undefined : anchorsOf(db, table, options);
  const rows = await pageRows(start, start.clearSelect().select(`${table}.id`), table, { order: inStampOrder, limit: options.limit, offset: skipped, anchors });

  // total: the rows before this page, this page, and what follows it (counted up to the cap)
  const before = mark ? (options.page - 1) * options.limit : skipped;
  const last = rows.at(-1);
  // this page's mark, for page N+1 of the same token; written by the count's statement when
  // there is one (one round trip, one statement)
  const saving = last && options.marks && !options.cursor ? pageMarkUpsert(db, table, options, last) : undefined;
  const counted = (q: SelectQueryBuilder<any, string, Row>, cap: number) =>
    ((saving ? db.with('saved_mark', () => saving) : db) as QueryCreator<Database>)
      .selectFrom(q.clearSelect().select(sql.lit(1).as('one')).limit(cap).as('capped'))
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.total));
  const rest = !last
    ? counted(start, skipped + FEED_COUNT_CAP).then((count) => (mark ? before : 0) + count) // a page past the end
    : rows.length === options.limit
      ? counted(start.where(after(stampOf(last))), FEED_COUNT_CAP).then((count) => before + rows.length + count)
      : (saving?.execute() ?? Promise.resolve()).then(() => before + rows.length);
  // the count (with the mark) and the caller's work on the rows are independent: one round trip's wait
  const [total] = await Promise.all([rest, options.alongside?.(rows)]);
  const nextCursor = last && rows.length === options.limit ? stampOf(last) : { stamp: horizon, id: 0 };
  const meta = pageMeta(rows.map(stampOf), total, { ...options, since, now: horizon });
  return { rows, meta: { ...meta, next_cursor: formatFeedCursor(nextCursor) } };
}

function stampOf(row: StampedRow): FeedCursor {
  return { stamp: row.last_synced_at, id: row.id };
}

/**
 * A plain list shows rows changed after the horizon too, but never their stamps: a client that
 * takes its watermark from them (the mobile app does) would pass a write still to commit.
 */
function capAtHorizon<Row extends StampedRow>(rows: Row[], horizon: Date): Row[] {
  const capped = new Date(horizon.getTime() - 1);
  for (const row of rows) if (row.last_synced_at >= horizon) row.last_synced_at = capped;
  return rows;
}

/** A mark's feed key: the table and every list parameter but the page. */
function markFeed(table: SyncedTable, marks: NonNullable<FeedOptions['marks']>): string {
  return `${table}?${marks.feed}`;
}

async function pageMark(db: Kysely<Database>, table: SyncedTable, options: FeedOptions, page: number): Promise<FeedCursor | undefined> {
  if (!options.marks) return undefined;
  const mark = await db
    .selectFrom('sync_page_marks')
    .select(['after_stamp', 'after_id'])
    .where('token_id', '=', options.marks.tokenId)
    .where('feed', '=', markFeed(table, options.marks))
    .where('page', '=', page)
    .executeTakeFirst();
  return mark ? { stamp: mark.after_stamp, id: Number(mark.after_id) } : undefined;
}

/**
 * The statement that keeps a page's mark: a cache, so one lost in a crash only means that page
 * is found by offset, and its write does not wait for the disk (a read of a sync page should
 * not pay for a flush): `set_config(..., true)` turns synchronous_commit off for the statement's
 * own implicit transaction, whose commit follows it. A page read again with the same last row
 * writes nothing (its mark stands; only a mark an hour old is renewed, so the daily prune
 * keeps a feed in use); the conflicting row is only locked.
 */
function pageMarkUpsert(db: Kysely<Database>, table: SyncedTable, options: FeedOptions, last: StampedRow) {
  const { tokenId } = options.marks!;
  const feed = markFeed(table, options.marks!);
  return db
    .insertInto('sync_page_marks')
    .columns(['token_id', 'feed', 'page', 'after_stamp', 'after_id'])
    .expression(
      db
        .selectNoFrom([
          sql<number>`${tokenId}::bigint`.as('token_id'),
          sql<string>`${feed}::text`.as('feed'),
          sql<number>`${options.page}::int`.as('page'),
          sql<Date>`${last.last_synced_at}::timestamptz`.as('after_stamp'),
          sql<number>`${last.id}::bigint`.as('after_id'),
        ])
        .where(sql<boolean>`set_config('synchronous_commit', 'off', true) is not null`),
    )
    .onConflict((oc) =>
      oc
        .columns(['token_id', 'feed', 'page'])
        .doUpdateSet({ after_stamp: sql`excluded.after_stamp`, after_id: sql`excluded.after_id`, created_at: sql`excluded.created_at` })
        .where(
          sql<boolean>`(sync_page_marks.after_stamp, sync_page_marks.after_id) is distinct from (excluded.after_stamp, excluded.after_id)
            or sync_page_marks.created_at < excluded.created_at - interval '1 hour'`,
        ),
    );
}

/**
 * The page counters, and `last_sync`: the newest change among the rows (their stamps, or for
 * lists of unsynced records their `updated_at`), else `since`, else `now`.
 */
export function pageMeta(
  rows: Array<{ stamp: Date } | { updated_at: Date }>,
  total: number,
  // `order` is accepted (and unused) so callers can pass their FeedOptions as they are
  options: Pick<FeedOptions, 'page' | 'limit' | 'since' | 'now'> & { order?: ListOrder },
): PageMeta {
  const newest = rows.reduce<Date | undefined>((max, row) => {
    const at = 'stamp' in row ? row.stamp : row.updated_at;
    return !max || at > max ? at : max;
  }, undefined);
  return {
    last_sync: (newest ?? options.since ?? options.now).toISOString(),
    current_page: options.page,
    per_page: options.limit,
    total,
    last_page: Math.max(1, Math.ceil(total / options.limit)),
  };
}
