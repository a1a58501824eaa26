// What changed between two bundled OpenAPI 3.0 documents, as named rules (after oasdiff's list)
// a person can read: api-smart-diff finds every difference (with $refs followed, so a schema
// change shows at each operation that uses it); this file says, for each one under `paths` or
// the root `security`, which rule it is, where it is, whether it breaks a client generated from
// the older document, and a sentence saying why. Differences under `components` are left out:
// without the operation around them, request and response cannot be told apart (api-smart-diff
// then calls every added property breaking), and each one that matters shows under `paths`.
import { merge } from 'allof-merge';
import { apiDiff, type Diff } from 'api-smart-diff';

export type ChangeKind = 'breaking' | 'addition' | 'deprecation' | 'other';

export interface Change {
  rule: string;
  kind: ChangeKind;
  /** `GET /v1/wallets`, or `*` for a change to every operation (root security). */
  operation: string;
  /** Where in the operation: `request body: data.name`, `response 200: data.files[].model`, `parameter query limit`. */
  where: string;
  sentence: string;
  /** api-smart-diff's own classification, kept to show where the rules here differ from it. */
  library: Diff['type'];
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

type Context = 'request' | 'response';
interface Docs {
  before: any;
  after: any;
}

/** `data.files[].model` from the schema part of a diff path. */
function schemaLocation(segments: string[]): string {
  let out = '';
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    if (s === 'properties' && i + 1 < segments.length) out += `${out ? '.' : ''}${segments[++i]}`;
    else if (s === 'items') out += '[]';
    else if (s === 'additionalProperties') out += '{*}';
    else if ((s === 'allOf' || s === 'anyOf' || s === 'oneOf') && i + 1 < segments.length) i++;
    else break;
  }
  return out;
}

const join = (where: string, property: string) => (property ? `${where}: ${property}` : where);

