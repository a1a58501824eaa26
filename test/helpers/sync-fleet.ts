// The sync fleet: 10 offline phones of 3 users edit, create and delete offline, replay their
// outboxes out of order and with duplicates, and pull with synced_since in pages of 20 exactly
// as the reference mobile app does (watermark = newest last_synced_at of the rows), while the
// other devices write. Seeded and bounded. Every device must end holding exactly the server's
// rows, every create must exist once, and balances must equal their ledgers. Each phone
// revalidates its pulls as an HTTP cache does (If-None-Match with the page's ETag, the kept
// page on a 304): a tag must never hide a change.
// The transport is the caller's: one app by inject (test/sync-fleet.test.ts), or several
// service processes over HTTP, each request to the next (test/process-fleet.test.ts).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Test } from 'tap';
import type { Database } from '../../db/schema.js';
import type { TestApp } from './harness.js';
import { walletsOffLedger } from './ledger-invariant.js';

const SEED = 20261125;
const ROUNDS = 5;
const DEVICES_PER_USER = [4, 3, 3];

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: T[]) => items[int(items.length)]!;
  const shuffle = <T>(items: T[]) => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return { next, int, pick, shuffle };
}

type Kind = 'parties' | 'groups' | 'transactions';
const KINDS: Kind[] = ['parties', 'groups', 'transactions'];
const PULLED = [...KINDS, 'wallets'] as const;
type Pulled = (typeof PULLED)[number];

interface Row {
  id: number;
  name?: string;
  amount?: number;
  description?: string | null;
  balance?: number;
  deleted_at: string | null;
  last_synced_at: string;
}

type Op =
  | { kind: 'create'; type: Kind; clientId: string; body: Record<string, unknown> }
  | { kind: 'update'; type: Kind; id: number; body: Record<string, unknown> }
  | { kind: 'delete'; type: Kind; id: number };

interface Device {
  name: string;
  token: string;
  uuid: string;
  /** Minutes this device's clock is off (sent as created_at/updated_at). */
  skewMinutes: number;
  walletId: number;
  watermarks: Partial<Record<Pulled, string>>;
  local: Record<Pulled, Map<number, Row>>;
  outbox: Op[];
  /** Its HTTP cache: the last tagged answer per URL. */
  cache: Map<string, { etag: string; body: any }>;
}

/** How the phones reach the service: requests and registration, answers checked against the spec. */
export type SyncTransport = Pick<TestApp, 'request' | 'newUser'>;

