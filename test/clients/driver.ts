// Replays a reference client's calls (a table of steps, one per request) against the app as
// that client sends them, and checks what it reads. One step = one request: its status and
// every field the client reads (shapes.ts); the harness checks the whole response against
// the spec. The web client's requests also go through a CORS preflight from its origin.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import type { TestApp, TestResponse } from '../helpers/harness.js';
import { multipart, type FilePart } from '../helpers/transaction-fixtures.js';
import type { Client } from './reference-calls.js';
import { shapeErrors, type Shape } from './shapes.js';

/** What a replay remembers between steps (tokens, ids the client learnt from responses). */
export type State = Record<string, any>;
type Dynamic<T> = T | ((state: State) => T);

export interface Step {
  /** The call of clients.md this replays, as `METHOD /path/{}` (reference-calls.ts callKey). */
  call: string;
  /** What the client is doing, for the test name. */
  does: string;
  /** The request path and query after the client's base `/api/v1/` (mobile writes no leading slash). */
  url: Dynamic<string>;
  /** Default: the method of `call`. */
  method?: string;
  /** JSON body, keys with null values already dropped for mobile (its interceptor does it). */
  json?: Dynamic<Record<string, unknown>>;
  /** A JSON body that needs something read first (a mailed code, a signed token). */
  prepare?: (state: State) => Promise<Record<string, unknown>>;
  /** What happens before the call that the client does not do (another client's writes, the server's jobs). */
  before?: (state: State) => Promise<void>;
  /** multipart/form-data: text fields (a key repeated for arrays) and file parts. */
  form?: Dynamic<{ fields: Array<[string, string]>; files?: FilePart[] }>;
  /** No Authorization header (public calls). */
  anonymous?: boolean;
  /** Expected status; default 200 (201 for a POST that creates is given explicitly). */
  status?: number | number[];
  /** What the client reads from the body. */
  reads?: Shape;
  /**
   * Further checks of what the client relies on; throw (or use t) to fail. `read` GETs a path
   * as the client (its `data`): what a write stored, read back.
   */
  check?: (response: TestResponse, state: State, read: ReadBack) => void | Promise<void>;
  /** Remember what later steps use. */
  save?: (response: TestResponse, state: State) => void;
  /** Repeat while this says so (paging), with `state.page` counting from 1. */
  repeatWhile?: (response: TestResponse, state: State) => boolean;
}

/** Each client's fixed headers (clients.md §1): the web's locale and origin, nothing for mobile. */
export const CLIENT_HEADERS: Record<Client, Record<string, string>> = {
  web: { 'accept-language': 'fr', origin: 'http://localhost:3000' },
  mobile: {},
};

/** `data` of a GET of `path` (after `/api/v1/`) with the client's token; throws unless 200. */
export type ReadBack = (path: string) => Promise<any>;

const resolve = <T>(value: Dynamic<T>, state: State): T => (typeof value === 'function' ? (value as (s: State) => T)(state) : value);

/** Sends one step as `client` does; returns the response and the problems found (empty when it is as the client needs). */
export async function send(api: TestApp, client: Client, step: Step, state: State): Promise<{ response: TestResponse; problems: string[] }> {
  const method = step.method ?? step.call.split(' ')[0];
  const url = `/api/v1/${resolve(step.url, state).replace(/^\//, '')}`;
  const headers: Record<string, string> = { ...CLIENT_HEADERS[client] };
  const problems: string[] = [];
  let payload: string | Buffer | undefined;
  const json = step.prepare ? await step.prepare(state) : step.json === undefined ? undefined : resolve(step.json, state);
  const form = step.form === undefined ? undefined : resolve(step.form, state);
  if (json !== undefined) {
    payload = JSON.stringify(json);
    headers['content-type'] = 'application/json';
    // ofetch adds Accept for object bodies; Dio never sends it.
    if (client === 'web') headers.accept = 'application/json';
  } else if (form) {
    const body = multipart(form.fields, form.files ?? []);
    payload = body.payload;
    Object.assign(headers, body.headers);
  }
  if (!step.anonymous && state.token) headers.authorization = `Bearer ${state.token}`;
  if (client === 'web') problems.push(...(await preflight(api, method, url, Object.keys(headers))));
  const response = await api.request(method, url, { headers, payload });
  const expected = [step.status ?? 200].flat();
  if (!expected.includes(response.status)) problems.push(`status ${response.status}, expected ${expected.join(' or ')}: ${JSON.stringify(response.body).slice(0, 600)}`);
  else if (step.reads) problems.push(...shapeErrors(response.body, step.reads));
  if (client === 'web' && response.headers['access-control-allow-origin'] === undefined) problems.push('no Access-Control-Allow-Origin on the answer to the web origin');
  if (problems.length === 0 && step.check) {
    try {
      const read: ReadBack = async (path) => {
        const res = await api.request('GET', `/api/v1/${path.replace(/^\//, '')}`, { token: state.token });
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
        return res.body.data;
      };
      await step.check(response, state, read);
    } catch (error) {
      problems.push(String((error as Error).message ?? error));
    }
  }
  if (problems.length === 0) step.save?.(response, state);
  return { response, problems };
}

