// What a client is told of deprecation (server/deprecation.ts sends it): an operation, a
// parameter or a schema property marked `deprecated: true` in the spec carries
// `x-deprecation: {date: YYYY-MM-DD, sunset: YYYY-MM-DD}`: `date` (required) is when it was
// deprecated, the `Deprecation` header's value (RFC 9745); `sunset` (optional) when it may go,
// the `Sunset` header (RFC 8594). `make generate` notes both in the description the docs show,
// and gives each operation the deprecation its answers carry.

export interface Deprecation {
  /** When it was deprecated (YYYY-MM-DD): the earliest of the operation's deprecated parts. */
  date: string;
  sunset?: string;
  /** Sent only with a request that uses one of these query parameters; absent: on every answer. */
  parameters?: string[];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function datesOf(node: any, name: string): { date: string; sunset?: string } {
  const mark = node['x-deprecation'];
  if (!DATE.test(mark?.date ?? '') || (mark.sunset !== undefined && !DATE.test(mark.sunset))) {
    throw new Error(`${name}: deprecated needs x-deprecation: {date: YYYY-MM-DD, sunset: YYYY-MM-DD (optional)}; the Deprecation header (RFC 9745) is that date`);
  }
  return { date: mark.date, sunset: mark.sunset };
}

/** Adds "Deprecated since ..." to the description of everything deprecated, for the docs UI. */
export function noteDeprecations(node: any, where = '#'): void {
  if (Array.isArray(node)) return node.forEach((item, i) => noteDeprecations(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return;
  if (node.deprecated === true) {
    const { date, sunset } = datesOf(node, where);
    const note = `**Deprecated** since ${date}${sunset ? `; it may be removed after ${sunset} (the \`Sunset\` header)` : ''}: answers carry a \`Deprecation\` header.`;
    node.description = node.description ? `${node.description}\n\n${note}` : note;
  }
  for (const [key, value] of Object.entries(node)) noteDeprecations(value, `${where}/${key.replace(/\//g, '~1')}`);
}

/** The deprecation an operation's answers carry, or undefined. */
export function deprecationOf(spec: any, op: any, pathItem: any, name: string): Deprecation | undefined {
  const resolve = (node: any): any => {
    while (node?.$ref) node = node.$ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
    return node;
  };
  const always: { date: string; sunset?: string }[] = [];
  const byParameter: { date: string; sunset?: string; name: string }[] = [];
  if (op.deprecated === true) always.push(datesOf(op, name));
  for (const parameter of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map(resolve)) {
    if (parameter?.deprecated === true) byParameter.push({ ...datesOf(parameter, `${name} parameter ${parameter.name}`), name: parameter.name });
  }
  // deprecated properties anywhere in the request or response schemas
  const seen = new Set<any>();
  const walk = (schema: any, at: string): void => {
    schema = resolve(schema);
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    for (const [key, property] of Object.entries<any>(schema.properties ?? {})) {
      if (resolve(property)?.deprecated === true) always.push(datesOf(resolve(property), `${name} ${at}.${key}`));
      walk(property, `${at}.${key}`);
    }
    for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) walk(part, at);
    if (schema.items) walk(schema.items, `${at}[]`);
    if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${at}{*}`);
  };
  for (const media of Object.values<any>(resolve(op.requestBody)?.content ?? {})) walk(media.schema, 'request body');
  for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
    for (const media of Object.values<any>(resolve(response)?.content ?? {})) walk(media.schema, `response ${status}`);
  }
  const all = [...always, ...byParameter];
  if (all.length === 0) return undefined;
  const sunsets = all.map((d) => d.sunset).filter((s): s is string => s !== undefined).sort();
  return {
    date: all.map((d) => d.date).sort()[0],
    ...(sunsets.length > 0 ? { sunset: sunsets[0] } : {}),
    ...(always.length === 0 ? { parameters: byParameter.map((p) => p.name) } : {}),
  };
}