/** Runs the fleet through `api` and checks every device against the database `db` the service writes. */
export async function syncFleetConverges(t: Test, api: SyncTransport, db: Kysely<Database>): Promise<void> {
  const random = generator(SEED);
  const users: Array<{ id: number; token: string; walletId: number }> = [];
  const devices: Device[] = [];
  const issued = new Map<string, number>(); // client id -> user id
  for (const [u, count] of DEVICES_PER_USER.entries()) {
    const user = await api.newUser();
    await api.request('POST', '/api/v1/configurations', { token: user.token, body: { key: 'wallets-allow-negative-balance', type: 'boolean', value: true } });
    const wallet = await api.request('POST', '/api/v1/wallets', { token: user.token, body: { name: 'Shared', type: 'bank', currency: 'EUR', balance: 500 } });
    users.push({ id: user.user.id, token: user.token, walletId: wallet.body.data.id });
    for (let d = 0; d < count; d++) {
      // each phone logs in on its own: its own token
      const login = await api.request('POST', '/api/login', { body: { email: user.email, password: user.password } });
      devices.push({
        name: `user ${u} device ${d}`,
        token: login.body.data.token,
        uuid: randomUUID(),
        skewMinutes: [0, 120, -3 * 24 * 60, 7][d % 4]!,
        walletId: wallet.body.data.id,
        watermarks: {},
        local: { parties: new Map(), groups: new Map(), transactions: new Map(), wallets: new Map() },
        outbox: [],
        cache: new Map(),
      });
    }
  }
  const userOf = (device: Device) => users.find((u) => u.walletId === device.walletId)!;
  const clock = (device: Device) => new Date(Date.now() + device.skewMinutes * 60_000).toISOString();

  function writeOffline(device: Device, count: number) {
    for (let i = 0; i < count; i++) {
      const type = random.pick(KINDS);
      const known = [...device.local[type].values()];
      const roll = random.next();
      if (roll < 0.5 || known.length === 0) {
        const clientId = `${device.uuid}:${randomUUID()}`;
        issued.set(clientId, userOf(device).id);
        const body: Record<string, unknown> =
          type === 'transactions'
            ? { type: random.pick(['income', 'expense']), amount: (1 + random.int(9999)) / 100, wallet_id: device.walletId, description: `tx ${random.int(1e6)}`, created_at: clock(device) }
            : { name: `${type} ${random.int(1e6)}` };
        device.outbox.push({ kind: 'create', type, clientId, body });
      } else if (roll < 0.85) {
        const row = random.pick(known);
        const body: Record<string, unknown> =
          type === 'transactions'
            ? { amount: (1 + random.int(9999)) / 100, description: `edited ${random.int(1e6)}`, updated_at: clock(device) }
            : { name: `edited ${random.int(1e6)}` };
        device.outbox.push({ kind: 'update', type, id: row.id, body });
      } else {
        device.outbox.push({ kind: 'delete', type, id: random.pick(known).id });
      }
    }
  }

  async function upload(device: Device) {
    // out of order, and some requests sent twice (a retry after a lost answer)
    const replayed = device.outbox.filter(() => random.next() < 0.25);
    const queue = random.shuffle([...device.outbox, ...replayed]);
    device.outbox = [];
    for (const op of queue) {
      if (op.kind === 'create') {
        const url = op.type === 'transactions' ? '/api/v1/transactions' : `/api/v1/${op.type}`;
        const res = await api.request('POST', url, { token: device.token, body: { ...op.body, client_id: op.clientId } });
        if (res.status !== 201 && res.status !== 200) throw new Error(`${device.name} create: ${res.status} ${JSON.stringify(res.body)}`);
        device.local[op.type].set(res.body.data.id, res.body.data);
      } else {
        const row = device.local[op.type].get(op.id);
        const suffix = op.type === 'transactions' && row ? `?type=${(row as { type?: string }).type}` : '';
        const res =
          op.kind === 'update'
            ? await api.request('PUT', `/api/v1/${op.type}/${op.id}${suffix}`, { token: device.token, body: op.body })
            : await api.request('DELETE', `/api/v1/${op.type}/${op.id}`, { token: device.token });
        // another device deleted it first, or this phone's clock puts the edit before the
        // record's creation (refused, 422 on updated_at): the mobile app drops the change
        if (res.status === 404 || (res.status === 422 && res.body.errors?.updated_at)) continue;
        if (res.status !== 200) throw new Error(`${device.name} ${op.kind}: ${res.status} ${JSON.stringify(res.body)}`);
        if (op.kind === 'update') device.local[op.type].set(op.id, res.body.data);
      }
    }
  }

  async function pull(device: Device) {
    for (const type of PULLED) {
      const since = device.watermarks[type] ?? '2000-01-01T00:00:00Z';
      const rows: Row[] = [];
      let page = 1;
      let lastPage = 1;
      do {
        const body = await revalidated(device, `/api/v1/${type}?synced_since=${encodeURIComponent(since)}&limit=20&page=${page}`);
        rows.push(...body.data.data);
        lastPage = body.data.last_page;
        page++;
      } while (page <= lastPage);
      for (const row of rows) {
        if (row.deleted_at) device.local[type].delete(row.id);
        else device.local[type].set(row.id, row);
      }
      const newest = rows.map((r) => r.last_synced_at).sort().at(-1);
      if (newest) device.watermarks[type] = newest;
    }
  }

  let notModified = 0;
  /** A GET through the device's cache: its kept answer when the server says 304. */
  async function revalidated(device: Device, url: string) {
    const kept = device.cache.get(url);
    const res = await api.request('GET', url, { token: device.token, headers: kept ? { 'if-none-match': kept.etag } : {} });
    if (res.status === 304 && kept) {
      notModified++;
      return kept.body;
    }
    if (res.status !== 200) throw new Error(`${device.name} GET ${url}: ${res.status}`);
    if (res.headers.etag) device.cache.set(url, { etag: String(res.headers.etag), body: res.body });
    return res.body;
  }

  let writes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const device of devices) writeOffline(device, 1 + random.int(4));
    writes += devices.reduce((n, d) => n + d.outbox.length, 0);
    const bulk =
      round === 2
        ? // an import lands meanwhile: many rows stamped within one statement
          db
            .insertInto('parties')
            .values(Array.from({ length: 60 }, (_, i) => ({ user_id: users[0]!.id, name: `Imported ${i}` })))
            .execute()
        : Promise.resolve();
    await Promise.all([bulk, ...devices.map(async (device) => (random.next() < 0.8 ? (await upload(device), await pull(device)) : pull(device)))]);
  }
  // the phones come online one last time with their outboxes, then once more to settle
  await Promise.all(devices.map((device) => upload(device)));
  for (const device of devices) await pull(device);
  // and again, nothing having changed: every page can be a 304
  for (const device of devices) await pull(device);
  t.ok(notModified > 0, `pulls were revalidated (${notModified} answered 304)`);

  for (const device of devices) {
    const user = userOf(device);
    const server = {
      parties: await db.selectFrom('parties').select(['id', 'name']).where('user_id', '=', user.id).where('deleted_at', 'is', null).execute(),
      groups: await db.selectFrom('groups').select(['id', 'name']).where('user_id', '=', user.id).where('deleted_at', 'is', null).execute(),
      transactions: await db
        .selectFrom('transactions')
        .select(['id', 'amount', 'description'])
        .where('user_id', '=', user.id)
        .where('deleted_at', 'is', null)
        .execute(),
      wallets: await db.selectFrom('wallets').select(['id', 'balance']).where('user_id', '=', user.id).where('deleted_at', 'is', null).execute(),
    };
    const view = (type: Pulled, row: Row) =>
      type === 'transactions' ? [row.id, Number(row.amount), row.description] : type === 'wallets' ? [row.id, Number(row.balance)] : [row.id, row.name];
    const sorted = (rows: unknown[][]) => rows.sort((a, b) => Number(a[0]) - Number(b[0]));
    for (const type of PULLED) {
      const mine = sorted([...device.local[type].values()].map((row) => view(type, row)));
      const theirs = sorted(
        (server[type] as Array<Record<string, unknown>>).map((row) =>
          type === 'transactions'
            ? [Number(row.id), Number(row.amount), row.description]
            : type === 'wallets'
              ? [Number(row.id), Number(row.balance)]
              : [Number(row.id), row.name],
        ),
      );
      t.same(mine, theirs, `${device.name}: ${type} equal to the server`);
    }
  }

  for (const user of users) t.same(await walletsOffLedger(db, user.id), [], 'balances equal their ledgers');
  const created = await Promise.all(
    KINDS.map((table) =>
      db
        .selectFrom(table)
        .select(['user_id', 'client_generated_id'])
        .where('client_generated_id', 'is not', null)
        .where('user_id', 'in', users.map((u) => u.id))
        .execute(),
    ),
  );
  const recordUuids = new Set([...issued.keys()].map((id) => id.split(':')[1]));
  const stored = created.flat().filter((row) => recordUuids.has(row.client_generated_id!));
  t.equal(stored.length, recordUuids.size, `each of ${recordUuids.size} offline creates exists exactly once (${writes} outbox entries sent)`);
}
