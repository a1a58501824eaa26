// How the outbox jobs (webhook deliveries, pushes) share their places fairly: work is handed out
// by key (an endpoint, a subscription), never in one queue of rows. Up to `concurrency` keys are
// served side by side, each for one turn (a few rows, in order); whenever a turn ends the key
// served least recently (one never served in this run first) gets the free place. So one user's
// burst of thousands of rows holds one place at a time, another user's row waits for a free
// place at most one turn, and a key whose receiver hangs holds only its own place.
import { setTimeout as delay } from 'node:timers/promises';

/** How often a run with a free place looks for newly due keys. */
const RESCAN_MS = 200;
/** Rows one key is served in a row before another key may take its place. */
const TURN = 20;

export interface FairTurns<Row> {
  concurrency: number;
  /** Keys with rows due now, leaving out `busy` ones (a bounded number). */
  dueKeys(busy: number[]): Promise<number[]>;
  /** Claims the key's oldest due row under a lease (db/outbox-claims.ts); undefined when none is due. */
  claim(key: number): Promise<Row | undefined>;
  /** One attempt of a claimed row, recorded; false ends the key's turn (nothing more to send to it). */
  attempt(row: Row): Promise<boolean>;
  /** A fault of ours (the database), not the receiver's: the turn ends, the lease makes the row due again later. */
  onFault(error: unknown, row: Row): void;
}

/** Serves every key with due rows until none is left due. */
export async function serveInTurns<Row>(work: FairTurns<Row>): Promise<void> {
  const turns = new Map<number, Promise<void>>();
  const lastServed = new Map<number, number>();
  let served = 0;
  for (;;) {
    const busy = [...turns.keys()];
    if (turns.size < work.concurrency) {
      const due = await work.dueKeys(busy);
      due.sort((a, b) => (lastServed.get(a) ?? -1) - (lastServed.get(b) ?? -1));
      for (const key of due.slice(0, work.concurrency - turns.size)) {
        lastServed.set(key, served++);
        turns.set(key, serveTurn(work, key).finally(() => turns.delete(key)));
      }
    }
    if (turns.size === 0) {
      // a turn that ended during the look was left out of it: look again before stopping
      if (busy.length === 0) return;
      continue;
    }
    // with a place free, look again soon: a row committed meanwhile must not wait for a slow
    // key's turn to end
    await Promise.race(turns.size < work.concurrency ? [...turns.values(), delay(RESCAN_MS)] : turns.values());
  }
}

/** Up to TURN due rows of one key, one after the other. */
async function serveTurn<Row>(work: FairTurns<Row>, key: number): Promise<void> {
  for (let i = 0; i < TURN; i++) {
    const row = await work.claim(key);
    if (!row) return;
    try {
      if (!(await work.attempt(row))) return;
    } catch (error) {
      work.onFault(error, row);
      return;
    }
  }
}
