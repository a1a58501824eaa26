// Compiled JSON serializers for the hot responses (lists and sync feeds), built once at start-up
// from the operation's OpenAPI response schema with fast-json-stringify. The spec's schema is
// flattened first into the plain shapes the compiler handles fast and right: $refs inlined,
// allOf merged, and OpenAPI 3.0's nullable reference (`anyOf: [ref, {nullable, enum: [null]}]`)
// turned into `nullable: true`. A schema with any other oneOf/anyOf, or a recursive one, is
// not compiled: that operation keeps JSON.stringify.
//
// fast-json-stringify writes only the properties a schema declares and coerces values to their
// declared types, so a view that strays from the spec would be changed silently. The guard is
// `verify` (on in tests): every compiled response is compared with JSON.stringify's, and a
// difference is reported like a contract violation (test/serializers.test.ts, the harness).
import { isDeepStrictEqual } from 'node:util';
import fastJson from 'fast-json-stringify';

/** The operations whose success responses are compiled: the pages clients fetch most. */
export const COMPILED_OPERATIONS = ['listTransactions'] as const;

type Schema = Record<string, any>;
export type Serialize = (body: unknown) => string;

/** A schema the compiler is not given (the operation keeps JSON.stringify). */
class Unsupported extends Error {}

const built = new WeakMap<Schema, ResponseSerializers>();

export class ResponseSerializers {
  private constructor(
    private readonly compiled: Map<string, Serialize>,
    /** Responses not compiled, with the reason (their operations keep JSON.stringify). */
    readonly skipped: string[],
  ) {}

  /** The serializers of COMPILED_OPERATIONS, compiled once per spec document (tests build many apps). */
  static of(document: Schema): ResponseSerializers {
    let serializers = built.get(document);
    if (!serializers) built.set(document, (serializers = ResponseSerializers.build(document)));
    return serializers;
  }

  /**
   * Serializers for `operationIds`' JSON success responses. A response whose schema cannot be
   * flattened is left out and listed in `skipped`.
   */
  static build(document: Schema, operationIds: readonly string[] = COMPILED_OPERATIONS): ResponseSerializers {
    const compiled = new Map<string, Serialize>();
    const skipped: string[] = [];
    for (const [operationId, responses] of successResponses(document, operationIds)) {
      for (const [status, schema] of responses) {
        try {
          compiled.set(key(operationId, status), fastJson(flatten(schema, document, []), { rounding: 'trunc' }) as Serialize);
        } catch (error) {
          if (!(error instanceof Unsupported)) throw error;
          skipped.push(`${operationId} ${status}: ${error.message}`);
        }
      }
    }
    return new ResponseSerializers(compiled, skipped);
  }

  /** The compiled serializer of this response, if there is one. */
  for(operationId: string, status: number): Serialize | undefined {
    return this.compiled.get(key(operationId, status));
  }
}

/**
 * `serialize`, checked against JSON.stringify on every call: the first difference is passed to
 * `report`, and the response falls back to JSON.stringify's bytes (so what the client gets is
 * right while the test fails).
 */
export function verified(serialize: Serialize, report: (difference: string) => void): Serialize {
  return (body) => {
    const expected = JSON.stringify(body);
    const fast = serialize(body);
    const difference = firstDifference(JSON.parse(fast), JSON.parse(expected), '');
    if (difference === undefined) return fast;
    report(difference);
    return expected;
  };
}

const key = (operationId: string, status: number) => `${operationId} ${status}`;

function* successResponses(document: Schema, operationIds: readonly string[]): Generator<[string, Array<[number, Schema]>]> {
  const wanted = new Set(operationIds);
  for (const methods of Object.values<Schema>(document.paths ?? {})) {
    for (const operation of Object.values<Schema>(methods)) {
      if (!operation || !wanted.has(operation.operationId)) continue;
      const responses: Array<[number, Schema]> = [];
      for (const [status, response] of Object.entries<Schema>(operation.responses ?? {})) {
        const schema = resolve(response, document)?.content?.['application/json']?.schema;
        if (/^2\d\d$/.test(status) && schema) responses.push([Number(status), schema]);
      }
      yield [operation.operationId, responses];
    }
  }
}

