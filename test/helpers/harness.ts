// Test harness: one app per test file on its own throwaway database (embedded in memory by
// default, a fresh PostgreSQL database when DATABASE_URL is set). Every response of an
// operation is checked against the spec (the contract test): a mismatch throws in the test
// that made the request. Called operations are recorded for the coverage report.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AppOptions, ContractReport } from '../../server/app.js';
import { loadConfig, type Config } from '../../server/config.js';
import type { Contract } from '../../server/contract.js';
import { throwawayDatabase, type ThrowawayDatabase } from './migrated-database.js';
import { inProject } from './project.js';
import { TEST_ENV } from './test-environment.js';

/** Where each process records the operations it called: the runner gives each run its own. */
export const COVERAGE_DIR = process.env.TEST_COVERAGE_DIR ?? inProject('.tap', 'operation-coverage');

// The app and the contract are loaded when the first app starts, after its database began to
// start: the embedded database starts on its own thread meanwhile (~1.3 s each, side by side).
let sharedContract: Promise<Contract> | undefined;
const contract = () => (sharedContract ??= import('../../server/contract.js').then(({ Contract }) => Contract.load(undefined, { compile: 'on-first-use' })));

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send `body` as this raw string/buffer (or stream, for bodies too large to hold) instead of JSON. */
  payload?: string | Buffer | NodeJS.ReadableStream;
}

export interface TestContext {
  teardown(fn: () => unknown): void;
}

export interface TestApp {
  app: FastifyInstance;
  db: Kysely<Database>;
  /** For components that connect on their own (the job queue). */
  connectionString: string;
  /** The database handle, for a second app on the same database (`startApp(t, { database })`). */
  database: ThrowawayDatabase;
  config: Config;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Registers and logs in a fresh user; returns its token and record. */
  newUser(overrides?: Record<string, unknown>): Promise<{ token: string; user: any; email: string; password: string }>;
  /** POSTs `body` as `token`'s user and returns the created record (`data`); throws with the answer unless 201. */
  created(token: string, url: string, body: unknown): Promise<any>;
}

export async function startApp(
  t: TestContext,
  overrides: Partial<Config> & {
    now?: () => Date;
    handlers?: AppOptions['handlers'];
    lifecycle?: AppOptions['lifecycle'];
    /** Another app's database (or one the test made), shared: the caller's to close. */
    database?: ThrowawayDatabase;
  } = {},
): Promise<TestApp> {
  const { now, handlers, lifecycle, database: shared, ...configOverrides } = overrides;
  const [database, { buildApp }, checked] = await Promise.all([shared ?? throwawayDatabase(), import('../../server/app.js'), contract()]);
  const config: Config = {
    ...loadConfig({ ...TEST_ENV, APP_KEY: 'test-key-0123456789abcdef0123456789', DATA_DIR: path.join('/tmp', `finance-test-${randomUUID()}`) }),
    rateLimitAuth: 0,
    rateLimitApi: 0,
    logLevel: 'silent',
    ...configOverrides,
  };
  const reports: ContractReport[] = [];
  const app = await buildApp({
    config,
    database,
    contract: checked,
    handlers,
    now,
    lifecycle,
    logger: false,
    onResponseChecked: (report) => reports.push(report),
  });
  await app.ready();
  t.teardown(async () => {
    await app.close();
    if (shared) return;
    await database.close();
    await database.dropDatabase?.();
  });

  const request = async <T>(method: string, url: string, options: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | Buffer | NodeJS.ReadableStream | undefined = options.payload;
    if (payload === undefined && options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    reports.length = 0;
    const response = await app.inject({ method: method as any, url, headers, payload });
    for (const report of reports) recordCoverage(report);
    const violations = reports.flatMap((r) => r.violations.map((v) => `${r.operationId} ${r.status}: ${v}`));
    if (violations.length > 0) {
      throw new Error(`Response of ${method} ${url} breaks the contract:\n${violations.join('\n')}\n${response.body}`);
    }
    const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return { status: response.statusCode, headers: response.headers, body: (isJson ? response.json() : response.body) as T };
  };

  const newUser = newUserThrough(request);
  const created = async (token: string, url: string, body: unknown) => {
    const res = await request<{ data: unknown }>('POST', url, { token, body });
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  return { app, db: database.db, connectionString: database.connectionString, database, config, request, newUser, created };
}

/** Registers a fresh user through `request` (any transport); returns its token, record and credentials. */
export function newUserThrough(request: TestApp['request']): TestApp['newUser'] {
  return async (extra: Record<string, unknown> = {}) => {
    const email = `user-${randomUUID()}@example.test`;
    const password = 'correct horse battery';
    const registered = await request<any>('POST', '/api/register', {
      body: { email, password, first_name: 'Test', last_name: 'User', ...extra },
    });
    if (registered.status !== 201) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
    return { token: registered.body.data.token as string, user: registered.body.data.user, email, password };
  };
}

function recordCoverage(report: ContractReport): void {
  mkdirSync(COVERAGE_DIR, { recursive: true });
  appendFileSync(path.join(COVERAGE_DIR, `${process.pid}.txt`), `${report.operationId} ${report.status}\n`);
}
