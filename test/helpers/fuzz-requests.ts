// Requests for the fuzzer: a valid request for any operation of the spec, then one mutation of
// it (wrong types, nulls, 1 MB strings, huge and negative numbers, invalid dates, unicode, extra
// and missing properties, arrays for objects, bad path ids and query values, malformed JSON,
// wrong content types, empty, huge and disguised files, bad tokens), and its wire form.
import { HOSTILE, MEGABYTE_STRING, validValue, type Rng, type ValueSource } from './fuzz-values.js';
import { objectShape, resolve, type Schema, type SpecOperation } from './spec-walk.js';
import { multipart, PNG, type FilePart } from './transaction-fixtures.js';

export interface FuzzRequest {
  op: SpecOperation;
  /** `valid`, or the mutation applied. */
  mutation: string;
  params: Record<string, string>;
  query: Array<[string, string]>;
  body?: { kind: 'json'; value: unknown } | { kind: 'multipart'; fields: Record<string, unknown>; files: FilePart[] } | { kind: 'raw'; payload: string | Buffer };
  contentType?: string;
  /** `undefined` sends no Authorization header. */
  token?: string;
}

export interface FuzzContext extends ValueSource {
  /** A valid value for a path parameter of `template`. */
  pathValue(template: string, param: string): string;
  token: string;
  badTokens: string[];
  uploadLimitBytes: number;
}

const CSV = Buffer.from('date,amount,description\n2026-01-05,-12.50,Coffee\n2026-01-06,1500,Salary\n');

export function validRequest(op: SpecOperation, ctx: FuzzContext): FuzzRequest {
  const params = Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, ctx.pathValue(op.path, name!)]));
  const query: Array<[string, string]> = [];
  for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
    if (!parameter.required && !ctx.rng.chance(0.3)) continue;
    const value = validValue(parameter.schema, ctx, parameter.name);
    const list = Array.isArray(value) ? value.map(String) : [String(value)];
    if (list.length === 0) continue;
    if (parameter.explode === false || !Array.isArray(value)) query.push([parameter.name, list.join(',')]);
    else for (const item of list) query.push([parameter.name, item]);
  }
  const request: FuzzRequest = { op, mutation: 'valid', params, query, token: op.public ? undefined : ctx.token };
  const types = Object.keys(op.bodies);
  if (types.length === 0) return request;
  const type = types.includes('application/json') && !(types.includes('multipart/form-data') && ctx.rng.chance(0.3)) ? 'application/json' : types[0]!;
  if (!op.bodyRequired && ctx.rng.chance(0.1)) return request;
  const value = validValue(op.bodies[type], ctx);
  if (type !== 'multipart/form-data') return { ...request, body: { kind: 'json', value } };
  const fields = { ...(value as Record<string, unknown>) };
  const files: FilePart[] = [];
  for (const [name, schema] of Object.entries(objectShape(op.bodies[type]).properties)) {
    const property = resolve(schema);
    const binary = property.format === 'binary' || resolve(property.items).format === 'binary';
    if (!binary) continue;
    delete fields[name];
    const csv = /\bCSV\b/i.test(property.description ?? '');
    const count = property.type === 'array' ? ctx.rng.int(1, 2) : 1;
    for (let i = 0; i < count; i++) {
      files.push(csv ? { field: name, filename: 'statement.csv', contentType: 'text/csv', data: CSV } : { field: name, filename: `receipt-${i}.png`, contentType: 'image/png', data: PNG });
    }
  }
  return { ...request, body: { kind: 'multipart', fields, files } };
}

type Mutation = (request: FuzzRequest, ctx: FuzzContext) => FuzzRequest | undefined;

/** Leaf paths of a JSON value: `['targets', 0, 'id']`. */
function leaves(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.length ? value.flatMap((item, i) => leaves(item, [...at, i])) : [at];
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    return keys.length ? keys.flatMap((key) => leaves((value as Record<string, unknown>)[key], [...at, key])) : [at];
  }
  return [at];
}

