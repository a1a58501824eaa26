// The row offset of a 1-based page. The spec bounds `page` from below only, so a huge page
// (1e20) must still give an offset PostgreSQL accepts (bigint): past the end is simply empty.
export function pageOffset(options: { page: number; limit: number }): number {
  return Math.min((options.page - 1) * options.limit, Number.MAX_SAFE_INTEGER);
}
