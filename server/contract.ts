// The spec, loaded once at boot: openapi-backend compiles every request and response
// validator, and ajv's errors become the messages clients see, keyed by field.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type Options as AjvOptions, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend, OpenAPIValidator, ValidationContext, type Document, type Operation } from 'openapi-backend';
import type { FieldErrors } from './errors.js';
import { plan, type RequestPlan, type Validated } from './request-validation.js';

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = ajvFormats as unknown as typeof ajvFormats.default;

/** The bundled spec, found from the sources (server/) and from the build (dist/server/). */
export const SPEC_FILE =
  [path.resolve(import.meta.dirname, '..', 'generated', 'openapi.json'), path.resolve(import.meta.dirname, '..', '..', 'generated', 'openapi.json')].find(
    (file) => existsSync(file),
  ) ?? path.resolve(import.meta.dirname, '..', 'generated', 'openapi.json');

export interface RequestParts {
  method: string;
  /** Path relative to the server root `/api`, e.g. `/v1/wallets/3`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  body: unknown;
}

export type RequestCheck =
  | { ok: true; params: Record<string, unknown>; query: Record<string, unknown> }
  | { ok: false; pathInvalid: boolean; errors: FieldErrors };

export interface LoadOptions {
  /** false (tests): every request through openapi-backend's validateRequest, to compare with. */
  prepared?: boolean;
  /**
   * 'at-start' (the service): every request validator compiled and every plan made while
   * booting, so a broken schema fails the start and no request pays for compiling.
   * 'on-first-use' (tests): each operation's on its first request; a test file calls a few
   * of the 127 operations, and compiling all of them was ~1 s of every test process.
   */
  compile?: 'at-start' | 'on-first-use';
}

export class Contract {
  /** Per operation, its request check prepared from its compiled validators (undefined: openapi-backend's validateRequest). */
  private readonly plans = new Map<Operation, RequestPlan | undefined>();

  private constructor(
    readonly document: Document,
    private readonly backend: OpenAPIBackend,
    /** Resolved once: openapi-backend looks an id up by rebuilding its whole operation list. */
    private readonly operations: Map<string, Operation>,
    private readonly prepared: boolean,
  ) {}

  static async load(file = SPEC_FILE, { prepared = true, compile = 'at-start' }: LoadOptions = {}): Promise<Contract> {
    const document = JSON.parse(readFileSync(file, 'utf8')) as Document;
    // The backend parses, checks and dereferences the document and builds the router. The
    // validator is made here rather than by the backend, which compiles every request,
    // response and response-header validator at once: the service needs only the request
    // validators, the contract test (tests only) compiles an operation's response validators
    // on first use, and response headers are never validated. All three took ~13 s.
    const backend = new OpenAPIBackend({
      definition: safeIntegers(nullableForAjv(structuredClone(document))) as Document,
      apiRoot: '/',
      quick: false,
      validate: false,
      strict: true,
    });
    // Checking the document against the OpenAPI schema costs ~0.35 s; the service does it at
    // every start; tests once (test/unit/request-validation.test.ts loads the contract as the
    // service does) rather than in every test process.
    if (compile === 'on-first-use') backend.validateDefinition = () => backend.document;
    await backend.init();
    backend.validator = new OpenAPIValidator({
      definition: backend.definition,
      router: backend.router,
      lazyCompileValidators: true,
      coerceTypes: true,
      // validateSchema: the spec is linted (make lint); checking each schema against the
      // meta-schema made every one of the ~500 ajv instances compile that meta-schema again.
      ajvOpts: { allErrors: true, strict: false, validateSchema: false },
      customizeAjv: (ajv, options, context) => {
        // Defaults fill only parameters (limit, page): filling bodies would turn a partial
        // update into an overwrite with defaults.
        const tuned = context === ValidationContext.Params ? new Ajv({ ...(options as AjvOptions), useDefaults: true }) : ajv;
        addFormats(tuned);
        // Documentation-only formats of OpenAPI: any string is acceptable.
        tuned.addFormat('password', true);
        tuned.addFormat('binary', true);
        return tuned;
      },
    });
    const operations = new Map(backend.getOperations().map((op) => [op.operationId!, op]));
    const contract = new Contract(document, backend, operations, prepared);
    if (compile === 'at-start') {
      backend.validator.preCompileRequestValidators();
      for (const operation of operations.values()) contract.planOf(operation);
    }
    return contract;
  }

