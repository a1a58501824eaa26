// Printed after a test run (scripts/test.ts): which operations of the spec no test has
// called, from the records the test harness leaves in .tap/operation-coverage.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '../generated/operations.js';
import { COVERAGE_DIR } from '../test/helpers/harness.js';

export function reportOperationCoverage(dir = COVERAGE_DIR): void {
  const called = new Map<string, Set<string>>();
  if (existsSync(dir)) {
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        const [operationId, status] = line.split(' ');
        if (!operationId) continue;
        const statuses = called.get(operationId) ?? new Set<string>();
        statuses.add(status);
        called.set(operationId, statuses);
      }
    }
  }
  const missing = operations.filter((op) => !called.has(op.operationId));
  console.log(`\nOperation coverage: ${operations.length - missing.length} of ${operations.length} operations called by tests.`);
  if (missing.length > 0) {
    console.log('Never called:');
    for (const op of missing) console.log(`  ${op.operationId.padEnd(32)} ${op.method} /api${op.path}`);
  }
}

if (process.argv[1] === import.meta.filename) reportOperationCoverage();
