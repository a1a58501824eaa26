// The calls reference/clients.md says each client makes, read from its endpoint tables (§4.1
// web, §4.2 mobile), so a call added there shows up in the suite's coverage report.
// A row's cells may name several methods (`POST / PUT`) or paths (`/parties`, `/parties/{id}`);
// `{entity}` and "as in §3.6" rows are expanded from the entities of §3.6.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { inProject } from '../helpers/project.js';

export type Client = 'web' | 'mobile';

/** The reference documents beside the project (shared/ at `../shared`, see shared/README.md). */
export const CLIENTS_MD = inProject('..', 'shared', 'reference', 'clients.md');
/**
 * The calls as last read from clients.md, for a checkout without shared/ beside it. Where
 * clients.md is present it is read and reference-calls.test.ts requires this copy to match it;
 * refresh it with `npx tsx test/clients/reference-calls.ts`.
 */
export const CALLS_SNAPSHOT = inProject('test', 'clients', 'reference-calls.json');

/** `GET /wallets/{id}`: method, one space, the path with a leading slash and `{param}` placeholders named `{}`. */
export function callKey(method: string, rawPath: string): string {
  const trimmed = rawPath.trim().replace(/^\/+/, '');
  return `${method.toUpperCase()} /${trimmed.replace(/\{[^}]*\}/g, '{}')}`;
}

/** Plural path segment of each entity named in §3.6, in the order the mobile app syncs them (§3.4). */
const ENTITY_PATHS: Record<string, string> = {
  wallet: 'wallets',
  category: 'categories',
  party: 'parties',
  group: 'groups',
  config: 'configurations',
  notification: 'notifications',
  transaction: 'transactions',
};

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(heading);
  if (start === -1) throw new Error(`clients.md has no section "${heading}"`);
  const next = markdown.slice(start + heading.length).search(/\n#{1,3} /);
  return next === -1 ? markdown.slice(start) : markdown.slice(start, start + heading.length + next);
}

const METHOD = /^(GET|POST|PUT|DELETE|PATCH)( \/ (GET|POST|PUT|DELETE|PATCH))*$/;

/** The §3.6 rows: entity, create body, update body; which methods an entity is sent with. */
function mobileWrites(markdown: string): string[] {
  const table = section(markdown, '### 3.6 Mobile bodies, per entity');
  const keys: string[] = [];
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const entity = ENTITY_PATHS[cells[1]];
    if (!entity) continue;
    const [create, update] = [cells[2], cells[3]];
    const byKey = entity === 'configurations' ? '{key}' : '{id}';
    if (create !== '—') keys.push(callKey('POST', entity));
    // Notifications are only marked read (their own row of §4.2); every other entity is PUT.
    if (!update.startsWith('`PUT notifications')) keys.push(callKey('PUT', `${entity}/${byKey}`));
    if (entity !== 'notifications') keys.push(callKey('DELETE', `${entity}/${byKey}`));
  }
  return keys;
}

/** Every call of one client's endpoint table, from clients.md when it is beside the project, else from the snapshot. */
export function clientCalls(client: Client): string[] {
  if (existsSync(CLIENTS_MD)) return referenceCalls(client);
  return (JSON.parse(readFileSync(CALLS_SNAPSHOT, 'utf8')) as Record<Client, string[]>)[client];
}

/** Every call of one client's endpoint table, as call keys, without duplicates, in document order. */
export function referenceCalls(client: Client, markdown = readFileSync(CLIENTS_MD, 'utf8')): string[] {
  const table = section(markdown, client === 'web' ? '### 4.1 Web UI endpoints' : '### 4.2 Mobile endpoints');
  const keys: string[] = [];
  for (const line of table.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || !METHOD.test(cells[1])) continue;
    const methods = cells[1].split(' / ');
    const pathCell = cells[2];
    if (/as in §3\.6/.test(pathCell)) {
      keys.push(...mobileWrites(markdown));
      continue;
    }
    // A third party's address (an exchange-rate site) is not this service's call.
    const paths = [...pathCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((p) => !/^https?:/.test(p));
    // `POST / PUT` over `/parties`, `/parties/{id}` pairs them; otherwise every method goes with every path.
    const pairs = methods.length > 1 && methods.length === paths.length ? paths.map((p, i) => [methods[i], p]) : paths.flatMap((p) => methods.map((m) => [m, p]));
    for (const [method, p] of pairs) for (const expanded of expandPath(p)) keys.push(callKey(method, expanded));
  }
  return [...new Set(keys)];
}

/** `{entity}/{id}` names every synced list; `{google\|apple}` both providers. */
function expandPath(raw: string): string[] {
  if (raw.startsWith('{entity}')) return Object.values(ENTITY_PATHS).map((entity) => raw.replace('{entity}', entity));
  const alternatives = raw.match(/\{([a-z]+(?:\\?\|[a-z]+)+)\}/);
  if (alternatives) return alternatives[1].split(/\\?\|/).map((value) => raw.replace(alternatives[0], value));
  return [raw];
}

// `npx tsx test/clients/reference-calls.ts` writes the snapshot from clients.md.
if (process.argv[1] === import.meta.filename) {
  const calls = { web: referenceCalls('web'), mobile: referenceCalls('mobile') };
  writeFileSync(CALLS_SNAPSHOT, `${JSON.stringify(calls, null, 2)}\n`);
}