  /** The operation's request plan, made on its first request unless made at start. */
  private planOf(operation: Operation): RequestPlan | undefined {
    let planned = this.plans.get(operation);
    if (planned === undefined && this.prepared && !this.plans.has(operation)) {
      planned = plan(operation, this.backend.validator.getRequestValidatorsForOperation(operation.operationId!) ?? []);
      this.plans.set(operation, planned);
    }
    return planned;
  }

  /** Parses and validates a request for an operation; returns coerced params and query. */
  checkRequest(operationId: string, parts: RequestParts): RequestCheck {
    const operation = this.operation(operationId);
    // Unknown query parameters are ignored, as clients send extras freely. They are dropped
    // before validation: openapi-backend returns no coerced values once any error is found.
    const query = Object.fromEntries(
      Object.entries(parts.query).filter(([name]) => this.declaredQuery(operation).has(name.replace(/\[\]$/, ''))),
    );
    const result = this.planOf(operation)?.validate({ ...parts, query }) ?? this.validateRequest(operation, parts, query);
    const params = result.coerced.params;
    const errors = [
      ...result.errors,
      ...unstorableTextErrors(parts.body, '/requestBody'),
      ...unstorableTextErrors(query, '/query'),
      ...unstorableTextErrors(params, '/path'), // `/configurations/%00`: names no record (404)
    ];
    if (errors.length === 0) {
      return { ok: true, params: result.coerced.params ?? {}, query: result.coerced.query ?? {} };
    }
    return {
      ok: false,
      pathInvalid: errors.some((e) => e.instancePath.startsWith('/path')),
      errors: fieldErrors(errors),
    };
  }

  /** Whether the operation's requests are checked by a plan prepared at start-up. */
  isPrepared(operationId: string): boolean {
    return this.planOf(this.operation(operationId)) !== undefined;
  }

  /** openapi-backend's own parse and check, for the operations and bodies without a plan. */
  private validateRequest(operation: Operation, parts: RequestParts, query: Record<string, unknown>): Validated {
    const result = this.backend.validator.validateRequest(
      { method: parts.method.toLowerCase(), path: parts.path, headers: parts.headers as Record<string, string>, query: query as Record<string, string>, body: parts.body },
      operation,
    );
    return { errors: result.errors ?? [], coerced: (result.coerced ?? {}) as Validated['coerced'] };
  }

  private readonly queryNames = new Map<Operation, Set<string>>();

  /** Whether the operation declares this query parameter. */
  takesQuery(operationId: string, name: string): boolean {
    return this.declaredQuery(this.operation(operationId)).has(name);
  }

  /** The query parameter names an operation declares. */
  private declaredQuery(operation: Operation): Set<string> {
    let names = this.queryNames.get(operation);
    if (!names) {
      names = new Set(
        (operation.parameters ?? [])
          .map((parameter) => this.resolve(parameter as Record<string, any>))
          .filter((parameter) => parameter?.in === 'query')
          .map((parameter) => String(parameter!.name)),
      );
      this.queryNames.set(operation, names);
    }
    return names;
  }

