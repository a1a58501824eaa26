// The reference mobile app (Flutter, offline-first), replayed call by call as it makes them
// (mobile-calls.ts), ending with the suite's coverage report against clients.md §4.2.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startApp } from '../helpers/harness.js';
import { replay, type State } from './driver.js';
import { coverageReport } from './coverage.js';
import { identityProvider } from './identity-provider.js';
import { mobileSteps } from './mobile-calls.js';

const provider = await identityProvider(t);
const api = await startApp(t, { oauthProviders: provider.oauthProviders });

const tag = randomUUID().slice(0, 8);
const state: State = {
  tag,
  email: `mobile-${tag}@example.test`,
  phone: `+2376${String(Date.now()).slice(-8)}`,
  device: randomUUID(),
  ids: {},
  createdAt: {},
  rows: {},
  watermarks: {},
};

async function codeFor(address: string): Promise<string> {
  const mail = await api.db.selectFrom('emails').select('text_body').where('to_address', '=', address).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return /\b(\d{6})\b/.exec(mail.text_body)?.[1] ?? '';
}

/** What exists on the server without a client id when the app first syncs: the web's records and the server's notifications. */
async function serverMade(s: State): Promise<void> {
  const web = async (path: string, body: unknown) => {
    const res = await api.request('POST', `/api/v1/${path}`, { token: s.token, body });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  await web('categories', { name: 'Salary', type: 'income', description: 'From the web' });
  await web('configurations', { key: 'default-lang', value: 'fr', type: 'string' });
  const wallet = await web('wallets', { name: 'Web wallet', type: 'cash', description: 'From the web', currency: 'USD', balance: 1000 });
  await web('parties', { name: 'Landlord', type: 'individual', description: 'From the web' });
  // More than one page (20 by default) so the app pages while current_page < last_page.
  for (let i = 0; i < 21; i++) await web('transactions', { amount: 1 + i, type: 'expense', description: `Web ${i}`, datetime: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), wallet_id: wallet.id, party_id: null, group_id: null, categories: [] });
  const user = await api.db.selectFrom('users').select('id').where('email', '=', s.email).executeTakeFirstOrThrow();
  await api.db
    .insertInto('notifications')
    .values([
      { user_id: user.id, type: 'reminder', title: 'Log your spending', body: 'Anything today?', data: JSON.stringify({ reminder: 1 }) },
      { user_id: user.id, type: 'system', title: 'Welcome', body: 'Read on the web', data: JSON.stringify({}), read_at: new Date() },
    ])
    .execute();
}

const steps = mobileSteps({ codeFor, idToken: (_driver, email) => provider.idToken(email), serverMade });
const replayed = await replay(t, api, 'mobile', steps, state);
coverageReport(t, 'mobile', replayed);
