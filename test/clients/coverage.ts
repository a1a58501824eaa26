// The suite's coverage report: every call of clients.md a client suite did not replay as the
// client needs it, printed and failed on (the target is none).
import type { Test } from 'tap';
import { clientCalls, type Client } from './reference-calls.js';

export function coverageReport(t: Test, client: Client, replayed: Set<string>): void {
  t.test(`coverage: every ${client} call of clients.md is replayed`, async (t) => {
    const calls = clientCalls(client);
    const missing = calls.filter((call) => !replayed.has(call));
    t.comment(`${client}: ${calls.length - missing.length} of ${calls.length} calls of clients.md replayed`);
    for (const call of missing) t.comment(`  not replayed: ${call}`);
    t.same(missing, [], 'calls of clients.md not replayed');
    const unknown = [...replayed].filter((call) => !calls.includes(call));
    t.same(unknown, [], 'every replayed call is one clients.md lists (a renamed call would hide here)');
  });
}
