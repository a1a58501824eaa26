// A SimpleFIN bridge on 127.0.0.1 written from simplefin.org/protocol.html: a setup token is
// the base64 of a claim URL; POST to it once answers the access URL (basic-auth credentials),
// again answers 403; GET {access}/accounts answers {errors, accounts} filtered by start-date,
// end-date, pending and account. Tests set its accounts and lines, and make it answer 402/403
// or hang.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLine {
  id: string;
  posted: number;
  amount: string;
  description: string;
  payee?: string;
  memo?: string;
  pending?: boolean;
  transacted_at?: number;
}

export interface FakeAccount {
  id: string;
  name: string;
  currency: string;
  balance: string;
  'available-balance'?: string;
  'balance-date': number;
  org: { name: string; domain?: string; 'sfin-url': string };
  transactions: FakeLine[];
}

export interface FakeBridge {
  url: string;
  /** A fresh setup token (one claim each). */
  setupToken(): string;
  accounts: FakeAccount[];
  errors: string[];
  /** Answer every accounts request with this status instead (402, 403), or hang when 'hang'. */
  failWith: number | 'hang' | null;
  /** The queries of the accounts requests seen, in order. */
  requests: URLSearchParams[];
  close(): Promise<void>;
}

const USER = 'demo';
const PASSWORD = 'secret-password';

export async function startSimpleFinBridge(): Promise<FakeBridge> {
  const claims = new Map<string, boolean>();
  const hanging = new Set<ServerResponse>();
  let next = 0;
  const bridge: FakeBridge = {
    url: '',
    setupToken() {
      const id = `claim-${++next}`;
      claims.set(id, false);
      return Buffer.from(`${bridge.url}/claim/${id}`).toString('base64');
    },
    accounts: [],
    errors: [],
    failWith: null,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', bridge.url);
    const claim = /^\/claim\/([\w-]+)$/.exec(url.pathname);
    if (claim && req.method === 'POST') {
      if (!claims.has(claim[1])) return void res.writeHead(404).end();
      if (claims.get(claim[1])) return void res.writeHead(403).end('Forbidden');
      claims.set(claim[1], true);
      const access = new URL(`${bridge.url}/simplefin`);
      access.username = USER;
      access.password = PASSWORD;
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(access.href);
    }
    if (url.pathname === '/simplefin/accounts' && req.method === 'GET') {
      if (req.headers.authorization !== `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`) return void res.writeHead(403).end();
      bridge.requests.push(url.searchParams);
      if (bridge.failWith === 'hang') return void hanging.add(res);
      if (bridge.failWith !== null) return void res.writeHead(bridge.failWith).end();
      const start = Number(url.searchParams.get('start-date') ?? 0);
      const end = Number(url.searchParams.get('end-date') ?? Infinity);
      const pending = url.searchParams.get('pending') === '1';
      const only = url.searchParams.getAll('account');
      const balancesOnly = url.searchParams.get('balances-only') === '1';
      const accounts = bridge.accounts
        .filter((a) => only.length === 0 || only.includes(a.id))
        .map((a) => ({
          ...a,
          transactions: balancesOnly ? [] : a.transactions.filter((t) => (t.pending ? pending : t.posted >= start && t.posted < end)),
        }));
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: bridge.errors, accounts }));
    }
    res.writeHead(404).end();
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bridge.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return bridge;
}

/** An account of the fake bridge with these lines. */
export function fakeAccount(id: string, lines: FakeLine[], balance = '0.00'): FakeAccount {
  return { id, name: `Checking ${id}`, currency: 'USD', balance, 'balance-date': Math.floor(Date.now() / 1000), org: { name: 'First Fake Bank', domain: 'fake.example', 'sfin-url': 'https://bridge.example/simplefin' }, transactions: lines };
}
