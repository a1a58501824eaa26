// The tail of a script that is also imported by tests (scripts/admin.ts, scripts/copy-files.ts):
// run `main` only when the file is the program node started, and exit with its code.
import { pathToFileURL } from 'node:url';

export function runAsProgram(moduleUrl: string, main: () => Promise<number>): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
