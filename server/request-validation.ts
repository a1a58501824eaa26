// A request's parameters and body checked with openapi-backend's compiled validators, parsed the
// way its `validateRequest` parses them, but with what depends only on the operation worked out
// once at start-up. Profiled per request, `validateRequest` spent more time preparing than
// validating: a lodash pass over the headers, a cookie parse, the query turned into a string
// and deep-cloned, the path template compiled to a regex, a linear search of the operation's
// parameters per query value. Operations with a cookie parameter, or a parameter carrying
// JSON, keep `validateRequest` itself (`plan` returns undefined for them), and so does a body
// that is not parsed JSON (openapi-backend tries to parse it). Header parameters (If-None-Match)
// are checked by their lower-cased names, as openapi-backend's schema names them.
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Operation } from 'openapi-backend';

export interface RequestInput {
  /** Path relative to `/api`, without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The query, declared parameters only. */
  query: Record<string, unknown>;
  body: unknown;
}

export interface Validated {
  errors: ErrorObject[];
  /** What the validators coerced (and filled with defaults), as openapi-backend reports it. */
  coerced: { params?: Record<string, unknown>; query?: Record<string, unknown> };
}

interface QueryParameter {
  array: boolean;
  /** `explode: false`: one value, its items split by the style's delimiter. */
  unexploded: boolean;
  style?: string;
}

export interface RequestPlan {
  /** Undefined for a body other than parsed JSON: openapi-backend's own path handles it. */
  validate(input: RequestInput): Validated | undefined;
}

type Parameter = { in: string; name: string; schema?: { type?: string }; content?: unknown; explode?: boolean; style?: string };

/** The plan of one operation (its parameters already dereferenced by openapi-backend), if it can have one. */
export function plan(operation: Operation, validators: ValidateFunction[]): RequestPlan | undefined {
  const parameters = (operation.parameters ?? []) as Parameter[];
  if (parameters.some((p) => p.in === 'cookie' || p.content !== undefined)) return undefined;
  const headerNames = [...new Set(parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase()))];
  const query = new Map<string, QueryParameter>();
  for (const p of parameters) {
    // the first declaration of a name wins, as openapi-backend's lookups find it
    if (p.in === 'query' && !query.has(p.name)) query.set(p.name, { array: p.schema?.type === 'array', unexploded: p.explode === false, style: p.style });
  }
  const pathParams = pathParser(operation.path);
  const nothingToCheck = parameters.length === 0 && !operation.requestBody;

  return {
    validate(input) {
      if (typeof input.body !== 'object' && input.body !== undefined) return undefined;
      // No parameter and no body: the validators can only pass (no path names, the query is
      // declared names only), and coerce nothing.
      if (nothingToCheck) return { errors: [], coerced: { params: {}, query: {} } };
      const errors: ErrorObject[] = [];
      const values: Record<string, unknown> = {
        path: pathParams(normalisedPath(input.path)) ?? {},
        query: parsedQuery(input.query, query),
        header: declaredHeaders(input.headers, headerNames),
        cookie: {},
      };
      const contentType = contentTypeOf(input.headers['content-type']);
      if (typeof input.body === 'object' || contentType === 'application/json') values.requestBody = input.body;
      const coerced: Validated['coerced'] = {};
      for (const validate of validators) {
        validate(values);
        if (validate.errors) errors.push(...validate.errors);
        else {
          coerced.query = values.query as Record<string, unknown>;
          coerced.params = values.path as Record<string, unknown>;
        }
      }
      return { errors, coerced };
    },
  };
}

/** The declared headers of a request (node names them in lower case), copied: the validators coerce in place. */
function declaredHeaders(headers: RequestInput['headers'], names: string[]): Record<string, unknown> {
  const declared: Record<string, unknown> = {};
  for (const name of names) if (headers[name] !== undefined) declared[name] = headers[name];
  return declared;
}

/** openapi-backend's path normalisation (apiRoot `/`): trimmed, leading slash, no trailing ones. */
function normalisedPath(raw: string): string {
  let path = raw.trim();
  if (!path.startsWith('/')) path = `/${path}`;
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** The path parameters of a template (bath's matching, which openapi-backend uses), compiled once. */
function pathParser(template: string): (path: string) => Record<string, string> | null {
  const names = (template.match(/\{[A-Za-z0-9_-]+\}/g) ?? []).map((name) => name.slice(1, -1));
  const pattern = new RegExp(`^${template.replace(/\{[A-Za-z0-9_-]+\}/g, '([^\\/]*)')}$`);
  return (path) => {
    const match = pattern.exec(path);
    if (!match) return null;
    const values = match.slice(1).map((value) => decodeURIComponent(value));
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) {
      // a name used twice must carry the same value twice
      if (names[i] in params && params[names[i]] !== values[i]) return null;
      params[names[i]] = values[i];
    }
    return params;
  };
}

/** A copy of the query (the validators coerce it in place) shaped as openapi-backend shapes it. */
function parsedQuery(input: Record<string, unknown>, declared: Map<string, QueryParameter>): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(input)) {
    let value = Array.isArray(raw) ? [...raw] : raw;
    const parameter = declared.get(name);
    if (value && parameter?.unexploded) value = unexploded(value, parameter.style);
    if (typeof value === 'string' && parameter?.array) value = [value];
    query[name] = value;
  }
  return query;
}

/** `explode: false`: `a,b` (or `a b`, `a|b` for those styles) is the list [a, b]. */
function unexploded(value: unknown, style: string | undefined): unknown {
  if (Array.isArray(value) && value.length > 1) return value;
  const one = Array.isArray(value) ? value[0] : value;
  if (typeof one !== 'string') return value;
  let decoded = one.replace(/%2C/g, ',');
  if (style === 'spaceDelimited') decoded = decoded.replace(/ /g, ',').replace(/%20/g, ',');
  if (style === 'pipeDelimited') decoded = decoded.replace(/\|/g, ',').replace(/%7C/g, ',');
  return decoded.split(',');
}

function contentTypeOf(header: string | string[] | undefined): string {
  return String((Array.isArray(header) ? header[0] : header) || '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}
