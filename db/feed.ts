// Lists with paging and sync semantics, for every resource. With `synced_since` the list is a
// sync feed: rows changed at or after that second, tombstones included, ordered by
// (updated_at, id) so paging never skips a row even when thousands share one updated_at.
// Without it: live rows only, in the resource's own order.
import type { SelectQueryBuilder } from 'kysely';
import type { SyncedTable } from './sync.js';

/**
 * The row offset of a 1-based page: the one paging rule of every list. Capped so a page far
 * past the end still gives an offset PostgreSQL accepts (bigint): it is simply empty.
 */
export function pageOffset(options: { page: number; limit: number }): number {
  return Math.min((options.page - 1) * options.limit, Number.MAX_SAFE_INTEGER);
}

export interface FeedOptions {
  page: number;
  limit: number;
  /** Already parsed and floored to the second. */
  since?: Date;
  noClientId?: boolean;
  /** The order of a plain (non-sync) listing. */
  order: (query: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any>;
  now: Date;
}

export interface PageMeta {
  last_sync: string;
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
}

export async function feedPage<Row extends { updated_at: Date }>(
  query: SelectQueryBuilder<any, any, Row>,
  table: SyncedTable,
  options: FeedOptions,
): Promise<{ rows: Row[]; meta: PageMeta }> {
  let filtered = query as SelectQueryBuilder<any, string, Row>;
  if (options.since) filtered = filtered.where(`${table}.updated_at`, '>=', options.since);
  else filtered = filtered.where(`${table}.deleted_at`, 'is', null);
  if (options.noClientId) filtered = filtered.where(`${table}.client_generated_id`, 'is', null);

  const ordered = options.since ? filtered.orderBy(`${table}.updated_at`, 'asc').orderBy(`${table}.id`, 'asc') : options.order(filtered);
  const [rows, counted] = await Promise.all([
    ordered.limit(options.limit).offset(pageOffset(options)).execute(),
    filtered.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const total = Number((counted as { total: number }).total);
  return { rows: rows as Row[], meta: pageMeta(rows as Row[], total, options) };
}

export function pageMeta(rows: Array<{ updated_at: Date }>, total: number, options: FeedOptions): PageMeta {
  const newest = rows.reduce<Date | undefined>((max, row) => (!max || row.updated_at > max ? row.updated_at : max), undefined);
  return {
    last_sync: (newest ?? options.since ?? options.now).toISOString(),
    current_page: options.page,
    per_page: options.limit,
    total,
    last_page: Math.max(1, Math.ceil(total / options.limit)),
  };
}
