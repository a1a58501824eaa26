// `make sdk-check`: the spec as SDK generators read it. From the bundled document
// (generated/openapi.json) it generates two clients into sdk/generated/ (git-ignored):
// openapi-typescript types for openapi-fetch, and an @hey-api/openapi-ts client. Then it
// type-checks one hand-written flow per client (sdk/flows/), which calls every operation with
// the literals a consumer would write, and fails when
//   - the flows do not compile against what the generators made of the spec,
//   - a flow leaves an operation of the spec uncalled (so a new operation breaks the gate
//     until the flows cover it),
//   - a flow cheats the types: a cast (`as`, other than `as const`), `<T>x`, a non-null `!`,
//     `any`, or a `@ts-` comment.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { operations } from '../generated/operations.js';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const bundled = path.join(root, 'generated', 'openapi.json');
const out = path.join(root, 'sdk', 'generated');
const run = (command: string, args: string[]) => execFileSync(bin(command), args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
run('openapi-typescript', [bundled, '-o', path.join(out, 'openapi-typescript', 'api.ts')]);
run('openapi-ts', ['-i', bundled, '-o', path.join(out, 'hey-api'), '--silent', '--no-log-file']);

interface Flow {
  file: string;
  /** The operationIds a call in this file reaches. */
  called(source: ts.SourceFile): Set<string>;
}

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);
const byRoute = new Map(operations.map((op) => [`${op.method} ${op.path}`, op.operationId]));

/** openapi-fetch: `client.POST('/v1/wallets', ...)` names the operation by method and path. */
function openapiFetchCalls(source: ts.SourceFile): Set<string> {
  const called = new Set<string>();
  visit(source, (node) => {
    if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
    const method = node.expression.name.text;
    const [first] = node.arguments;
    if (!METHODS.has(method) || !first || !ts.isStringLiteral(first)) return;
    const operationId = byRoute.get(`${method} ${first.text}`);
    if (operationId) called.add(operationId);
  });
  return called;
}

/** @hey-api/openapi-ts: one function per operationId, imported from the generated SDK. */
function heyApiCalls(source: ts.SourceFile): Set<string> {
  const imported = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!statement.moduleSpecifier.text.includes('generated/hey-api')) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) imported.set(element.name.text, (element.propertyName ?? element.name).text);
  }
  const called = new Set<string>();
  visit(source, (node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && imported.has(node.expression.text)) {
      called.add(imported.get(node.expression.text)!);
    }
  });
  return called;
}

const flows: Flow[] = [
  { file: 'sdk/flows/openapi-fetch.flow.ts', called: openapiFetchCalls },
  { file: 'sdk/flows/hey-api.flow.ts', called: heyApiCalls },
];

function visit(node: ts.Node, fn: (node: ts.Node) => void): void {
  fn(node);
  ts.forEachChild(node, (child) => visit(child, fn));
}

/** What a flow must not use to make a call compile. */
function cheats(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const at = (node: ts.Node) => `${source.fileName}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  visit(source, (node) => {
    if (ts.isAsExpression(node) && !(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const')) {
      found.push(`${at(node)}: cast \`${node.getText(source)}\``);
    }
    if (ts.isTypeAssertionExpression(node)) found.push(`${at(node)}: cast \`${node.getText(source)}\``);
    if (ts.isNonNullExpression(node)) found.push(`${at(node)}: non-null assertion \`${node.getText(source)}\``);
    if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(`${at(node)}: \`any\``);
  });
  source.text.split('\n').forEach((line, index) => {
    if (/@ts-(ignore|expect-error|nocheck)/.test(line)) found.push(`${source.fileName}:${index + 1}: a @ts- comment`);
  });
  return found;
}

const problems: string[] = [];
for (const flow of flows) {
  const source = ts.createSourceFile(flow.file, readFileSync(path.join(root, flow.file), 'utf8'), ts.ScriptTarget.Latest, true);
  const called = flow.called(source);
  for (const op of operations) {
    if (!called.has(op.operationId)) problems.push(`${flow.file}: never calls ${op.operationId} (${op.method} ${op.path})`);
  }
  problems.push(...cheats(source));
}

try {
  execFileSync(bin('tsc'), ['-p', 'sdk/tsconfig.json'], { cwd: root, stdio: 'inherit' });
} catch {
  problems.push('sdk/flows do not type-check against the generated clients (errors above)');
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`sdk-check: ${operations.length} operations called by ${flows.map((f) => path.basename(f.file)).join(' and ')}, both type-check`);
