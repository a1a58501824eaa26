// What a client reads from a response, as data: a tiny type language checked against the JSON
// the service sent. The mobile app decodes strictly (reference/clients.md §2.4, §5): an int
// must be a JSON int, a non-nullable field must not be null, an enum must be one of its
// values. A shape names only the fields a client reads; others are not looked at.

/** `int`, `number` (JSON number), `numeric` (number or numeric string), `string`, `bool`, `iso` (ISO 8601 date-time string), `date` (YYYY-MM-DD), `object` (any JSON object), `array`, `any` (present, any value); a trailing `?` allows null or absence. */
export type Scalar = 'int' | 'number' | 'numeric' | 'string' | 'bool' | 'iso' | 'date' | 'object' | 'array' | 'any';
export type Shape = Scalar | `${Scalar}?` | EnumShape | OptionalShape | Shape[] | { [field: string]: Shape };

export interface EnumShape {
  kind: 'enum';
  values: readonly unknown[];
  nullable: boolean;
}
/** Absent or null is fine; when present it must match `shape` (the client checks before reading). */
export interface OptionalShape {
  kind: 'optional';
  shape: Shape;
}

export const oneOf = (...values: unknown[]): EnumShape => ({ kind: 'enum', values, nullable: false });
export const oneOfOrNull = (...values: unknown[]): EnumShape => ({ kind: 'enum', values, nullable: true });
export const optional = (shape: Shape): OptionalShape => ({ kind: 'optional', shape });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function scalarError(value: unknown, type: Scalar): string | undefined {
  const ok = (() => {
    switch (type) {
      case 'int':
        return Number.isInteger(value);
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'numeric':
        return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
      case 'string':
        return typeof value === 'string';
      case 'bool':
        return typeof value === 'boolean';
      case 'iso':
        return typeof value === 'string' && ISO.test(value) && !Number.isNaN(Date.parse(value));
      case 'date':
        return typeof value === 'string' && DATE.test(value);
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      case 'array':
        return Array.isArray(value);
      case 'any':
        return value !== undefined;
    }
  })();
  return ok ? undefined : `expected ${type}, got ${JSON.stringify(value)}`;
}

/** Every place where `value` breaks `shape`, as `path: problem` lines (empty when it fits). */
export function shapeErrors(value: unknown, shape: Shape, path = 'body'): string[] {
  if (typeof shape === 'string') {
    const nullable = shape.endsWith('?');
    if (nullable && (value === null || value === undefined)) return [];
    const error = scalarError(value, (nullable ? shape.slice(0, -1) : shape) as Scalar);
    return error ? [`${path}: ${error}`] : [];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected an array, got ${JSON.stringify(value)}`];
    return value.flatMap((item, i) => shapeErrors(item, shape[0], `${path}[${i}]`));
  }
  if (isEnum(shape)) {
    if (shape.nullable && value === null) return [];
    return shape.values.includes(value) ? [] : [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(shape.values)}`];
  }
  if (isOptional(shape)) return value === undefined || value === null ? [] : shapeErrors(value, shape.shape, path);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected an object, got ${JSON.stringify(value)}`];
  return Object.entries(shape).flatMap(([field, inner]) => shapeErrors((value as Record<string, unknown>)[field], inner, `${path}.${field}`));
}

const isEnum = (shape: object): shape is EnumShape => (shape as EnumShape).kind === 'enum' && Array.isArray((shape as EnumShape).values);
const isOptional = (shape: object): shape is OptionalShape => (shape as OptionalShape).kind === 'optional' && 'shape' in shape;
