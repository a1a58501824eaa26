// The mobile app's calls (reference/clients.md §1.2, §3, §4.2, §5), in the order its flows
// make them: sign-up and login, the post-login loads, the sync engine's upload of the outbox,
// adoption of server rows without client ids, full and `synced_since` downloads of every
// synced resource, the remaining calls of §4.2. Bodies are the app's own: client ids on every
// create and update, its date helper's minutes-as-milliseconds fraction, multipart
// transactions with `categories[]` and `files[]`, null keys dropped from JSON bodies.
import assert from 'node:assert/strict';
import type { TestResponse } from '../helpers/harness.js';
import { PNG } from '../helpers/transaction-fixtures.js';
import { assertStoredTime, clientIdOf, dartIso, mobileDate, type ReadBack, type State, type Step } from './driver.js';
import {
  envelope,
  mobileCategory,
  mobileConfig,
  mobileGroup,
  mobileNotification,
  mobilePage,
  mobileParty,
  mobileTransaction,
  mobileUser,
  mobileWallet,
} from './entities.js';
import { oneOf, type Shape } from './shapes.js';

/** The synced resources in the sync engine's handler order (§3.4), with their item shapes. */
const SYNCED: Array<{ list: string; item: (single?: boolean) => Shape }> = [
  { list: 'categories', item: mobileCategory },
  { list: 'configurations', item: mobileConfig },
  { list: 'wallets', item: mobileWallet },
  { list: 'parties', item: mobileParty },
  { list: 'groups', item: mobileGroup },
  { list: 'notifications', item: () => mobileNotification },
  { list: 'transactions', item: mobileTransaction },
];

const authReads = envelope({ token: 'string', user: mobileUser });
const acknowledged: Shape = { success: 'bool', message: 'string' };
const PASSWORD = 'correct horse battery';

/** `data.client_generated_id` is the client id this step sent. */
const echoes = (key: string) => (res: TestResponse, s: State) => assert.equal(res.body.data.client_generated_id, s.ids[key], 'client id echoed');

/** The app's date (its helper's format) of a record made offline `days` ago, remembered as `s.createdAt[key]`. */
const madeOffline = (s: State, key: string, days = 3) => (s.createdAt[key] = mobileDate(new Date(Date.now() - days * 86_400_000)));

/** The create echoed the client id and stored the app's created_at, read back at `path`. */
const createdAsSent = (key: string, path: (res: TestResponse) => string) => async (res: TestResponse, s: State, read: ReadBack) => {
  echoes(key)(res, s);
  assertStoredTime((await read(path(res))).created_at, s.createdAt[key], `the ${key}'s created_at`);
};
const byId = (list: string) => (res: TestResponse) => `${list}/${res.body.data.id}`;

/** Rows of every page of a list, kept per list for later steps. */
function collect(list: string) {
  return (res: TestResponse, s: State) => {
    s.rows[list] = [...(s.page === 1 ? [] : (s.rows[list] ?? [])), ...res.body.data.data];
  };
}
const morePages = (res: TestResponse) => res.body.data.current_page < res.body.data.last_page;

/** The newest top-level `last_synced_at` of the rows: the app's watermark (§3.3 step 3.4.3). */
const watermark = (rows: Array<{ last_synced_at: string }>) => new Date(Math.max(...rows.map((r) => Date.parse(r.last_synced_at))));

/** The app's sync-time format per list: Dart's default ISO for transactions, its helper elsewhere (§2.3). */
const sinceParam = (list: string, at: Date) => encodeURIComponent(list === 'transactions' ? dartIso(at) : mobileDate(at));

export interface MobileSetup {
  /** The newest 6-digit code e-mailed to an address (the verification and reset mails). */
  codeFor(address: string): Promise<string>;
  /** A Firebase ID token for the identity provider fake, for `driver`. */
  idToken(driver: 'google' | 'apple', email: string): Promise<string>;
  /** Rows of every synced type made without a client id (by the web, by the server), enough transactions to fill two pages. */
  serverMade(state: State): Promise<void>;
}

