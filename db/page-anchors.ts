// Where the pages of a list start, so a deep page is found by key instead of by an offset that
// skips every row before it. An anchor says "the row at position P-1 of this list is id X":
// the rows from position P on are those after X in the list's order, found from X's key in the
// index (db/feed.ts `pageRows`). Every page read leaves the anchors of its two ends, so the
// next page, the previous one and the same page again start at a known key, whichever
// `page` the client sends.
//
// A cache per process (per database handle), correct by construction: a list's anchors are
// kept under the user's data version (migration 033), which the commit of every change of the
// user's rows bumps and which is read with the token before the page. A change that could move
// a row to another position therefore gives the list a new key and no anchors: a stale anchor
// is never used. (A change that commits while a page is being read is the same race as the
// offset page's: its count and its rows are separate statements; the next request has the new
// version.) Lost anchors (another process, eviction) only mean the page is found by offset.
import { LRUCache } from 'lru-cache';

/** Lists whose anchors are kept (by recent use), and anchors per list. */
const MAX_LISTS = 5_000;
const MAX_ANCHORS_PER_LIST = 64;

export interface Anchor {
  /** The position of the first row after `afterId` (0-based). */
  position: number;
  afterId: number;
}

export class PageAnchors {
  private readonly lists = new LRUCache<string, Map<number, number>>({ max: MAX_LISTS });

  /** The known anchor nearest at or before `position` (position 0 needs none). */
  nearest(list: string, position: number): Anchor | undefined {
    const anchors = this.lists.get(list);
    if (!anchors) return undefined;
    let best: Anchor | undefined;
    for (const [at, afterId] of anchors) if (at <= position && (!best || at > best.position)) best = { position: at, afterId };
    return best;
  }

  /** The row at `position - 1` of `list` is `afterId`. */
  record(list: string, position: number, afterId: number): void {
    if (position <= 0) return;
    let anchors = this.lists.get(list);
    if (!anchors) this.lists.set(list, (anchors = new Map()));
    anchors.delete(position); // re-inserted as the newest
    anchors.set(position, afterId);
    // the oldest goes first (a Map iterates in insertion order)
    if (anchors.size > MAX_ANCHORS_PER_LIST) anchors.delete(anchors.keys().next().value!);
  }
}

const byDatabase = new WeakMap<object, PageAnchors>();

/** The anchors of lists read through this database handle (one per app: apps on other databases never share one). */
export function pageAnchorsOf(db: object): PageAnchors {
  let anchors = byDatabase.get(db);
  if (!anchors) byDatabase.set(db, (anchors = new PageAnchors()));
  return anchors;
}
