// Multipart bodies arrive as text fields and files. Before validation, the fields become the
// typed body the operation's multipart schema describes (`categories[]` → an array of
// integers, "12.0" → 12, "true" → true, a list of objects from JSON text) and the files are set aside for the handler, so a
// handler reads a multipart request exactly as it reads the JSON one.

export interface UploadedFile {
  field: string;
  filename: string;
  /** As the client declared it; trust `sniffUpload` on the bytes instead. */
  declaredType: string;
  data: Buffer;
}

export type UploadedFiles = Record<string, UploadedFile[]>;

interface FieldPart {
  type: 'field';
  fieldname: string;
  value: unknown;
}
interface FilePart {
  type: 'file';
  fieldname: string;
  filename: string;
  mimetype: string;
  toBuffer(): Promise<Buffer>;
}
type Part = FieldPart | FilePart;

type Schema = Record<string, any>;
export type SchemaResolver = (schema: Schema | undefined) => Schema | undefined;

/** Splits parsed multipart parts into a body typed by `schema` and the uploaded files. */
export async function readMultipart(
  parts: Record<string, Part | Part[]> | undefined,
  schema: Schema | undefined,
  resolve: SchemaResolver,
): Promise<{ body: Record<string, unknown>; files: UploadedFiles }> {
  const body: Record<string, unknown> = {};
  const files: UploadedFiles = {};
  const properties = collectProperties(resolve(schema), resolve);
  for (const [rawName, value] of Object.entries(parts ?? {})) { // a form with no part at all is an empty body
    const name = rawName.endsWith('[]') ? rawName.slice(0, -2) : rawName;
    for (const part of Array.isArray(value) ? value : [value]) {
      if (part.type === 'file') {
        (files[name] ??= []).push({ field: name, filename: part.filename, declaredType: part.mimetype, data: await part.toBuffer() });
        // The file's name stands in the body, so required file fields and item limits validate;
        // it goes under the spelling the schema uses (`files` or `files[]`).
        const key = rawName in properties || !(name in properties) ? rawName : name;
        const schema = resolve(properties[key]);
        if (schema?.type === 'array' || rawName.endsWith('[]')) ((body[key] ??= []) as unknown[]).push(part.filename);
        else body[key] = part.filename;
        continue;
      }
      // Forms name list parts `key[]`; the schema may use either spelling.
      const propertySchema = resolve(properties[name] ?? properties[rawName]);
      if (propertySchema?.type === 'array' || rawName.endsWith('[]')) {
        const list = (body[name] ??= []) as unknown[];
        const itemSchema = resolve(propertySchema?.items);
        const item = coerce(part.value, itemSchema);
        // a list of objects may come as one part holding the JSON array (`splits`)
        if (Array.isArray(item) && itemSchema?.type === 'object') list.push(...item);
        else if (item !== undefined) list.push(item);
      } else {
        const coerced = coerce(part.value, propertySchema);
        if (coerced !== undefined) body[name] = coerced;
      }
    }
  }
  return { body, files };
}

/** Top-level properties of a schema, through allOf. */
function collectProperties(schema: Schema | undefined, resolve: SchemaResolver): Record<string, Schema> {
  if (!schema) return {};
  const out: Record<string, Schema> = { ...(schema.properties ?? {}) };
  for (const part of schema.allOf ?? []) Object.assign(out, collectProperties(resolve(part), resolve));
  return out;
}

/** A text field as the type its schema wants; left as text when it does not fit (validation then says why). */
function coerce(value: unknown, schema: Schema | undefined): unknown {
  if (typeof value !== 'string') return value;
  const type = schema?.type ?? schema?.anyOf?.find((s: Schema) => s.type && !s.enum?.includes(null))?.type;
  if (value === '' && type !== 'string') return undefined; // an empty field is an absent one
  switch (type) {
    case 'integer':
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      return value;
    case 'object':
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}
