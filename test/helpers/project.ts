// Where the tests find the project, whether they run from their TypeScript sources (tsx, e.g.
// `npx tap test/groups.test.ts`) or from the copy scripts/test.ts transpiles once into
// .tap/build-<pid>/ for a whole run. Files the tests read (fixtures, the spec, the migrations) and
// write (.tap/) are the project's; programs they start (the service, the admin CLI) are
// taken from the same tree as the test itself.
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The tree this module runs from: the project itself, or .tap/build-<pid>. */
const OWN_TREE = path.resolve(import.meta.dirname, '..', '..');
const TRANSPILED = import.meta.filename.endsWith('.js');

/** The project's root folder (the one with package.json). */
export const PROJECT_ROOT = TRANSPILED ? path.resolve(OWN_TREE, '..', '..') : OWN_TREE;
if (!existsSync(path.join(PROJECT_ROOT, 'package.json'))) throw new Error(`no package.json in ${PROJECT_ROOT}`);

/** A path inside the project. */
export const inProject = (...parts: string[]): string => path.join(PROJECT_ROOT, ...parts);

/** Node's arguments that run one of the project's TypeScript programs (`server/main.ts`) from the tree the tests run from. */
export function nodeArgsFor(program: string): string[] {
  return TRANSPILED ? [path.join(OWN_TREE, program.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', path.join(OWN_TREE, program)];
}