function resolve(node: Schema | undefined, document: Schema): Schema | undefined {
  let at = node;
  while (at?.$ref) {
    at = (at.$ref as string)
      .slice(2)
      .split('/')
      .reduce<any>((parent, part) => parent?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return at;
}

/** The keywords that only document (fast-json-stringify ignores them or must not see them). */
const DOCUMENTATION = new Set(['description', 'example', 'examples', 'title', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', 'default']);
/** Validation keywords: no effect on the bytes. */
const VALIDATION = new Set(['pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'multipleOf', 'enum', 'minProperties', 'maxProperties']);

/** `schema` as one plain schema: refs inlined, allOf merged, nullable refs as `nullable`. */
function flatten(schema: Schema, document: Schema, refs: string[]): Schema {
  if (schema.$ref) {
    if (refs.includes(schema.$ref)) throw new Unsupported(`recursive schema ${schema.$ref}`);
    return flatten(resolve(schema, document)!, document, [...refs, schema.$ref]);
  }
  if (schema.oneOf || schema.not) throw new Unsupported('oneOf/not');
  if (schema.anyOf) return flatten(nullableRef(schema), document, refs);
  let flat: Schema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (DOCUMENTATION.has(keyword) || VALIDATION.has(keyword) || keyword === 'allOf' || keyword.startsWith('x-')) continue;
    if (keyword === 'properties') flat.properties = mapValues(value, (property) => flatten(property, document, refs));
    else if (keyword === 'items') flat.items = flatten(value, document, refs);
    else if (keyword === 'additionalProperties' && typeof value === 'object') flat.additionalProperties = flatten(value, document, refs);
    else flat[keyword] = value;
  }
  for (const part of schema.allOf ?? []) flat = merge(flat, flatten(part, document, refs));
  if (flat.properties && !flat.type) flat.type = 'object';
  // a free-form object: every property is data, none may be dropped
  if (flat.type === 'object' && !flat.properties && flat.additionalProperties === undefined) flat.additionalProperties = true;
  if (flat.type === undefined && Object.keys(flat).some((k) => k !== 'nullable')) throw new Unsupported(`a schema without a type: ${JSON.stringify(schema).slice(0, 80)}`);
  return flat;
}

/** `anyOf: [X, {nullable: true, enum: [null]}]` (either order) as X, nullable. */
function nullableRef(schema: Schema): Schema {
  const branches: Schema[] = schema.anyOf;
  const isNull = (branch: Schema) => branch.nullable === true && Array.isArray(branch.enum) && branch.enum.length === 1 && branch.enum[0] === null;
  const others = branches.filter((branch) => !isNull(branch));
  if (branches.length !== 2 || others.length !== 1) throw new Unsupported('anyOf other than a nullable reference');
  const { anyOf: _, ...rest } = schema;
  return { ...rest, allOf: [others[0]], nullable: true };
}

/** Two object (or sibling) schemas as one; a property both declare must be declared alike. */
function merge(a: Schema, b: Schema): Schema {
  const merged: Schema = { ...a, ...b };
  if (a.type && b.type && a.type !== b.type) throw new Unsupported(`allOf of ${a.type} and ${b.type}`);
  if (a.properties && b.properties) {
    for (const name of Object.keys(b.properties)) {
      if (name in a.properties && !isDeepStrictEqual(a.properties[name], b.properties[name])) throw new Unsupported(`allOf declares ${name} twice`);
    }
    merged.properties = { ...a.properties, ...b.properties };
  }
  if (a.required || b.required) merged.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.nullable || b.nullable) merged.nullable = true;
  return merged;
}

function mapValues(object: Record<string, Schema>, map: (value: Schema) => Schema): Record<string, Schema> {
  return Object.fromEntries(Object.entries(object).map(([name, value]) => [name, map(value)]));
}

/** The path and values of the first difference between two JSON values, if any. */
function firstDifference(actual: unknown, expected: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(actual, expected)) return undefined;
  const bothObjects = actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object';
  if (bothObjects && Array.isArray(actual) === Array.isArray(expected)) {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const name of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const found = firstDifference(a[name], e[name], `${path}/${name}`);
      if (found) return found;
    }
  }
  return `${path || '(body)'}: compiled ${JSON.stringify(actual)?.slice(0, 120)}, JSON.stringify ${JSON.stringify(expected)?.slice(0, 120)}`;
}