  private operation(operationId: string): Operation {
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`Unknown operation ${operationId}`);
    return operation;
  }

  /** The operation a request names (`path` below the server root, without the query), as the spec's paths match it. */
  operationIdAt(method: string, path: string): string | undefined {
    return this.backend.router.matchOperation({ method, path, headers: {} })?.operationId;
  }

  /** The request body schema of an operation for one media type. */
  requestSchema(operationId: string, mediaType: string): Record<string, any> | undefined {
    const body = this.resolve(this.operation(operationId).requestBody as Record<string, any> | undefined);
    return body?.content?.[mediaType]?.schema;
  }

  /** Follows `$ref`s of the bundled document. */
  readonly resolve = (schema: Record<string, any> | undefined): Record<string, any> | undefined => {
    let node = schema;
    while (node?.$ref) {
      node = (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce<any>((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    }
    return node;
  };

  /** Validates a response body against the operation's schema for that status (tests only). */
  checkResponse(operationId: string, status: number, body: unknown): string[] {
    const validate = this.responseCheck(operationId, status);
    if (!validate || validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? e.keyword}`);
  }

  /**
   * Response checks use one ajv instance that holds the whole document, each compiled on first
   * use from a `$ref` into it: a schema shared by many operations (the envelope, a wallet) is
   * compiled once per process, where openapi-backend compiles every status of an operation
   * from its own dereferenced copy (~0.3 s of a test file's start).
   */
  private responseAjv: Ajv | undefined;
  private readonly responseChecks = new Map<string, ValidateFunction | undefined>();

  private responseCheck(operationId: string, status: number): ValidateFunction | undefined {
    const key = `${operationId} ${status}`;
    if (!this.responseChecks.has(key)) this.responseChecks.set(key, this.compileResponseCheck(operationId, status));
    return this.responseChecks.get(key);
  }

  private compileResponseCheck(operationId: string, status: number): ValidateFunction | undefined {
    const { path: route, method } = this.operation(operationId);
    const pointer = (...keys: string[]) => keys.map((key) => key.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
    const responses = (this.document.paths?.[route] as Record<string, any>)[method].responses as Record<string, any>;
    // as openapi-backend matches a status: itself, then its class (`4XX`), then `default`
    const matched = [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((code) => responses[code] !== undefined);
    if (!matched) return undefined;
    // a shared response (`$ref: '#/components/responses/...'`) is pointed at where it is defined
    const reference: string | undefined = responses[matched].$ref;
    const at = reference ? reference.slice(2) : pointer('paths', route, method, 'responses', matched);
    if (!this.resolve(responses[matched])?.content?.['application/json']?.schema) return undefined;
    this.responseAjv ??= responseValidator(this.document);
    return this.responseAjv.compile({ $ref: `contract#/${at}/content/application~1json/schema` });
  }
}

/** An ajv instance holding the document as schema `contract`, shaped for ajv as the request validators' is. */
function responseValidator(document: Document): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('password', true);
  ajv.addFormat('binary', true);
  ajv.addSchema(safeIntegers(nullableForAjv(document)) as object, 'contract');
  return ajv;
}

/**
 * OpenAPI 3.0 marks nullable references as `{nullable: true, allOf: [...]}`, which ajv
 * rejects ("nullable" needs "type"). For validation only, such schemas become
 * `{anyOf: [{...rest}, {type: 'null'}]}`, which means the same.
 */
function nullableForAjv(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableForAjv);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = nullableForAjv(value);
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _, description, ...rest } = out;
    return { ...(description ? { description } : {}), anyOf: [rest, { type: 'null' }] };
  }
  return out;
}

/**
 * Every integer without a maximum gets 2^53 − 1, and without a minimum −(2^53 − 1)
 * (spec/README.md: integers are JSON-safe), so a huge id is refused by validation (404 in a
 * path, 422 in a body) instead of overflowing `bigint` in SQL.
 */
function safeIntegers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(safeIntegers);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = safeIntegers(value);
  if (out.type === 'integer' && out.maximum === undefined) out.maximum = Number.MAX_SAFE_INTEGER;
  if (out.type === 'integer' && out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = -Number.MAX_SAFE_INTEGER;
  return out;
}

/** A UTF-16 half of a pair with no other half: JSON can carry it (`"\ud800"`), UTF-8 cannot. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL could not store this string (so it is refused as the field's error), if it cannot. */
function unstorableText(value: string): { keyword: string; message: string } | undefined {
  // text cannot hold U+0000; jsonb refuses an unpaired surrogate's escape (a 500 before this check)
  if (value.includes('\u0000')) return { keyword: 'nulCharacter', message: 'may not contain NUL characters' };
  if (UNPAIRED_SURROGATE.test(value)) return { keyword: 'unpairedSurrogate', message: 'may not contain unpaired surrogates' };
  return undefined;
}

/**
 * Strings PostgreSQL cannot store (unstorableText) are refused here (422 on their field)
 * rather than failing in SQL. Shaped like ajv's errors so they are keyed the same way.
 * Walked with a stack, not recursion: a body nested thousands deep must not overflow it.
 */
