// synced_since as clients send it: whole seconds, rounded down; days that do not exist refused.
import t from 'tap';
import { parseSyncedSince } from '../../domain/sync-time.js';

t.test('forms clients send, compared at whole seconds', async (t) => {
  t.equal(parseSyncedSince('2026-11-21T05:25:22.987654Z')?.toISOString(), '2026-11-21T05:25:22.000Z');
  t.equal(parseSyncedSince('2026-11-21T05:25:22')?.toISOString(), '2026-11-21T05:25:22.000Z', 'no zone is UTC');
  t.equal(parseSyncedSince('2026-11-21 07:25+0200')?.toISOString(), '2026-11-21T05:25:00.000Z');
  t.equal(parseSyncedSince('2026-11-21')?.toISOString(), '2026-11-21T00:00:00.000Z');
  t.equal(parseSyncedSince('2024-02-29T00:00:00Z')?.toISOString(), '2024-02-29T00:00:00.000Z', 'a leap day exists');
});

t.test('anything else is not a time', async (t) => {
  for (const text of ['never', '2026-02-30T00:00:00Z', '2025-02-29', '2026-13-01', '2026-04-31T10:00:00Z', '']) {
    t.equal(parseSyncedSince(text), undefined, text);
  }
});