/** The browser's preflight for a cross-origin call with these headers: allowed, or the problems. */
async function preflight(api: TestApp, method: string, url: string, headerNames: string[]): Promise<string[]> {
  // What the browser lists: the request's headers but Origin and Accept (CORS-safelisted);
  // Accept-Language is safelisted too, but clients.md asks for it to be allowed explicitly.
  const asked = headerNames.filter((h) => h !== 'origin' && h !== 'accept');
  const res = await api.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin: CLIENT_HEADERS.web.origin, 'access-control-request-method': method, 'access-control-request-headers': asked.join(',') },
  });
  const problems: string[] = [];
  if (res.statusCode >= 300) problems.push(`preflight answered ${res.statusCode}`);
  const origin = res.headers['access-control-allow-origin'];
  if (origin !== '*' && origin !== CLIENT_HEADERS.web.origin) problems.push(`preflight allows origin ${origin}`);
  const methods = String(res.headers['access-control-allow-methods'] ?? '').toUpperCase();
  if (!methods.split(/\s*,\s*/).includes(method)) problems.push(`preflight does not allow ${method} (${methods})`);
  const allowed = String(res.headers['access-control-allow-headers'] ?? '').toLowerCase().split(/\s*,\s*/);
  for (const header of asked) if (!allowed.includes(header) && !allowed.includes('*')) problems.push(`preflight does not allow header ${header} (${allowed})`);
  return problems;
}

/**
 * Runs the steps in order as one tap subtest each, paging where a step says so; returns the
 * calls replayed as the client needs them.
 */
export async function replay(t: Test, api: TestApp, client: Client, steps: Step[], state: State): Promise<Set<string>> {
  const replayed = new Set<string>();
  for (const step of steps) {
    await t.test(`${step.call}: ${step.does}`, async (t) => {
      state.page = 1;
      await step.before?.(state);
      for (;;) {
        const { response, problems } = await send(api, client, step, state);
        t.same(problems, [], `${resolve(step.url, state)}${state.page > 1 ? ` (page ${state.page})` : ''}`);
        if (problems.length > 0) return;
        if (!step.repeatWhile?.(response, state)) break;
        state.page += 1;
        if (state.page > 50) return t.fail('more than 50 pages');
      }
      replayed.add(step.call);
    });
  }
  return replayed;
}

/** `<device uuid>:<record uuid>` as both clients make them (clients.md §3.1). */
export const clientIdOf = (device: string) => `${device}:${randomUUID()}`;

/**
 * The mobile app's date helper (clients.md §2.3): UTC, but the three "fraction" digits are the
 * minutes value, not milliseconds.
 */
export function mobileDate(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 19)}.${String(date.getUTCMinutes()).padStart(3, '0')}Z`;
}
/** Dart's default toIso8601String of a UTC time: microseconds. */
export const dartIso = (date: Date) => `${date.toISOString().slice(0, 23)}000Z`;

/**
 * A stored time is the one the client sent: to the millisecond, or at whole seconds (rounded
 * down) where the service stores seconds (transaction datetimes, read_at).
 */
export function assertStoredTime(stored: string | null | undefined, sent: string, what: string, precision: 'ms' | 's' = 'ms'): void {
  const expected = precision === 's' ? Math.floor(Date.parse(sent) / 1000) * 1000 : Date.parse(sent);
  assert.equal(stored ? new Date(stored).toISOString() : stored, new Date(expected).toISOString(), `${what}: stored as sent (${sent})`);
}