function unstorableTextErrors(root: unknown, rootPath: string): ErrorObject[] {
  const errors: ErrorObject[] = [];
  const pending: Array<[unknown, string]> = [[root, rootPath]];
  while (pending.length > 0) {
    const [value, instancePath] = pending.pop()!;
    if (typeof value === 'string') {
      const problem = unstorableText(value);
      if (problem) errors.push({ ...problem, instancePath, schemaPath: '', params: {} });
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        pending.push([item, `${instancePath}/${key}`]);
        if (unstorableText(key)) pending.push([key, `${instancePath}/${key}`]); // a key is stored too (jsonb)
      }
    }
  }
  return errors.reverse();
}

// ---- ajv errors → field-keyed messages ------------------------------------------------

const CLIENT_ID_FORMAT =
  'must be in the format xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.';

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function fieldErrors(errors: ErrorObject[]): FieldErrors {
  // A Map: a field may be named `constructor` or `__proto__`, which a plain object already has.
  const byField = new Map<string, string[]>();
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const field = fieldOf(error);
    const message = messageFor(field, error);
    const list = byField.get(field) ?? [];
    if (!list.includes(message)) list.push(message);
    byField.set(field, list);
  }
  if (byField.size === 0 && errors.length > 0) byField.set('body', ['The request is invalid.']);
  return Object.fromEntries(byField);
}

/** `/requestBody/targets/0/id` → `targets.0.id`; a missing property names itself. */
function fieldOf(error: ErrorObject): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  segments.shift(); // requestBody | query | path | header
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  if (segments.length === 0) return error.instancePath.startsWith('/requestBody') || error.instancePath === '' ? 'body' : 'request';
  return segments.join('.');
}

function messageFor(field: string, error: ErrorObject): string {
  const label = field.includes('.') || field.includes('_id') ? field : field.replace(/_/g, ' ');
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return field === 'requestBody' || field === 'body' ? 'A request body is required.' : `The ${label} field is required.`;
    case 'type':
      return `The ${label} must be ${TYPE_NAMES[String(p.type)] ?? String(p.type)}.`;
    case 'enum':
      return `The selected ${label} is invalid. Allowed: ${(p.allowedValues as unknown[]).join(', ')}.`;
    case 'format':
      return formatMessage(label, String(p.format));
    case 'pattern':
      if (/client_id$/.test(field)) return `The ${field} ${CLIENT_ID_FORMAT}`;
      if (p.pattern === '^[A-Z]{3}$') return `The ${label} must be three upper-case letters (ISO 4217).`;
      return `The ${label} format is invalid.`;
    case 'minLength':
      return `The ${label} must be at least ${p.limit} characters.`;
    case 'maxLength':
      return `The ${label} may not be greater than ${p.limit} characters.`;
    case 'minimum':
      return `The ${label} must be at least ${p.limit}.`;
    case 'maximum':
      return `The ${label} may not be greater than ${p.limit}.`;
    case 'exclusiveMinimum':
      return `The ${label} must be greater than ${p.limit}.`;
    case 'exclusiveMaximum':
      return `The ${label} must be less than ${p.limit}.`;
    case 'minItems':
      return `The ${label} must have at least ${p.limit} items.`;
    case 'maxItems':
      return `The ${label} may not have more than ${p.limit} items.`;
    case 'additionalProperties':
      return `The ${label} field is not allowed.`;
    case 'parse':
      return 'The body is not valid JSON.';
    case 'nulCharacter':
      return `The ${label} may not contain NUL characters.`;
    case 'unpairedSurrogate':
      return `The ${label} may not contain unpaired surrogate characters (text that is not valid Unicode).`;
    default:
      return `The ${label} is invalid.`;
  }
}

function formatMessage(label: string, format: string): string {
  switch (format) {
    case 'date-time':
      return `The ${label} must be a valid ISO 8601 datetime (e.g. 2025-04-30T15:17:54.120Z or 2025-06-02T15:17:54+00:00).`;
    case 'date':
      return `The ${label} must be a date in the form YYYY-MM-DD.`;
    case 'email':
      return `The ${label} must be a valid email address.`;
    case 'uri':
      return `The ${label} must be a valid URL.`;
    default:
      return `The ${label} must be a valid ${format}.`;
  }
}
