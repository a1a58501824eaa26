// `make dev`: the edit-generate-test loop. Serves the API from the sources and keeps it in
// step with every save:
// - a change under spec/ regenerates generated/ (scripts/generate.ts), as `make generate` does;
// - TypeScript is type-checked continuously, generated/ included, so a spec edit that a handler
//   no longer fits is reported at the handler's line: by the native compiler
//   (@typescript/native-preview's tsgo --watch, about 3x faster than tsc 5.x here; README, "The
//   edit loop"), or by tsc 5.x, the build's compiler, with DEV_TYPECHECK=tsc;
// - the service restarts (tsx watch) when a file it loads, or the bundled spec, changes.
// Each line is prefixed by where it comes from: [spec], [types] or [api].
import { spawn, type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const children: ChildProcess[] = [];

/** Starts a program whose every output line is printed with a prefix. */
function run(prefix: string, command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, FORCE_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      // Redocly's framed notice about the Node.js version says nothing about the spec
      if (line.trim() !== '' && !/[║╔╚]/.test(line)) console.log(`${prefix} ${line}`);
    });
  }
  children.push(child);
  child.once('exit', () => children.splice(children.indexOf(child), 1));
  return child;
}

let generating: ChildProcess | undefined;
let again = false;
/** Regenerates generated/ from spec/; a change made while it runs starts one more run after it. */
function regenerate(): void {
  if (generating) {
    again = true;
    return;
  }
  console.log('[spec] spec/ changed: regenerating generated/');
  generating = run('[spec]', process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'generate.ts')]);
  generating.once('exit', (code) => {
    console.log(code === 0 ? '[spec] generated/ is up to date; tsc re-checks the handlers against it' : '[spec] generate failed: fix the spec and save again');
    generating = undefined;
    if (again) {
      again = false;
      regenerate();
    }
  });
}

let debounce: NodeJS.Timeout | undefined;
watch(path.join(root, 'spec'), { recursive: true }, () => {
  clearTimeout(debounce);
  debounce = setTimeout(regenerate, 200); // an editor's save is often several events
});

const checker = process.env.DEV_TYPECHECK === 'tsc' ? 'tsc' : 'tsgo';
run('[types]', bin(checker), ['--noEmit', '--watch', '--preserveWatchOutput', '--pretty']);
run('[api]', bin('tsx'), ['watch', '--clear-screen=false', '--include', 'generated/openapi.json', '--include', 'generated/mcp-tools.json', path.join(root, 'server', 'main.ts')]);

const stop = () => {
  for (const child of children) child.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
