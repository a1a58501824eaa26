// The real service as a child process (server/main.ts run by tsx), for tests that crash it:
// a free loopback port, its own data folder, and either a PostgreSQL database the caller made
// or the embedded database in that folder. `kill()` is SIGKILL: no drain, no cleanup, the
// process just stops, as after a power cut or the OOM killer.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type DatabaseHandle } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import type { Database } from '../../db/schema.js';
import type { Contract } from '../../server/contract.js';
import { newUserThrough, type RequestOptions, type TestApp, type TestResponse } from './harness.js';
import { createFromTemplate, dropDatabase, embeddedTemplate } from './migrated-database.js';
import { nodeArgsFor, PROJECT_ROOT } from './project.js';
import { TEST_ENV } from './test-environment.js';

const SERVICE_APP_KEY = 'crash-test-key-0123456789abcdef012345';

export interface ServiceProcess {
  url: string;
  /** Everything the process wrote (stdout and stderr), for a failing test's message. */
  output(): string;
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful drain), then waits until the process is gone. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the service with `env` on top of a quiet test configuration; resolves once it answers. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, nodeArgsFor('server/main.ts'), {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...TEST_ENV,
      APP_KEY: SERVICE_APP_KEY,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH: '0',
      RATE_LIMIT_API: '0',
      // no wait between SIGTERM and the drain: nothing balances these processes
      SHUTDOWN_DELAY: '0',
      // each operation's validators on its first request: ~0.9 s less per start (what the
      // in-process tests do); test/unit/request-validation.test.ts loads the contract at start
      COMPILE_VALIDATORS: 'on-first-use',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));

  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 200) {
    if (gone) throw new Error(`the service exited while starting:\n${output}`);
    if (waited > 90_000) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer within 90 s:\n${output}`);
    }
    const answered = await fetch(`${url}/api/info`).then((r) => r.ok, () => false);
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const end = async (signal: NodeJS.Signals) => {
    if (!gone) child.kill(signal);
    await exited;
  };
  return { url, output: () => output, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}

/**
 * The database the service processes of one test share: a throwaway PostgreSQL database when
 * DATABASE_URL is set, else the embedded database in the data folder. `inspect` runs queries
 * against it between two lives of the service (on the embedded database it opens the folder
 * itself, so no service may be running then).
 */
export interface ServiceDatabase {
  env: Record<string, string>;
  inspect<T>(query: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Like inspect, with the database migrated and the app built in this process (requests by inject). */
  inProcess<T>(contract: Contract, use: (app: FastifyInstance) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

export async function serviceDatabase(): Promise<ServiceDatabase> {
  const dataDir = path.join(tmpdir(), `finance-crash-${randomUUID()}`);
  const serverUrl = process.env.DATABASE_URL;
  let open: () => Promise<DatabaseHandle>;
  let drop: () => Promise<void>;
  if (!serverUrl) {
    // The folder starts as a migrated copy (test/helpers/migrated-database.ts), as the
    // PostgreSQL database does; the service's own migration at start then finds nothing to do.
    await (await openDatabase({ dataDir, startFrom: await embeddedTemplate() })).close();
    open = () => openDatabase({ dataDir });
    drop = () => rm(dataDir, { recursive: true, force: true });
  } else {
    const name = `finance_crash_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await createFromTemplate(serverUrl, name);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const shared = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    open = async () => ({ ...shared, close: async () => {} });
    drop = async () => {
      await shared.close();
      await dropDatabase(serverUrl, name);
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  const env: Record<string, string> = serverUrl ? { DATA_DIR: dataDir, DATABASE_URL: (await open()).connectionString } : { DATA_DIR: dataDir };
  const using = async <T>(use: (handle: DatabaseHandle) => Promise<T>): Promise<T> => {
    const handle = await open();
    try {
      return await use(handle);
    } finally {
      await handle.close();
    }
  };
  return {
    env,
    inspect: (query) => using((handle) => query(handle.db)),
    inProcess: (contract, use) =>
      using(async (database) => {
        await migrateToLatest(database.db);
        const config = { ...loadConfig({ ...TEST_ENV, ...env, APP_KEY: SERVICE_APP_KEY }), rateLimitAuth: 0, rateLimitApi: 0 };
        const app = await buildApp({ config, database, contract, logger: false });
        try {
          return await use(app);
        } finally {
          await app.close();
        }
      }),
    drop,
  };
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  form?: { payload: Buffer; headers: Record<string, string> };
}

/** Calls an operation of a running service over HTTP; its answer is checked against the spec like every test response. */
export function serviceClient(service: () => ServiceProcess, contract: Contract) {
  return async function call(operationId: string, method: string, route: string, options: CallOptions = {}) {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      Object.assign(headers, options.form.headers);
      body = new Uint8Array(options.form.payload);
    }
    const response = await fetch(`${service().url}/api${route}`, { method, headers, body });
    const json = await response.json();
    const violations = contract.checkResponse(operationId, response.status, json);
    if (violations.length > 0) throw new Error(`${operationId} ${response.status} breaks the contract: ${violations.join('; ')}`);
    return { status: response.status, body: json };
  };
}

/**
 * The harness's request and newUser over running processes, each request sent to the next of
 * `members()` in turn, as a round-robin balancer does; every JSON answer of an operation is
 * checked against the spec.
 */
export function roundRobin(members: () => ServiceProcess[], contract: Contract): Pick<TestApp, 'request' | 'newUser'> {
  let turn = 0;
  const request = async <T = any>(method: string, url: string, options: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined;
    if (options.payload !== undefined) {
      if (typeof options.payload !== 'string' && !Buffer.isBuffer(options.payload)) throw new Error('roundRobin sends strings and buffers, not streams');
      body = typeof options.payload === 'string' ? options.payload : new Uint8Array(options.payload);
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const all = members();
    const member = all[turn++ % all.length]!;
    const response = await fetch(`${member.url}${url}`, { method, headers, body });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
    const answer = isJson ? JSON.parse(text) : text;
    const operationId = contract.operationIdAt(method, new URL(url, member.url).pathname.replace(/^\/api/, ''));
    const violations = operationId && isJson ? contract.checkResponse(operationId, response.status, answer) : [];
    if (violations.length > 0) throw new Error(`Response of ${method} ${url} from ${member.url} breaks the contract:\n${violations.join('\n')}\n${text}`);
    return { status: response.status, headers: Object.fromEntries(response.headers), body: answer as T };
  };
  return { request, newUser: newUserThrough(request) };
}

/** Polls `probe` every 100 ms until it returns a value other than undefined. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, service?: ServiceProcess, seconds = 150): Promise<T> {
  for (let waited = 0; waited < seconds * 1000; waited += 100) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}:\n${service?.output().slice(-4000) ?? ''}`);
}

/** True when every live wallet of the user has the balance its live transactions add up to. */
export async function ledgerHolds(db: Kysely<Database>, userId: number): Promise<boolean> {
  const { rows } = await sql<{ off: number }>`
    select count(*)::int as off from wallets w where w.user_id = ${userId} and w.deleted_at is null and w.balance <> w.opening_balance
      + coalesce((select sum(case when t.type = 'income' then t.amount else -t.amount end) from transactions t where t.wallet_id = w.id and t.deleted_at is null), 0)`.execute(db);
  return rows[0].off === 0;
}
