// Test harness: one app per test file on its own throwaway database (embedded in memory by
// default, a fresh PostgreSQL database when DATABASE_URL is set). Every response of an
// operation is checked against the spec (the contract test): a mismatch throws in the test
// that made the request. Called operations are recorded for the coverage report.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import type { Database } from '../../db/schema.js';
import { buildApp, type AppOptions, type ContractReport } from '../../server/app.js';
import { loadConfig, type Config } from '../../server/config.js';
import { Contract } from '../../server/contract.js';

export const COVERAGE_DIR = path.resolve(import.meta.dirname, '..', '..', '.tap', 'operation-coverage');

let sharedContract: Promise<Contract> | undefined;
const contract = () => (sharedContract ??= Contract.load());

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
  config: Config;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Registers and logs in a fresh user; returns its token and record. */
  newUser(overrides?: Record<string, unknown>): Promise<{ token: string; user: any; email: string; password: string }>;
}

export async function startApp(
  t: TestContext,
  overrides: Partial<Config> & { now?: () => Date; handlers?: AppOptions['handlers'] } = {},
): Promise<TestApp> {
  const database = await throwawayDatabase();
  await migrateToLatest(database.db);
  const { now, handlers, ...configOverrides } = overrides;
  const config: Config = {
    ...loadConfig({ APP_KEY: 'test-key-0123456789abcdef0123456789', DATA_DIR: path.join('/tmp', `finance-test-${randomUUID()}`) }),
    rateLimitAuth: 0,
    rateLimitApi: 0,
    logLevel: 'silent',
    ...configOverrides,
  };
  const reports: ContractReport[] = [];
  const app = await buildApp({
    config,
    database,
    contract: await contract(),
    handlers,
    now,
    logger: false,
    onResponseChecked: (report) => reports.push(report),
  });
  await app.ready();
  t.teardown(async () => {
    await app.close();
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

  const newUser = async (extra: Record<string, unknown> = {}) => {
    const email = `user-${randomUUID()}@example.test`;
    const password = 'correct horse battery';
    const registered = await request<any>('POST', '/api/register', {
      body: { email, password, first_name: 'Test', last_name: 'User', ...extra },
    });
    if (registered.status !== 201) throw new Error(`register failed: ${JSON.stringify(registered.body)}`);
    return { token: registered.body.data.token as string, user: registered.body.data.user, email, password };
  };

  return { app, db: database.db, connectionString: database.connectionString, config, request, newUser };
}

/** A database that exists only for this test file. */
async function throwawayDatabase(): Promise<DatabaseHandle & { dropDatabase?: () => Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({});
  const name = `finance_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  return {
    ...handle,
    async dropDatabase() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function recordCoverage(report: ContractReport): void {
  mkdirSync(COVERAGE_DIR, { recursive: true });
  appendFileSync(path.join(COVERAGE_DIR, `${process.pid}.txt`), `${report.operationId} ${report.status}\n`);
}
