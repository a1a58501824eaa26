// The reviewed exceptions: breaking differences from the released interface that were accepted,
// each with its reason (spec/released/breaking-exceptions.yaml). An exception names a rule, the
// operations (or `*`) and a part of the place (`where`, matched within the change's place), so
// one entry covers a schema change that shows at every operation using the schema.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Change } from './changes.js';

export interface BreakingException {
  rule: string;
  operations: string[];
  where: string;
  reason: string;
}

export function readExceptions(file: string): BreakingException[] {
  const entries = parseYaml(readFileSync(file, 'utf8')) ?? [];
  if (!Array.isArray(entries)) throw new Error(`${file}: a list of {rule, operations, where, reason}`);
  return entries.map((entry, i) => {
    const operations = entry?.operations === undefined ? ['*'] : [entry.operations].flat();
    if (typeof entry?.rule !== 'string' || typeof entry?.where !== 'string' || typeof entry?.reason !== 'string' || entry.reason.trim().length < 20 || operations.some((o) => typeof o !== 'string')) {
      throw new Error(`${file}: entry ${i + 1} needs rule, where (text), operations (list, or left out for all) and a reason a reviewer can read`);
    }
    return { rule: entry.rule, operations, where: entry.where, reason: entry.reason.trim() };
  });
}

export function excuses(exception: BreakingException, change: Change): boolean {
  return exception.rule === change.rule
    && (exception.operations.includes('*') || exception.operations.includes(change.operation))
    && change.where.includes(exception.where);
}

export interface Verdict {
  /** Breaking changes no exception covers: the gate fails on them. */
  unexcused: Change[];
  /** Exceptions covering no change any more: the gate fails until they are removed. */
  stale: BreakingException[];
  excused: { exception: BreakingException; changes: Change[] }[];
}

export function judge(changes: Change[], exceptions: BreakingException[]): Verdict {
  const breaking = changes.filter((c) => c.kind === 'breaking');
  const excused = exceptions.map((exception) => ({ exception, changes: breaking.filter((c) => excuses(exception, c)) }));
  return {
    unexcused: breaking.filter((c) => !exceptions.some((e) => excuses(e, c))),
    stale: excused.filter((e) => e.changes.length === 0).map((e) => e.exception),
    excused: excused.filter((e) => e.changes.length > 0),
  };
}

/** One breaking change as the gate prints it: the rule, the place, and why it breaks a client. */
export function describe(change: Change): string {
  return `${change.rule}  ${change.operation}${change.where ? `  (${change.where})` : ''}\n    ${change.sentence}`;
}
