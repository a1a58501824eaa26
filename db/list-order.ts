// A list's order as keys: applying it (or its opposite), and continuing it after a row, by the
// row's id (a page anchor, db/page-anchors.ts) or by its sort key (a plain list's cursor,
// domain/list-cursor.ts). A continuation is one row comparison over the order's columns, which
// the index of that order serves as an index condition, so a page after a known row costs what
// the first page costs.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { SyncedTable } from './sync.js';

/** Sort keys, most significant first: `[column, direction]`. */
export type ListOrder = ReadonlyArray<readonly [column: string, direction: 'asc' | 'desc']>;

/** `order` applied to `query`, or its exact opposite (every direction flipped). */
export function ordered<Q extends SelectQueryBuilder<any, any, any>>(query: Q, order: ListOrder, backwards = false): Q {
  let q: SelectQueryBuilder<any, any, any> = query;
  for (const [column, direction] of order) q = q.orderBy(column, backwards === (direction === 'asc') ? 'desc' : 'asc');
  return q as Q;
}

/** The sort key of a row, every column of `order` as text (a timestamp's text is exact to the microsecond). */
export function sortKeyOf(order: ListOrder) {
  return sql<Array<string | null>>`array[${sql.join(order.map(([column]) => sql`${sql.ref(column)}::text`))}]`;
}

/** `rows` without the sort key they were read with (removed in place). */
export function withoutSortKey<Row>(rows: Row[]): Row[] {
  for (const row of rows) delete (row as { sort_key?: unknown }).sort_key;
  return rows;
}

/**
 * The rows after the sort key `key` in `order` (all one way, see `keyable`): one row comparison,
 * which the index of that order serves. The values are sent as text of no stated type, so each is
 * read as its column's type, exactly.
 */
export function afterKey(order: ListOrder, key: readonly string[]) {
  const comparison = order[0][1] === 'desc' ? sql.raw('<') : sql.raw('>');
  return sql<boolean>`(${sql.join(order.map(([column]) => sql.ref(column)))}) ${comparison} (${sql.join(key.map((value) => sql`${value}`))})`;
}

/** An order all one way can be continued by a row comparison, which the index of that order serves. */
export function keyable(order: ListOrder): boolean {
  return order.length > 0 && order.every(([, direction]) => direction === order[0][1]) && order.at(-1)![0].endsWith('.id');
}

/** The rows after the row `id` in `order`: its key read by primary key, compared as one row (exact to the microsecond). */
export function afterRow(table: SyncedTable, order: ListOrder, id: number) {
  const columns = order.map(([column]) => column);
  const own = columns.map((column) => sql.ref(`page_anchor.${column.slice(column.lastIndexOf('.') + 1)}`));
  const comparison = order[0][1] === 'desc' ? sql.raw('<') : sql.raw('>');
  return sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) ${comparison} (select ${sql.join(own)} from ${sql.table(table)} as page_anchor where page_anchor.id = ${id})`;
}
