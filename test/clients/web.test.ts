// The reference web UI (Nuxt), replayed call by call as its screens make them (web-calls.ts):
// every request from another origin, preflighted, with Accept-Language; ending with the
// suite's coverage report against clients.md §4.1.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from '../helpers/harness.js';
import { coverageReport } from './coverage.js';
import { replay, type State } from './driver.js';
import { identityProvider } from './identity-provider.js';
import { webSteps } from './web-calls.js';

const provider = await identityProvider(t);
const api = await startApp(t, { oauthProviders: provider.oauthProviders });
const state: State = { email: `web-${randomUUID().slice(0, 8)}@example.test` };

async function codeFor(address: string): Promise<string> {
  const mail = await api.db.selectFrom('emails').select('text_body').where('to_address', '=', address).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return /\b(\d{6})\b/.exec(mail.text_body)?.[1] ?? '';
}

async function notify(s: State): Promise<void> {
  const user = await api.db.selectFrom('users').select('id').where('email', '=', s.email).executeTakeFirstOrThrow();
  await api.db
    .insertInto('notifications')
    .values([
      { user_id: user.id, type: 'alert', title: 'Budget almost spent', body: 'Books: 85% used', data: JSON.stringify({ budget_id: 1 }) },
      { user_id: user.id, type: 'achievement', title: 'A week of tracking', body: 'Seven days in a row', data: JSON.stringify({}) },
    ])
    .execute();
}

const replayed = await replay(t, api, 'web', webSteps({ codeFor, oauthCode: provider.codeFor, notify }), state);
coverageReport(t, 'web', replayed);
