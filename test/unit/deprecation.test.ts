// Deprecation from the spec to the headers: what `make generate` reads of `deprecated` and
// `x-deprecation` (scripts/contract/deprecations.ts) and the headers an answer then carries
// (server/deprecation.ts). The HTTP side is in test/asset-prices.test.ts (a deprecated parameter).
import t from 'tap';
import type { OperationInfo } from '../../generated/operations.js';
import { deprecationOf, noteDeprecations } from '../../scripts/contract/deprecations.js';
import { deprecationHeaders } from '../../server/deprecation.js';

const spec = {
  components: {
    schemas: {
      Wallet: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string', deprecated: true, 'x-deprecation': { date: '2026-12-01', sunset: '2027-06-30' } } } },
    },
  },
};
const json = (schema: object) => ({ content: { 'application/json': { schema } } });

t.test('what the spec marks: the operation, a property of an answer, a query parameter', async (t) => {
  const plain = { responses: { '200': { description: 'ok', ...json({ type: 'object' }) } } };
  t.equal(deprecationOf(spec, plain, {}, 'GET /a'), undefined);
  const operation = { deprecated: true, 'x-deprecation': { date: '2026-11-28' }, responses: {} };
  t.same(deprecationOf(spec, operation, {}, 'GET /a'), { date: '2026-11-28' });
  const property = { responses: { '200': { description: 'ok', ...json({ type: 'array', items: { $ref: '#/components/schemas/Wallet' } }) } } };
  t.same(deprecationOf(spec, property, {}, 'GET /a'), { date: '2026-12-01', sunset: '2027-06-30' }, 'through $ref and items');
  const parameter = { parameters: [{ name: 'query', in: 'query', deprecated: true, 'x-deprecation': { date: '2026-11-28' } }], responses: {} };
  t.same(deprecationOf(spec, parameter, {}, 'GET /a'), { date: '2026-11-28', parameters: ['query'] });
  t.throws(() => deprecationOf(spec, { deprecated: true, responses: {} }, {}, 'GET /b'), /GET \/b: deprecated needs x-deprecation/, 'a date is required');
  const document = structuredClone(spec);
  noteDeprecations(document);
  t.match(document.components.schemas.Wallet.properties.color, { description: /Deprecated\*\* since 2026-12-01; it may be removed after 2027-06-30/ }, 'the docs show the dates');
});

t.test('the headers: Deprecation as a date, Sunset as an HTTP date, Link to the docs entry', async (t) => {
  const operation = { operationId: 'listWallets', tag: 'Wallet', deprecation: { date: '2026-12-01', sunset: '2027-06-30' } } as unknown as OperationInfo;
  t.same(deprecationHeaders(operation, {}, '/docs'), {
    deprecation: `@${Date.UTC(2026, 11, 1) / 1000}`,
    sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
    link: '</docs#/Wallet/listWallets>; rel="deprecation"; type="text/html", </docs#/Wallet/listWallets>; rel="sunset"; type="text/html"',
  });
  const byParameter = { ...operation, deprecation: { date: '2026-11-28', parameters: ['query'] } } as OperationInfo;
  t.equal(deprecationHeaders(byParameter, { q: 'x' }, '/docs'), undefined, 'a request not sending the parameter');
  t.match(deprecationHeaders(byParameter, { query: 'x' }, '/docs'), { deprecation: `@${Date.UTC(2026, 10, 28) / 1000}` });
  t.equal(deprecationHeaders({ ...operation, deprecation: undefined } as OperationInfo, {}, '/docs'), undefined);
});