function setAt(root: unknown, at: Array<string | number>, value: unknown): unknown {
  if (at.length === 0) return value;
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  copy[at[0]!] = setAt(copy[at[0]!], at.slice(1), value);
  return copy;
}

/** The editable fields of a request: a JSON body, or a multipart body's text fields. */
function withFields(request: FuzzRequest, edit: (fields: unknown, rng: Rng) => unknown, rng: Rng): FuzzRequest | undefined {
  const body = request.body;
  if (body?.kind === 'json') return { ...request, body: { kind: 'json', value: edit(body.value, rng) } };
  if (body?.kind === 'multipart') return { ...request, body: { ...body, fields: edit(body.fields, rng) as Record<string, unknown> } };
  return undefined;
}

const atLeaf = (make: (rng: Rng, current: unknown) => unknown): Mutation => (request, ctx) =>
  withFields(
    request,
    (value, rng) => {
      const paths = leaves(value);
      const at = rng.pick(paths);
      return setAt(value, at.length ? at : ['fuzz'], make(rng, at.length ? at.reduce<any>((node, key) => node?.[key], value) : undefined));
    },
    ctx.rng,
  );

export const MUTATIONS: Record<string, Mutation> = {
  'wrong-type': atLeaf((rng, current) => rng.pick(HOSTILE.wrongTypes.filter((v) => typeof v !== typeof current))),
  null: atLeaf(() => null),
  'megabyte-string': atLeaf(() => MEGABYTE_STRING),
  'extreme-number': atLeaf((rng) => rng.pick(HOSTILE.numbers)),
  'invalid-date': atLeaf((rng) => rng.pick(HOSTILE.dates)),
  unicode: atLeaf((rng, current) => (typeof current === 'string' && rng.chance(0.5) ? current + rng.pick(HOSTILE.unicode) : rng.pick(HOSTILE.unicode))),
  'extra-property': (request, ctx) =>
    withFields(request, (value, rng) => (value && typeof value === 'object' && !Array.isArray(value) ? { ...value, [rng.pick(['zz_unknown', 'user_id', 'id', 'role', 'balance', 'deleted_at'])]: rng.pick([1, 'x', null, { a: 1 }]) } : [value, { extra: 1 }]), ctx.rng),
  'missing-property': (request, ctx) =>
    withFields(
      request,
      (value, rng) => {
        const paths = leaves(value).filter((p) => p.length > 0);
        if (paths.length === 0) return undefined;
        const at = rng.pick(paths);
        const parent = at.slice(0, -1).reduce<any>((node, key) => node?.[key], value);
        const copy: any = Array.isArray(parent) ? parent.filter((_: unknown, i: number) => i !== at.at(-1)) : { ...parent };
        if (!Array.isArray(parent)) delete copy[at.at(-1)!];
        return at.length === 1 ? copy : setAt(value, at.slice(0, -1), copy);
      },
      ctx.rng,
    ),
  'array-for-object': (request, ctx) =>
    withFields(request, (value, rng) => (rng.chance(0.5) || !value || typeof value !== 'object' ? [value] : setAt(value, [rng.pick(Object.keys(value).concat('x'))], [{ a: 1 }])), ctx.rng),
  'path-id': (request, ctx) => {
    const names = Object.keys(request.params);
    if (names.length === 0) return undefined;
    return { ...request, params: { ...request.params, [ctx.rng.pick(names)]: ctx.rng.pick(HOSTILE.pathIds) } };
  },
  'query-value': (request, ctx) => {
    const names = request.op.parameters.filter((p) => p.in === 'query').map((p) => p.name as string);
    if (names.length === 0) return undefined;
    const name = ctx.rng.pick(names);
    const extra: Array<[string, string]> = [[name, ctx.rng.pick(HOSTILE.queryValues)]];
    if (ctx.rng.chance(0.3)) extra.push([name, '2']); // a repeated parameter
    return { ...request, query: [...request.query.filter(([n]) => n !== name), ...extra] };
  },
  'malformed-json': (request, ctx) => ({ ...request, body: { kind: 'raw', payload: ctx.rng.pick(HOSTILE.malformedJson) }, contentType: 'application/json' }),
  'content-type': (request, ctx) => {
    if (!request.body) return undefined;
    const payload = request.body.kind === 'json' ? JSON.stringify(request.body.value) : serialize(request).payload ?? '';
    return { ...request, body: { kind: 'raw', payload: payload as string | Buffer }, contentType: ctx.rng.pick(HOSTILE.contentTypes) };
  },
  'empty-file': (request) => withFiles(request, (file) => ({ ...file, data: Buffer.alloc(0) })),
  'huge-file': (request, ctx) => withFiles(request, (file) => ({ ...file, data: Buffer.alloc(ctx.uploadLimitBytes + 1, 0x41) })),
  'disguised-file': (request, ctx) =>
    withFiles(request, (file, rng) => ({ ...file, filename: rng!.pick(['x.png', '../../etc/passwd', 'a\u0000.png', '', 'ééé.csv']), data: Buffer.from(rng!.pick(['MZ\x90\x00binary', '%PDF-1.4 broken', '\xff\xd8\xff', 'a,b\n"unterminated'])) }), 1, ctx.rng),
  'many-files': (request) => withFiles(request, (file) => file, 25),
  'broken-multipart': (request) =>
    request.body?.kind === 'multipart' ? { ...request, body: { kind: 'raw', payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue' }, contentType: 'multipart/form-data; boundary=x' } : undefined,
  'bad-token': (request, ctx) => (request.op.public ? undefined : { ...request, token: ctx.rng.pick(ctx.badTokens) }),
};

function withFiles(request: FuzzRequest, edit: (file: FilePart, rng: Rng | undefined) => FilePart, copies = 1, rng?: Rng): FuzzRequest | undefined {
  if (request.body?.kind !== 'multipart' || request.body.files.length === 0) return undefined;
  const files = request.body.files.flatMap((file) => Array.from({ length: copies }, () => edit(file, rng)));
  return { ...request, body: { ...request.body, files } };
}

/** One mutation of a valid request, chosen by the seed among those that apply to it. */
export function mutate(request: FuzzRequest, ctx: FuzzContext): FuzzRequest {
  for (let attempt = 0; attempt < 8; attempt++) {
    const name = ctx.rng.pick(Object.keys(MUTATIONS));
    const mutated = MUTATIONS[name]!(request, ctx);
    if (mutated) return { ...mutated, mutation: name };
  }
  return { ...MUTATIONS['malformed-json']!(request, ctx)!, mutation: 'malformed-json' };
}

/** The request as fastify inject takes it. */
export function serialize(request: FuzzRequest): { method: string; url: string; headers: Record<string, string>; payload?: string | Buffer } {
  const path = request.op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.params[name]!;
    return request.mutation === 'path-id' ? value : encodeURIComponent(value);
  });
  const search = request.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const headers: Record<string, string> = {};
  if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
  let payload: string | Buffer | undefined;
  const body = request.body;
  if (body?.kind === 'json') {
    payload = JSON.stringify(body.value) ?? 'null';
    headers['content-type'] = 'application/json';
  } else if (body?.kind === 'multipart') {
    const fields: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(body.fields ?? {})) {
      const list = Array.isArray(value) ? value : [value];
      for (const item of list) fields.push([Array.isArray(value) && !name.endsWith('[]') ? `${name}[]` : name, item === null ? '' : typeof item === 'object' ? JSON.stringify(item) : String(item)]);
    }
    const form = multipart(fields, body.files);
    payload = form.payload;
    Object.assign(headers, form.headers);
  } else if (body?.kind === 'raw') {
    payload = body.payload;
  }
  if (request.contentType) headers['content-type'] = request.contentType;
  return { method: request.op.method, url: `/api${path}${search ? `?${search}` : ''}`, headers, payload };
}

export type { Schema };