/** Rule of a difference inside a request or response schema. */
function schemaChange(context: Context, where: string, segs: string[], diff: Diff, docs: Docs): Omit<Change, 'operation' | 'library'> {
  const property = schemaLocation(segs);
  const last = segs.at(-1) ?? '';
  const parent = segs.at(-2) ?? '';
  const place = join(where, property);
  const named = (name: unknown) => join(where, property ? `${property}.${name}` : String(name));
  const request = context === 'request';
  const { action } = diff;
  if (parent === 'required') {
    const name = action === 'remove' ? diff.before : diff.after;
    if (action === 'add' || action === 'replace') {
      return request
        ? { rule: 'request-property-became-required', kind: 'breaking', where: named(name), sentence: `\`${name}\` is now required in the request: a client that does not send it is refused.` }
        : { rule: 'response-property-became-required', kind: 'addition', where: named(name), sentence: `\`${name}\` is now always in the response.` };
    }
    return request
      ? { rule: 'request-property-became-optional', kind: 'addition', where: named(name), sentence: `\`${name}\` may now be left out of the request.` }
      : { rule: 'response-property-became-optional', kind: 'breaking', where: named(name), sentence: `\`${name}\` may now be missing from the response, which clients read as always there.` };
  }
  if (parent === 'properties') {
    if (action === 'add') {
      return request
        ? { rule: 'request-property-added', kind: 'addition', where: place, sentence: `The request accepts \`${last}\`.` }
        : { rule: 'response-property-added', kind: 'addition', where: place, sentence: `The response has \`${last}\`.` };
    }
    if (action === 'remove') {
      return request
        ? { rule: 'request-property-removed', kind: 'breaking', where: place, sentence: `\`${last}\` is no longer accepted in the request: a client that sends it is refused.` }
        : { rule: 'response-property-removed', kind: 'breaking', where: place, sentence: `\`${last}\` is no longer in the response: a client that reads it finds nothing.` };
    }
  }
  // a list of values where there was none narrows (an `enum: [null]` on a null-only field), one removed widens
  if (parent === 'enum' && action === 'add' && !Array.isArray(at(docs.before, diff.path.slice(0, -1)))) return schemaChange(context, where, segs.slice(0, -1), { ...diff, action: 'add' }, docs);
  if (parent === 'enum' && action === 'remove' && !Array.isArray(at(docs.after, diff.path.slice(0, -1)))) return schemaChange(context, where, segs.slice(0, -1), { ...diff, action: 'remove' }, docs);
  if (parent === 'enum' || last === 'enum') {
    const value = JSON.stringify(parent === 'enum' ? (action === 'remove' ? diff.before : diff.after) : undefined) ?? 'the list';
    const added = action === 'add' && parent === 'enum';
    const removed = action === 'remove' && parent === 'enum';
    if (request) {
      if (added || (last === 'enum' && action === 'remove')) return { rule: 'request-enum-widened', kind: 'addition', where: place, sentence: `The request accepts the value ${value} at \`${property || where}\`.` };
      return { rule: 'request-enum-narrowed', kind: 'breaking', where: place, sentence: removed ? `The value ${value} is no longer accepted at \`${property || where}\`: a client that sends it is refused.` : `The values accepted at \`${property || where}\` changed: a client sending one of the old ones is refused.` };
    }
    if (last === 'enum' && action === 'add') {
      const values = at(docs.after, diff.path.slice(0, diff.path.lastIndexOf('enum') + 1));
      return { rule: 'response-enum-narrowed', kind: 'addition', where: place, sentence: `\`${property || where}\` now lists the values it takes: ${JSON.stringify(values)}.` };
    }
    if (removed) return { rule: 'response-enum-narrowed', kind: 'addition', where: place, sentence: `The response no longer sends ${value} at \`${property || where}\`.` };
    return { rule: 'response-enum-widened', kind: 'breaking', where: place, sentence: added ? `The response may send the new value ${value} at \`${property || where}\`, which a client decoding the listed values rejects.` : `The values the response sends at \`${property || where}\` changed, which a client decoding the listed values rejects.` };
  }
  // a type or format taken off a request field widens it; put on a response field, narrows it
  if ((last === 'type' || last === 'format') && (request ? action === 'remove' : action === 'add')) {
    return { rule: `${context}-${last}-${request ? 'removed' : 'added'}`, kind: request ? 'addition' : 'other', where: place, sentence: request ? `\`${property || where}\` is no longer limited to ${last} ${diff.before}.` : `\`${property || where}\` is now always of ${last} ${diff.after}.` };
  }
  if (last === 'type') {
    return { rule: `${context}-type-changed`, kind: 'breaking', where: place, sentence: `The type of \`${property || where}\` changed from ${diff.before ?? 'any'} to ${diff.after ?? 'any'}.` };
  }
  if (last === 'format') {
    return { rule: `${context}-format-changed`, kind: 'breaking', where: place, sentence: `The format of \`${property || where}\` changed from ${diff.before ?? 'none'} to ${diff.after ?? 'none'}.` };
  }
  if (last === 'nullable') {
    const nowNullable = diff.after === true;
    if (request) return nowNullable ? { rule: 'request-property-became-nullable', kind: 'addition', where: place, sentence: `\`${property}\` may now be null in the request.` } : { rule: 'request-property-became-not-nullable', kind: 'breaking', where: place, sentence: `\`${property}\` may no longer be null in the request: a client that sends null is refused.` };
    return nowNullable ? { rule: 'response-property-became-nullable', kind: 'breaking', where: place, sentence: `\`${property}\` may now be null in the response, which a client reading a value does not expect.` } : { rule: 'response-property-became-not-nullable', kind: 'addition', where: place, sentence: `\`${property}\` is no longer null in the response.` };
  }
  if (last === 'deprecated') {
    return diff.after === true
      ? { rule: `${context}-property-deprecated`, kind: 'deprecation', where: place, sentence: `\`${property}\` is deprecated.` }
      : { rule: `${context}-property-undeprecated`, kind: 'other', where: place, sentence: `\`${property}\` is no longer deprecated.` };
  }
  const constraints = ['maxLength', 'minLength', 'maximum', 'minimum', 'maxItems', 'minItems', 'pattern', 'multipleOf', 'additionalProperties', 'uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum'];
  if (constraints.includes(last)) {
    const kind: ChangeKind = request && diff.type === 'breaking' ? 'breaking' : 'other';
    return { rule: `${context}-${last}-changed`, kind, where: place, sentence: `\`${last}\` of \`${property || where}\` changed from ${JSON.stringify(diff.before) ?? 'none'} to ${JSON.stringify(diff.after) ?? 'none'}${kind === 'breaking' ? ': a request valid before may now be refused' : ''}.` };
  }
  if (['description', 'example', 'examples', 'title', 'default', 'externalDocs'].includes(last) || last.startsWith('x-')) {
    return { rule: 'annotation', kind: 'other', where: place, sentence: `${last} changed.` };
  }
  const kind: ChangeKind = diff.type === 'breaking' ? 'breaking' : diff.type === 'non-breaking' ? 'addition' : 'other';
  return { rule: `${context}-schema-changed`, kind, where: place, sentence: `The schema at \`${property || where}\` changed (${action} ${segs.slice(-2).join('/')}).` };
}

