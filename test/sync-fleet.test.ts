// The sync fleet (test/helpers/sync-fleet.ts) against one app, by inject: devices of several
// users, replays, edits during paging and skewed clocks converge to the server's rows. The same
// fleet runs over three service processes in test/process-fleet.test.ts.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { syncFleetConverges } from './helpers/sync-fleet.js';

const api = await startApp(t);

t.test('every device converges to the server, nothing twice, nothing missed', (t) => syncFleetConverges(t, api, api.db));
