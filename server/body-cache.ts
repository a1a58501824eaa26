// Answers kept by their tag: the serialised (and compressed) bytes of a conditional GET's 200,
// served again to a request with the same tag without running its handler. Per process and
// bounded (an LRU by bytes, RESPONSE_CACHE_MB), and correct across a fleet by construction:
// the tag (server/conditional.ts) is a function of everything the answer is, the user's data
// version among it, which the database bumps at the commit of every change the user's answers
// show and which is read with the token before anything else. A request whose tag equals a
// kept one's is therefore one that could be answered 304 to a client holding those bytes: a
// kept body is never staler than a revalidation would let a client keep (docs/performance.md).
// The key holds the user and the token besides the tag (which hashes them with the method, the
// URL as sent, Accept-Language, the build and the operation's outside facts) and the coding:
// one user's answer can never be another's.
import { LRUCache } from 'lru-cache';
import type { Coding } from './compression.js';

export interface KeptBody {
  bytes: Buffer;
  coding: Coding;
}

interface Owner {
  id: number;
  tokenId: number;
}

/** Bookkeeping per entry beside its bytes (the key, the object): an estimate, so many tiny answers still count. */
const ENTRY_OVERHEAD = 200;

export class BodyCache {
  private readonly kept: LRUCache<string, KeptBody> | undefined;

  constructor(maxBytes: number) {
    this.kept = maxBytes > 0 ? new LRUCache<string, KeptBody>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes.length + ENTRY_OVERHEAD }) : undefined;
  }

  get enabled(): boolean {
    return this.kept !== undefined;
  }

  get(owner: Owner, tag: string, coding: Coding): KeptBody | undefined {
    return this.kept?.get(keyOf(owner, tag, coding));
  }

  /** Kept under the coding asked for, which may be identity when the body was too short to compress. */
  set(owner: Owner, tag: string, asked: Coding, body: KeptBody): void {
    this.kept?.set(keyOf(owner, tag, asked), body);
  }

  /** Tests and the bench: how much is kept. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.kept?.size ?? 0, bytes: this.kept?.calculatedSize ?? 0 };
  }
}

function keyOf(owner: Owner, tag: string, coding: Coding): string {
  return `${owner.id}\n${owner.tokenId}\n${tag}\n${coding}`;
}
