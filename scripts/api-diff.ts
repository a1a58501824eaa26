// `make api-diff`: the breaking-change gate. Compares the bundled spec (generated/openapi.json)
// with the interface as first released (spec/released/1.1.2.json) and fails on any change that
// breaks a client generated from it, unless spec/released/breaking-exceptions.yaml accepts it
// with a reason; an exception that covers nothing any more fails too. It also fails when
// docs/api-changelog.md is not what the difference gives.
// `make changelog` (this script with --changelog) rewrites docs/api-changelog.md.
//   --baseline FILE --current FILE --exceptions FILE compare other documents (the tests'
//   fixtures); --no-changelog skips the changelog.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareSpecs } from './contract/changes.js';
import { renderChangelog } from './contract/changelog.js';
import { describe, judge, readExceptions } from './contract/exceptions.js';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({
  options: {
    baseline: { type: 'string', default: path.join(root, 'spec', 'released', '1.1.2.json') },
    current: { type: 'string', default: path.join(root, 'generated', 'openapi.json') },
    exceptions: { type: 'string', default: path.join(root, 'spec', 'released', 'breaking-exceptions.yaml') },
    changelog: { type: 'boolean', default: false },
    'no-changelog': { type: 'boolean', default: false },
  },
});
const changelogFile = path.join(root, 'docs', 'api-changelog.md');

const started = process.hrtime.bigint();
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const current = readJson(options.current);
const changes = compareSpecs(readJson(options.baseline), current);
const verdict = judge(changes, existsSync(options.exceptions) ? readExceptions(options.exceptions) : []);
const elapsed = () => `${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`;
let failed = false;

if (options.changelog) {
  writeFileSync(changelogFile, renderChangelog(changes, verdict, current, path.relative(root, options.baseline)));
  console.log(`docs/api-changelog.md written (${changes.filter((c) => c.kind === 'addition').length} additions, ${changes.filter((c) => c.kind === 'deprecation').length} deprecations)`);
}

for (const change of verdict.unexcused) console.log(`BREAKING ${describe(change)}`);
for (const exception of verdict.stale) console.log(`STALE EXCEPTION ${exception.rule} at ${exception.where}: it covers no change any more; remove it from ${path.relative(root, options.exceptions)}`);
if (verdict.unexcused.length > 0 || verdict.stale.length > 0) {
  failed = true;
  if (verdict.unexcused.length > 0) console.log(`\n${verdict.unexcused.length} breaking change(s) for clients of 1.1.2. Make the change additive (a new optional field, a new operation, a new value only in requests), or, if no client can depend on the old form, add an entry with its reason to ${path.relative(root, options.exceptions)} for review.`);
}

if (!options.changelog && !options['no-changelog']) {
  const expected = renderChangelog(changes, verdict, current, path.relative(root, options.baseline));
  if (!existsSync(changelogFile) || readFileSync(changelogFile, 'utf8') !== expected) {
    failed = true;
    console.log('docs/api-changelog.md is stale: run `make changelog` and commit it');
  }
}

const count = (kind: string) => changes.filter((c) => c.kind === kind).length;
console.log(`api-diff: ${count('addition')} additions, ${count('deprecation')} deprecations, ${count('breaking')} breaking (${count('breaking') - verdict.unexcused.length} accepted by ${verdict.excused.length} exceptions) in ${elapsed()}`);
process.exit(failed ? 1 : 0);
