// The request checks prepared at start-up (server/request-validation.ts) must answer exactly as
// openapi-backend's validateRequest does: every operation of the spec, with path values, query
// values and bodies both valid and not, through a contract with plans and one without.
import t from 'tap';
import { operations } from '../../generated/operations.js';
import { Contract } from '../../server/contract.js';
import { schemaSample } from '../helpers/schema-sample.js';

const prepared = await Contract.load();
const reference = await Contract.load(undefined, { prepared: false });
const spec = prepared.document as Record<string, any>;

const PATH_VALUES = ['1', '42', 'abc', '-3', '0', '9007199254740993', 'a%20b', '%00', '1.5', ''];
const QUERY_VALUES: unknown[] = ['1', '20', 'x', '', 'true', '2025-01-31', '2025-01-31T10:00:00Z', 'USD', '1,2', ['1', '2'], ['a'], '-1', '100000'];

const sample = (schema: Record<string, any> | undefined, wrong: boolean) => schemaSample(prepared, schema, wrong);

function bodiesOf(operationId: string): unknown[] {
  const schema = prepared.resolve(prepared.requestSchema(operationId, 'application/json'));
  const properties = Object.entries(schema?.properties ?? {}) as [string, Record<string, any>][];
  const full = Object.fromEntries(properties.map(([name, s]) => [name, sample(s, false)]));
  const bodies: unknown[] = [undefined, {}, null, [], { unknown_field: 'x' }, full, { ...full, name: 'a\u0000b' }];
  for (const [name, s] of properties) bodies.push({ ...full, [name]: sample(s, true) });
  return bodies;
}

function queryParameters(path: string, method: string): Record<string, any>[] {
  const item = spec.paths[path];
  return [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p) => prepared.resolve(p)!).filter((p) => p.in === 'query');
}

const checked = { requests: 0, prepared: 0 };
for (const op of operations) {
  if (prepared.isPrepared(op.operationId)) checked.prepared++;
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const paths = PATH_VALUES.map((value) => names.reduce((path, name) => path.replace(`{${name}}`, value), op.path));
  const queries: Record<string, unknown>[] = [{}, { not_declared: '1' }];
  for (const parameter of queryParameters(op.path, op.method.toLowerCase())) {
    for (const value of QUERY_VALUES) queries.push({ [parameter.name]: value });
    queries.push({ [parameter.name]: sample(parameter.schema, false) });
  }
  const results: { prepared: unknown; reference: unknown; request: unknown }[] = [];
  const cases = [
    ...paths.map((path) => ({ path, query: {}, body: undefined as unknown })),
    ...queries.map((query) => ({ path: paths[0], query, body: undefined as unknown })),
    ...bodiesOf(op.operationId).map((body) => ({ path: paths[0], query: {}, body })),
  ];
  for (const request of cases) {
    // a conditional GET's If-None-Match (a header parameter): a tag, `*`, and a list as an array
    const conditional = op.conditional ? [{ 'if-none-match': 'W/"abc"' }, { 'if-none-match': '*' }, { 'if-none-match': ['"a"', '"b"'] }] : [];
    for (const headers of [{}, { 'content-type': 'application/json' }, ...conditional]) {
      // both get their own copies: validators coerce values in place
      const check = (contract: Contract) =>
        contract.checkRequest(op.operationId, { method: op.method, path: request.path, headers, query: structuredClone(request.query), body: structuredClone(request.body) });
      results.push({ prepared: check(prepared), reference: check(reference), request: { ...request, headers } });
      checked.requests++;
    }
  }
  const differing = results.filter((r) => JSON.stringify(r.prepared) !== JSON.stringify(r.reference));
  t.same(differing, [], `${op.operationId}: the prepared check answers as openapi-backend does`);
}

t.ok(checked.prepared >= operations.length - 2, `nearly every operation is prepared (${checked.prepared} of ${operations.length})`);
t.ok(prepared.isPrepared('getCurrentUser') && prepared.isPrepared('listTransactions'), 'the hot routes are prepared');
t.ok(checked.requests > 5000, `${checked.requests} requests compared`);
