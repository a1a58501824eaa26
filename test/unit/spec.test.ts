// The contract's own rules (spec/README.md), checked on the bundled document so that every
// operation added later follows them: an SDK generated from it must be useful as it is.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { operations } from '../../generated/operations.js';
import { SPEC_FILE } from '../../server/contract.js';

const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8'));
const tags = new Set<string>(spec.tags.map((tag: { name: string }) => tag.name));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolve(node: any): any {
  while (node?.$ref) {
    node = node.$ref
      .slice(2)
      .split('/')
      .reduce((at: any, key: string) => at[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return node;
}

/** Property names a schema guarantees at its top level, through allOf. */
function topLevelProperties(schema: any): Set<string> {
  const resolved = resolve(schema);
  const names = new Set<string>(Object.keys(resolved?.properties ?? {}));
  for (const part of resolved?.allOf ?? []) for (const name of topLevelProperties(part)) names.add(name);
  return names;
}

/** What an operation lacks of the conventions; empty when it follows them all. */
function conventionProblems(path: string, item: any, op: any): string[] {
  const problems: string[] = [];
  const need = (condition: unknown, what: string) => {
    if (!condition) problems.push(what);
  };
  need(/^[a-z][A-Za-z0-9]+$/.test(op.operationId ?? ''), 'a camelCase operationId');
  need(op.tags?.length === 1 && tags.has(op.tags[0]), 'exactly one declared tag');
  need(op.summary, 'a summary');
  need(op.responses.default, 'a default error response');
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  if (!isPublic) need(op.responses['401'], '401 on an authenticated operation');
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
  if (params.some((p: any) => p.in === 'path' && p.name !== 'driver')) need(op.responses['404'], '404 with a record id');
  if (op.requestBody || params.some((p: any) => p.in === 'query')) need(op.responses['422'], '422 with input');
  if (path.includes('/admin/')) need(op.responses['403'], '403 on admin operations');
  const successes = Object.keys(op.responses).filter((status) => /^2\d\d$/.test(status));
  need(successes.length > 0, 'a success response');
  for (const status of successes) {
    const json = resolve(op.responses[status]).content?.['application/json'];
    if (!json) continue; // file downloads and exports answer their own media type
    const fields = topLevelProperties(json.schema);
    need(fields.has('success') && fields.has('message') && fields.has('data'), `the envelope with data on ${status}`);
  }
  return problems;
}

t.equal(spec.openapi, '3.0.0');
t.equal(spec.info.version, '1.1.2');
t.equal(spec.servers[0].url, '/api');

t.test('every operation follows the conventions', async (t) => {
  for (const [path, item] of Object.entries<any>(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const name = `${method.toUpperCase()} ${path} (${op.operationId})`;
      t.same(conventionProblems(path, item, op), [], name);
    }
  }
});

t.test('the operation table matches the spec', async (t) => {
  const fromSpec = Object.entries<any>(spec.paths).flatMap(([, item]) => METHODS.filter((m) => item[m]).map((m) => item[m].operationId));
  t.same([...fromSpec].sort(), operations.map((op) => op.operationId).sort());
  t.equal(new Set(fromSpec).size, fromSpec.length, 'operationIds are unique');
});

t.test('public routes are exactly the account, info, health and social-login entry points', async (t) => {
  const publicIds = operations.filter((op) => op.public).map((op) => op.operationId).sort();
  t.same(publicIds, [
    'getCloudBenefits',
    'getLiveness',
    'getOAuthRedirect',
    'getReadiness',
    'getServerInfo',
    'getServerInfoV1',
    'handleMobileOAuthCallback',
    'handleOAuthCallback',
    'listCloudPlans',
    'loginUser',
    'loginUserAuthAlias',
    'loginUserV1',
    'registerUser',
    'registerUserV1',
    'resetPassword',
    'resetPasswordV1',
    'sendPasswordResetCode',
    'sendPasswordResetCodeV1',
    'sendVerificationCode',
    'sendVerificationCodeV1',
    'verifyCode',
    'verifyCodeV1',
  ]);
});
