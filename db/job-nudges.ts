// Jobs a write asks to run once it has committed. Code deep in a write (the outbox of webhook
// events) cannot nudge the queue itself: it runs before the commit, and a job started then
// would not see its rows. It names the job here instead, and whoever ran the work (the route of
// a request, the runner of a job) sends the nudges after it returned, so after the commit.
// A write that rolled back leaves a nudge that finds nothing, which costs one empty run.
import { AsyncLocalStorage } from 'node:async_hooks';

const pending = new AsyncLocalStorage<Set<string>>();

/** Runs `work`, collecting the jobs it asks to run into `nudges`. */
export function collectingNudges<T>(nudges: Set<string>, work: () => Promise<T>): Promise<T> {
  return pending.run(nudges, work);
}

/** Asks for a run of `jobName` after the surrounding request or job (outside one: nothing, its schedule runs it). */
export function nudgeAfterCommit(jobName: string): void {
  pending.getStore()?.add(jobName);
}