export function mobileSteps({ codeFor, idToken, serverMade }: MobileSetup): Step[] {
  const now = () => new Date();
  const single = (list: string) => SYNCED.find((e) => e.list === list)!.item(true);

  return [
    // ---------------------------------------------------------------- sign-up and login (§4.2 Auth)
    {
      call: 'POST /send-verification-code',
      does: 'asks for a registration code by e-mail',
      url: '/send-verification-code',
      anonymous: true,
      json: (s) => ({ contact: s.email, type: 'email', purpose: 'registration' }),
      reads: acknowledged,
    },
    {
      call: 'POST /verify-code',
      does: 'sends the code back as a string',
      url: '/verify-code',
      anonymous: true,
      prepare: async (s) => ({ contact: s.email, type: 'email', code: await codeFor(s.email), purpose: 'registration' }),
      reads: acknowledged,
    },
    {
      call: 'POST /register',
      does: 'registers with the optional fields',
      url: '/register',
      anonymous: true,
      json: (s) => ({ email: s.email, password: PASSWORD, first_name: 'Ada', last_name: 'Lovelace', username: `ada${s.tag}`, phone: s.phone }),
      status: 201,
      reads: authReads,
      save: (res, s) => void (s.token = res.body.data.token),
    },
    {
      call: 'POST /login',
      does: 'logs in: token and user in data',
      url: '/login',
      anonymous: true,
      json: (s) => ({ email: s.email, password: PASSWORD }),
      reads: authReads,
      save: (res, s) => void (s.token = res.body.data.token),
    },
    {
      call: 'POST /auth/login',
      does: 'logs in by phone: token and user at the top level',
      url: '/auth/login',
      anonymous: true,
      json: (s) => ({ phone: s.phone, password: PASSWORD }),
      reads: { token: 'string', user: mobileUser },
      check: (res, s) => assert.equal(res.body.user.email, s.email),
    },

    // ---------------------------------------------------------------- after login (§1.2): must all work
    {
      call: 'GET /configurations',
      does: 'loads the settings, page 1 only',
      url: 'configurations',
      reads: mobilePage(mobileConfig()),
      save: collect('configurations'),
    },
    ...(['groups', 'wallets'] as const).map(
      (list): Step => ({
        call: `GET /${list}`,
        does: `loads every page of ${list} before counting as logged in`,
        url: (s) => `${list}?page=${s.page}`,
        reads: mobilePage(SYNCED.find((e) => e.list === list)!.item()),
        save: collect(list),
        repeatWhile: morePages,
        check: (res, s) => {
          if (morePages(res)) return;
          // default-wallet / default-group must name an existing client_generated_id, or the app deletes them (§1.2 step 4).
          const rows = [...(s.page === 1 ? [] : s.rows[list]), ...res.body.data.data];
          const key = list === 'groups' ? 'default-group' : 'default-wallet';
          const config = s.rows.configurations.find((c: { key: string }) => c.key === key);
          assert.ok(config && rows.some((r: { client_generated_id: string }) => r.client_generated_id === config.value), `${key} names a ${list} row`);
        },
      }),
    ),

    // ---------------------------------------------------------------- upload the outbox (§3.3 step 1), depth 0 first
    {
      call: 'POST /categories',
      does: 'uploads a new category with its client id',
      url: 'categories',
      json: (s) => ({ type: 'expense', name: 'Coffee shops', client_id: (s.ids.category = clientIdOf(s.device)), description: 'Flat whites', icon: '☕', icon_type: 'emoji', created_at: madeOffline(s, 'category') }),
      status: 201,
      reads: envelope(mobileCategory(true)),
      check: createdAsSent('category', byId('categories')),
      save: (res, s) => void (s.category = res.body.data),
    },
    {
      call: 'POST /configurations',
      does: 'uploads settings with raw JSON values (bool and string)',
      url: 'configurations',
      json: (s) => ({ key: 'onboarding-complete', type: 'bool', value: true, client_id: (s.ids.config = clientIdOf(s.device)), created_at: madeOffline(s, 'config') }),
      status: 201,
      reads: envelope(mobileConfig(true)),
      check: async (res, s, read) => {
        await createdAsSent('config', () => 'configurations/onboarding-complete')(res, s, read);
        assert.equal(res.body.data.value, true, 'a bool stays a bool');
      },
    },
    {
      call: 'POST /wallets',
      does: 'uploads a new wallet',
      url: 'wallets',
      json: (s) => ({ client_id: (s.ids.wallet = clientIdOf(s.device)), type: 'mobile', name: 'MoMo', description: 'Phone money', balance: 250.5, currency: 'EUR', created_at: madeOffline(s, 'wallet'), icon: 'device-phone-mobile', icon_type: 'icon' }),
      status: 201,
      reads: envelope(mobileWallet(true)),
      check: createdAsSent('wallet', byId('wallets')),
      save: (res, s) => void (s.wallet = res.body.data),
    },
    {
      call: 'POST /wallets',
      does: 'retries the same create after a timeout: the existing wallet, not a second one',
      url: 'wallets',
      json: (s) => ({ client_id: s.ids.wallet, type: 'mobile', name: 'MoMo', description: 'Phone money', balance: 250.5, currency: 'EUR', created_at: s.createdAt.wallet }),
      status: [200, 201],
      reads: envelope(mobileWallet(true)),
      check: (res, s) => assert.equal(res.body.data.id, s.wallet.id),
    },
    {
      call: 'POST /parties',
      does: 'uploads a new party with its type',
      url: 'parties',
      json: (s) => ({ name: 'Corner café', client_id: (s.ids.party = clientIdOf(s.device)), description: 'Round the corner', icon: '🏪', icon_type: 'emoji', created_at: madeOffline(s, 'party'), type: 'business' }),
      status: 201,
      reads: envelope(mobileParty(true)),
      check: createdAsSent('party', byId('parties')),
      save: (res, s) => void (s.party = res.body.data),
    },
    {
      call: 'POST /groups',
      does: 'uploads a new group (created_at is local time with Z appended)',
      url: 'groups',
      json: (s) => ({ name: 'Holidays', client_id: (s.ids.group = clientIdOf(s.device)), description: 'Trips', icon: '🏖️', icon_type: 'emoji', created_at: (s.createdAt.group = mobileDate(new Date(Date.now() + 2 * 3_600_000))) }),
      status: 201,
      reads: envelope(mobileGroup(true)),
      check: createdAsSent('group', byId('groups')),
      save: (res, s) => void (s.group = res.body.data),
    },
    {
      call: 'POST /transactions',
      does: 'uploads a transaction as multipart: text parts, categories[], files[], extra keys',
      url: 'transactions',
      form: (s) => {
        // made offline two days ago for a purchase the user dated five days ago
        const made = madeOffline(s, 'transaction', 2);
        s.transactionDate = mobileDate(new Date(Date.now() - 5 * 86_400_000));
        s.ids.transaction = clientIdOf(s.device);
        return {
          fields: [
            ['client_id', s.ids.transaction],
            ['client_generated_id', s.ids.transaction],
            ['rev', '1'],
            ['created_at', made],
            ['updated_at', made],
            ['datetime', s.transactionDate],
            ['last_synced_at', String(Date.now())],
            ['amount', '12.0'],
            ['type', 'expense'],
            ['description', 'Two flat whites'],
            ['wallet_id', String(s.wallet.id)],
            ['party_id', String(s.party.id)],
            ['group_id', String(s.group.id)],
            ['categories[]', String(s.category.id)],
            ['walletClientId', s.ids.wallet],
            ['partyClientId', s.ids.party],
            ['groupClientId', s.ids.group],
          ],
          files: [{ field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: PNG }],
        };
      },
      status: 201,
      reads: envelope(mobileTransaction(true)),
      check: async (res, s, read) => {
        const tx = res.body.data;
        assert.equal(tx.client_generated_id, s.ids.transaction);
        const stored = await read(`transactions/${tx.id}`);
        assertStoredTime(stored.datetime, s.transactionDate, 'datetime', 's');
        assertStoredTime(stored.created_at, s.createdAt.transaction, 'created_at');
        assert.equal(tx.wallet.client_generated_id, s.ids.wallet, 'nested wallet keyed by its client id');
        assert.equal(tx.party.client_generated_id, s.ids.party);
        assert.equal(tx.group.client_generated_id, s.ids.group);
        assert.deepEqual(tx.categories.map((c: { id: number }) => c.id), [s.category.id]);
        assert.equal(Number(tx.amount), 12);
        assert.equal(tx.files.length, 1);
      },
      save: (res, s) => void (s.transaction = res.body.data),
    },
    {
      call: 'POST /transactions',
      does: 'retries the multipart create: the same transaction',
      url: 'transactions',
      form: (s) => ({ fields: [['client_id', s.ids.transaction], ['amount', '12.0'], ['type', 'expense'], ['wallet_id', String(s.wallet.id)]] }),
      status: [200, 201],
      reads: envelope(mobileTransaction(true)),
      check: (res, s) => assert.equal(res.body.data.id, s.transaction.id),
    },
    {
      call: 'PUT /transactions/{}',
      does: 'updates it as JSON with the same keys (numbers, categories array)',
      url: (s) => `transactions/${s.transaction.id}`,
      json: (s) => ({
        client_id: s.ids.transaction,
        client_generated_id: s.ids.transaction,
        rev: '1',
        updated_at: mobileDate(now()),
        datetime: (s.transactionDate = mobileDate(new Date(Date.now() - 4 * 86_400_000))),
        last_synced_at: Date.now(),
        amount: 15,
        type: 'expense',
        description: 'Three flat whites',
        wallet_id: s.wallet.id,
        party_id: s.party.id,
        group_id: s.group.id,
        categories: [s.category.id],
        walletClientId: s.ids.wallet,
      }),
      reads: envelope(mobileTransaction(true)),
      check: async (res, s, read) => {
        assert.equal(Number(res.body.data.amount), 15);
        assertStoredTime((await read(`transactions/${s.transaction.id}`)).datetime, s.transactionDate, 'the new datetime', 's');
      },
    },
    {
      call: 'POST /transactions/{}/files',
      does: 'attaches a photo as one files[] part; finds it in the full transaction by path',
      url: (s) => `transactions/${s.transaction.id}/files`,
      form: { fields: [], files: [{ field: 'files[]', filename: 'second.png', contentType: 'image/png', data: PNG }] },
      reads: envelope(mobileTransaction(true)),
      check: (res, s) => assert.equal(res.body.data.files.length, 2, JSON.stringify(res.body.data.files) + s.transaction.id),
      save: (res, s) => void (s.files = res.body.data.files),
    },
    {
      call: 'GET /files/{}',
      does: 'views an attachment: raw bytes, authenticated',
      url: (s) => `files/${s.files[0].id}`,
      check: (res) => {
        assert.ok(!String(res.headers['content-type']).startsWith('application/json'), 'not JSON');
        assert.ok(Buffer.from(res.body as string, 'latin1').subarray(0, 4).equals(PNG.subarray(0, 4)) || String(res.body).includes('PNG'), 'the PNG bytes');
      },
    },
    {
      call: 'DELETE /transactions/{}/files/{}',
      does: 'removes an attachment; reads the full transaction back',
      url: (s) => `transactions/${s.transaction.id}/files/${s.files[1].id}`,
      reads: envelope(mobileTransaction(true)),
      check: (res) => assert.equal(res.body.data.files.length, 1),
    },
    ...(
      [
        ['wallets', 'wallet', (s: State) => ({ type: 'bank', name: 'MoMo savings', balance: 250.5, currency: 'EUR', description: 'Renamed', icon: 'banknotes', icon_type: 'icon', client_id: s.ids.wallet })],
        ['categories', 'category', (s: State) => ({ type: 'expense', name: 'Cafés', client_id: s.ids.category, description: 'Renamed', icon: '☕', icon_type: 'emoji' })],
        ['parties', 'party', (s: State) => ({ name: 'Corner café', client_id: s.ids.party, description: 'Renamed', type: 'business' })],
        ['groups', 'group', (s: State) => ({ name: 'Holidays 2026', client_id: s.ids.group, description: 'Renamed' })],
      ] as const
    ).map(
      ([list, key, body]): Step => ({
        call: `PUT /${list}/{}`,
        does: `uploads an edit of the ${key} with its client id`,
        url: (s) => `${list}/${s[key].id}`,
        json: body,
        reads: envelope(single(list)),
        check: echoes(key),
      }),
    ),
    {
      call: 'PUT /configurations/{}',
      does: 'uploads a changed setting by key',
      url: 'configurations/onboarding-complete',
      json: (s) => ({ type: 'bool', value: false, client_id: s.ids.config }),
      reads: envelope(mobileConfig(true)),
      check: (res) => assert.equal(res.body.data.value, false),
    },

    // ---------------------------------------------------------------- adopt server rows without client ids (§3.3 step 2)
    ...SYNCED.flatMap(({ list, item }): Step[] => [
      {
        before: list === 'categories' ? serverMade : undefined,
        call: `GET /${list}`,
        does: `lists ${list} without a client id, every page${list === 'configurations' ? ' (page 1 only)' : ''}`,
        url: (s) => (list === 'configurations' ? `${list}?no_client_id=true` : `${list}?page=${s.page}&no_client_id=true`),
        reads: mobilePage(item()),
        save: collect(`orphan-${list}`),
        repeatWhile: list === 'configurations' ? undefined : morePages,
        check: async (res, s) => {
          for (const row of res.body.data.data) assert.equal(row.client_generated_id ?? null, null, 'only rows without a client id');
          if (list === 'transactions') assert.ok(res.body.data.last_page > 1 || s.page > 1, 'enough rows to page');
        },
      },
      list === 'notifications'
        ? {
            call: 'PUT /notifications/{}/read',
            does: 'a notification read in the app an hour ago is synced back with PUT …/read {read_at}',
            url: (s) => `notifications/${(s.notification = s.rows['orphan-notifications'].find((n: { read_at: string | null }) => !n.read_at)).id}/read`,
            json: (s) => ({ read_at: (s.readAt = mobileDate(new Date(Date.now() - 3_600_000))) }),
            reads: envelope(mobileNotification),
            check: async (_res, s, read) => assertStoredTime((await read(`notifications/${s.notification.id}`)).read_at, s.readAt, 'read_at', 's'),
          }
        : {
            call: `PUT /${list}/{}`,
            does: `adopts each ${list} row without a client id with a PUT of only client_id`,
            url: (s) => {
              const row = s.rows[`orphan-${list}`][s.page - 1];
              return list === 'configurations' ? `${list}/${row.key}` : `${list}/${row.id}`;
            },
            json: (s) => ({ client_id: (s.ids[`adopted-${list}-${s.page}`] = clientIdOf(s.device)) }),
            reads: envelope(item(true)),
            check: (res, s) => assert.equal(res.body.data.client_generated_id, s.ids[`adopted-${list}-${s.page}`]),
            repeatWhile: (_res, s) => s.page < s.rows[`orphan-${list}`].length,
          },
    ]),

    // ---------------------------------------------------------------- full download of every type (§3.3 step 3, no watermark yet)
    ...SYNCED.map(
      ({ list, item }): Step => ({
        call: `GET /${list}`,
        does: `full sync of ${list}: every page, watermark from the rows' last_synced_at`,
        url: (s) => (list === 'configurations' ? list : `${list}?page=${s.page}`),
        reads: mobilePage(item()),
        save: (res, s) => {
          collect(list)(res, s);
          s.watermarks[list] = watermark(s.rows[list]);
        },
        repeatWhile: list === 'configurations' ? undefined : morePages,
        check: (res, s) => {
          if (s.page === 1) assert.ok(res.body.data.data.length > 0, 'not empty');
          if (list === 'notifications') return; // server-made only, adopted above
          if (list !== 'configurations' && res.body.data.current_page < res.body.data.last_page) return;
          const all = [...(s.page === 1 ? [] : s.rows[list]), ...res.body.data.data];
          assert.ok(all.every((r: { client_generated_id: string | null }) => r.client_generated_id), 'after adoption every row has a client id');
        },
      }),
    ),

    // ---------------------------------------------------------------- the single-record reads of the sync library
    ...SYNCED.map(
      ({ list, item }): Step => ({
        call: `GET /${list}/{}`,
        does: `reads one ${list} row by its numeric id`,
        url: (s) => `${list}/${s.rows[list][0].id}`,
        reads: envelope(item(true)),
        check: (res, s) => assert.equal(res.body.data.id, s.rows[list][0].id),
      }),
    ),

    // ---------------------------------------------------------------- deletes (§3.2), then the synced_since download brings tombstones
    {
      call: 'DELETE /transactions/{}',
      does: 'deletes the transaction',
      url: (s) => `transactions/${s.transaction.id}`,
      reads: acknowledged,
    },
    ...(
      [
        ['parties', 'party'],
        ['groups', 'group'],
        ['categories', 'category'],
        ['wallets', 'wallet'],
      ] as const
    ).map(
      ([list, key]): Step => ({
        call: `DELETE /${list}/{}`,
        does: `deletes the ${key}`,
        url: (s) => `${list}/${s[key].id}`,
        reads: acknowledged,
      }),
    ),
    {
      call: 'DELETE /configurations/{}',
      does: 'deletes a setting by key (as after login for a stale default)',
      url: 'configurations/onboarding-complete',
      reads: acknowledged,
    },
    ...SYNCED.map(
      ({ list, item }): Step => ({
        call: `GET /${list}`,
        does: `downloads ${list} changed since the watermark, in the app's own date format; deleted rows come back as tombstones`,
        url: (s) => (list === 'configurations' ? `${list}?synced_since=${sinceParam(list, s.watermarks[list])}` : `${list}?page=${s.page}&synced_since=${sinceParam(list, s.watermarks[list])}`),
        reads: mobilePage(item()),
        save: collect(`since-${list}`),
        repeatWhile: list === 'configurations' ? undefined : morePages,
        check: (res, s) => {
          const deleted: Record<string, string> = { transactions: 'transaction', parties: 'party', groups: 'group', categories: 'category', wallets: 'wallet' };
          const key = deleted[list];
          // Rows of the watermark's second come again (compared at whole seconds): the tombstone may be on a later page.
          if (list !== 'configurations' && morePages(res)) return;
          const rows = [...(s.page === 1 ? [] : s.rows[`since-${list}`]), ...res.body.data.data] as Array<{ id: number; key?: string; deleted_at: string | null }>;
          if (key) assert.ok(rows.some((r) => r.id === s[key].id && r.deleted_at), `the deleted ${key} is a tombstone`);
          if (list === 'configurations') assert.ok(rows.some((r) => r.key === 'onboarding-complete' && r.deleted_at), 'the deleted setting is a tombstone');
        },
      }),
    ),

    // ---------------------------------------------------------------- other calls of §4.2
    {
      call: 'GET /cloud/benefits',
      does: 'reads the cloud offer',
      url: 'cloud/benefits',
      reads: envelope({ overview: { title: 'string', description: 'string' }, benefits: [{ title: 'string', description: 'string' }], trial_days: 'int' }),
    },
    {
      call: 'GET /cloud/plans',
      does: 'reads the plans for a region',
      url: 'cloud/plans?region=CM',
      reads: envelope({
        overview: { title: 'string', description: 'string' },
        region: 'string',
        currency: 'string',
        trial_days: 'int',
        free_plan_enabled: 'bool',
        plans: [{ id: 'string', name: 'string', interval: 'string', features: ['string'], cta: { text: 'string', button_text: 'string' }, price: 'numeric', price_formatted: 'string' }],
      }),
    },
    ...(['google', 'apple'] as const).map(
      (driver): Step => ({
        call: `POST /oauth/firebase/${driver}/callback`,
        does: `signs in with a Firebase ID token from ${driver}`,
        url: `/oauth/firebase/${driver}/callback`,
        anonymous: true,
        prepare: async (s) => ({ token: await idToken(driver, s.email) }),
        reads: authReads,
      }),
    ),
    {
      call: 'POST /password/reset-code',
      does: 'asks for a reset code',
      url: '/password/reset-code',
      anonymous: true,
      json: (s) => ({ email: s.email }),
      reads: acknowledged,
    },
    {
      call: 'POST /password/reset',
      does: 'resets the password with the code as an int',
      url: '/password/reset',
      anonymous: true,
      prepare: async (s) => ({ email: s.email, code: Number(await codeFor(s.email)), new_password: 'an even longer passphrase', new_password_confirmation: 'an even longer passphrase' }),
      reads: acknowledged,
    },
  ];
}