/** The document at a JSON path, following local `$ref`s on the way (diff paths run through them). */
function at(doc: any, segments: readonly (string | number)[]): any {
  const follow = (node: any): any => (typeof node?.$ref === 'string' && node.$ref.startsWith('#/') ? follow(node.$ref.slice(2).split('/').map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~')).reduce((n: any, s: string) => n?.[s], doc)) : node);
  return segments.reduce((node, s) => follow(follow(node)?.[s]), doc);
}

/** A node of `doc`, its `$ref` followed. */
function resolveIn(doc: any, node: any): any {
  return typeof node?.$ref === 'string' ? at(doc, node.$ref.slice(2).split('/').map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'))) : node;
}

function operationChange(before: any, after: any, diff: Diff, segs: string[]): Omit<Change, 'library'> | undefined {
  const [, specPath, method, ...rest] = segs;
  const operation = `${method.toUpperCase()} ${specPath}`;
  const base = { operation };
  if (rest.length === 0) {
    if (diff.action === 'add') return { ...base, rule: 'operation-added', kind: 'addition', where: '', sentence: `New operation ${at(after, ['paths', specPath, method, 'operationId']) ?? ''}.`.replace(' .', '.') };
    if (diff.action === 'remove') return { ...base, rule: 'operation-removed', kind: 'breaking', where: '', sentence: 'The operation is gone: a client calling it gets 404.' };
  }
  const [section, key, ...more] = rest;
  if (section === 'operationId') return { ...base, rule: 'operation-id-changed', kind: 'breaking', where: '', sentence: `operationId changed from ${diff.before} to ${diff.after}: an SDK generated from the spec renames its method.` };
  if (section === 'deprecated') return diff.after === true ? { ...base, rule: 'operation-deprecated', kind: 'deprecation', where: '', sentence: 'The operation is deprecated.' } : { ...base, rule: 'operation-undeprecated', kind: 'other', where: '', sentence: 'The operation is no longer deprecated.' };
  if (section === 'security') return { ...base, rule: 'security-changed', kind: diff.type === 'breaking' || diff.type === 'unclassified' ? 'breaking' : 'other', where: 'security', sentence: 'The operation\'s security requirements changed: a client that authenticated as before may be refused.' };
  if (section === 'parameters' && key !== undefined) {
    // api-smart-diff numbers a parameter present on both sides by its place in the older list
    const list = diff.action === 'add' && more.length === 0 ? [after, before] : [before, after];
    const added = more.length === 0 ? (diff.action === 'remove' ? resolveIn(before, diff.before) : resolveIn(after, diff.after)) : undefined;
    const parameter = added ?? at(list[0], ['paths', specPath, method, 'parameters', key]) ?? at(list[1], ['paths', specPath, method, 'parameters', key]) ?? at(list[0], ['paths', specPath, 'parameters', key]) ?? {};
    const where = `parameter ${parameter.in} ${parameter.name}`;
    if (more.length === 0) {
      // the same URL with its path parameter named differently (api-smart-diff matches `{id}` to `{key}`)
      if (diff.action === 'add' && parameter.in === 'path') return { ...base, rule: 'request-path-parameter-renamed', kind: 'breaking', where, sentence: `The path parameter is now named \`${parameter.name}\`: the URL is the same, but an SDK generated from the spec names its argument differently.` };
      if (diff.action === 'remove' && parameter.in === 'path') return undefined;
      if (diff.action === 'add') return parameter.required ? { ...base, rule: 'request-parameter-required-added', kind: 'breaking', where, sentence: `The new parameter \`${parameter.name}\` is required: a client that does not send it is refused.` } : { ...base, rule: 'request-parameter-added', kind: 'addition', where, sentence: `The operation accepts the ${parameter.in} parameter \`${parameter.name}\`.` };
      if (diff.action === 'remove') return { ...base, rule: 'request-parameter-removed', kind: 'breaking', where, sentence: `The parameter \`${parameter.name}\` is no longer accepted.` };
    }
    if (more[0] === 'required') return diff.after === true ? { ...base, rule: 'request-parameter-became-required', kind: 'breaking', where, sentence: `\`${parameter.name}\` is now required: a client that does not send it is refused.` } : { ...base, rule: 'request-parameter-became-optional', kind: 'addition', where, sentence: `\`${parameter.name}\` may now be left out.` };
    if (more[0] === 'deprecated') return diff.after === true ? { ...base, rule: 'request-parameter-deprecated', kind: 'deprecation', where, sentence: `The parameter \`${parameter.name}\` is deprecated.` } : { ...base, rule: 'request-parameter-undeprecated', kind: 'other', where, sentence: `The parameter \`${parameter.name}\` is no longer deprecated.` };
    if (more[0] === 'in' || more[0] === 'name') return { ...base, rule: 'request-parameter-moved', kind: 'breaking', where, sentence: `The parameter's ${more[0]} changed from ${diff.before} to ${diff.after}.` };
    if (more[0] === 'schema') return { ...base, ...schemaChange('request', where, more.slice(1), diff, { before, after }) };
    return { ...base, rule: 'annotation', kind: 'other', where, sentence: `${more.join('/')} changed.` };
  }
  if (section === 'requestBody') {
    const where = 'request body';
    if (key === undefined) return diff.action === 'add' && diff.after?.required ? { ...base, rule: 'request-body-required-added', kind: 'breaking', where, sentence: 'The operation now requires a request body.' } : { ...base, rule: diff.action === 'remove' ? 'request-body-removed' : 'request-body-added', kind: diff.action === 'remove' ? 'breaking' : 'addition', where, sentence: diff.action === 'remove' ? 'The operation no longer takes a request body.' : 'The operation accepts a request body.' };
    if (key === 'required') return diff.after === true ? { ...base, rule: 'request-body-became-required', kind: 'breaking', where, sentence: 'The request body is now required.' } : { ...base, rule: 'request-body-became-optional', kind: 'addition', where, sentence: 'The request body may now be left out.' };
    if (key === 'content' && more.length === 1) return diff.action === 'remove' ? { ...base, rule: 'request-media-type-removed', kind: 'breaking', where: `${where} ${more[0]}`, sentence: `The request body may no longer be ${more[0]}.` } : { ...base, rule: 'request-media-type-added', kind: 'addition', where: `${where} ${more[0]}`, sentence: `The request body may also be ${more[0]}.` };
    if (key === 'content' && more[1] === 'schema') return { ...base, ...schemaChange('request', where, more.slice(2), diff, { before, after }) };
    return { ...base, rule: 'annotation', kind: 'other', where, sentence: `${rest.join('/')} changed.` };
  }
  if (section === 'responses' && key !== undefined) {
    const where = `response ${key}`;
    const success = /^2/.test(key);
    if (more.length === 0) {
      if (diff.action === 'add') return { ...base, rule: 'response-status-added', kind: 'addition', where, sentence: `The operation may answer ${key}.` };
      if (diff.action === 'remove') return success ? { ...base, rule: 'response-success-status-removed', kind: 'breaking', where, sentence: `The operation no longer answers ${key}: a client waiting for it sees an unexpected status.` } : { ...base, rule: 'response-non-success-status-removed', kind: 'other', where, sentence: `The operation no longer documents ${key}.` };
    }
    if (more[0] === 'content' && more.length === 2) return diff.action === 'remove' ? { ...base, rule: 'response-media-type-removed', kind: success ? 'breaking' : 'other', where: `${where} ${more[1]}`, sentence: `The ${key} answer is no longer ${more[1]}.` } : { ...base, rule: 'response-media-type-added', kind: 'addition', where: `${where} ${more[1]}`, sentence: `The ${key} answer may also be ${more[1]}.` };
    if (more[0] === 'content' && more[2] === 'schema') return { ...base, ...schemaChange('response', where, more.slice(3), diff, { before, after }) };
    if (more[0] === 'headers' && more.length === 2) return diff.action === 'remove' ? { ...base, rule: 'response-header-removed', kind: success ? 'breaking' : 'other', where: `${where} header ${more[1]}`, sentence: `The ${key} answer no longer has the header ${more[1]}.` } : { ...base, rule: 'response-header-added', kind: 'addition', where: `${where} header ${more[1]}`, sentence: `The ${key} answer has the header ${more[1]}.` };
    return { ...base, rule: 'annotation', kind: 'other', where, sentence: `${more.join('/')} changed.` };
  }
  return { ...base, rule: 'annotation', kind: 'other', where: rest.join('/'), sentence: `${rest.join('/')} changed.` };
}

/** `allOf`s merged into one schema (as api-smart-diff's author's allof-merge does), so that
 * wrapping a `$ref` in `allOf` to describe it is no change; api-smart-diff alone reported it. */
function mergedAllOf(document: unknown): any {
  return merge(document, { mergeRefSibling: true, mergeCombinarySibling: true });
}

/** Every difference between two bundled documents, as rules; each (rule, operation, where) once. */
export function compareSpecs(beforeDocument: unknown, afterDocument: unknown): Change[] {
  const before = mergedAllOf(beforeDocument);
  const after = mergedAllOf(afterDocument);
  // apiDiff writes into the documents it compares (an empty `enum` where one side has none):
  // it gets copies, and the lookups here read the documents as they are
  const changes: Change[] = [];
  for (const diff of apiDiff(structuredClone(before), structuredClone(after))) {
    const segs = diff.path.map(String);
    const library = diff.type;
    if (segs[0] === 'security') {
      changes.push({ rule: 'security-changed', kind: 'breaking', operation: '*', where: 'security', sentence: 'The default security requirements changed: a client that authenticated as before may be refused.', library });
    } else if (segs[0] === 'paths' && segs.length === 2) {
      // a whole path: one change per operation under it
      const item = diff.action === 'remove' ? diff.before : diff.after;
      for (const method of Object.keys(item ?? {}).filter((m) => METHODS.has(m))) {
        const change = operationChange(before, after, { ...diff, path: [...diff.path, method], before: before.paths?.[segs[1]]?.[method], after: after.paths?.[segs[1]]?.[method] }, [...segs, method]);
        if (change) changes.push({ ...change, library });
      }
    } else if (segs[0] === 'paths' && METHODS.has(segs[2])) {
      const change = operationChange(before, after, diff, segs);
      if (change) changes.push({ ...change, library });
    } else if (segs[0] === 'paths' && segs[2] === 'parameters') {
      // path-level parameters: as if on every operation of the path
      for (const method of Object.keys(after.paths?.[segs[1]] ?? before.paths?.[segs[1]] ?? {}).filter((m) => METHODS.has(m))) {
        const change = operationChange(before, after, diff, [segs[0], segs[1], method, ...segs.slice(2)]);
        if (change) changes.push({ ...change, library });
      }
    }
  }
  const seen = new Set<string>();
  const places = (rule: string) => new Set(changes.filter((c) => c.rule === rule).map((c) => `${c.operation} ${c.where}`));
  // one change where a property came or went, not two (its `required` entry is the same event)
  const folded: Record<string, Set<string>> = {
    'response-property-became-optional': places('response-property-removed'),
    'response-property-became-required': places('response-property-added'),
    'request-property-added': places('request-property-became-required'),
  };
  return changes.filter((c) => {
    const key = `${c.rule} ${c.operation} ${c.where}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return !folded[c.rule]?.has(`${c.operation} ${c.where}`);
  });
}
