// The admin CLI (scripts/admin.ts): grant, revoke and list, by e-mail or id, with clear
// messages and exit codes; then the real command as a child process against this test's
// database (PostgreSQL, or the embedded one through its loopback server), and the role it
// grants opening the admin routes.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { runAdminCommand } from '../scripts/admin.js';
import { JobRunner } from '../server/jobs.js';
import { startApp } from './helpers/harness.js';
import { nodeArgsFor, PROJECT_ROOT } from './helpers/project.js';

const api = await startApp(t);

const roleOf = async (id: number) => (await api.db.selectFrom('users').select('role').where('id', '=', id).executeTakeFirstOrThrow()).role;

t.test('grant, revoke and list as functions', async (t) => {
  t.same(await runAdminCommand(api.db, ['list']), { exitCode: 0, output: 'No admin users found.' });

  const user = await api.newUser({ first_name: 'Grace', last_name: 'Hopper' });
  t.same(await runAdminCommand(api.db, ['grant', user.email.toUpperCase()]), { exitCode: 0, output: `${user.email} is now an admin.` }, 'e-mail in any case');
  t.equal(await roleOf(user.user.id), 'admin');
  t.same(await runAdminCommand(api.db, ['grant', String(user.user.id)]), { exitCode: 0, output: `${user.email} is already an admin.` }, 'by id');

  const listed = await runAdminCommand(api.db, ['list']);
  t.equal(listed.exitCode, 0);
  const [header, row, ...rest] = listed.output.split('\n');
  t.match(header, /^ID\s+Name\s+Email\s+Created$/);
  t.match(row, new RegExp(`^${user.user.id}\\s+Grace Hopper\\s+${user.email.replace(/[.+]/g, '\\$&')}\\s+\\d{4}-\\d{2}-\\d{2}$`));
  t.same(rest, []);

  t.same(await runAdminCommand(api.db, ['revoke', user.email]), { exitCode: 0, output: `Admin role revoked from ${user.email}.` });
  t.equal(await roleOf(user.user.id), 'user');
  t.same(await runAdminCommand(api.db, ['revoke', user.email]), { exitCode: 0, output: `${user.email} is not an admin.` });

  const unknown = await runAdminCommand(api.db, ['grant', 'nobody@example.test']);
  t.equal(unknown.exitCode, 1);
  t.match(unknown.output, "User 'nobody@example.test' not found.");
  t.equal((await runAdminCommand(api.db, ['revoke', '987654321'])).exitCode, 1);

  for (const args of [[], ['grant'], ['grant', 'a@b.c', 'extra'], ['promote', 'a@b.c'], ['list', 'x']]) {
    const result = await runAdminCommand(api.db, args);
    t.equal(result.exitCode, 2, `usage error: ${args.join(' ')}`);
    t.match(result.output, /npm run admin -- /);
  }
});

t.test('run-job queues one run of a scheduled job, which a running worker takes', async (t) => {
  const runJob = (...args: string[]) => runAdminCommand(api.db, ['run-job', ...args], api.connectionString);
  t.match(await runJob('send-postcards'), { exitCode: 2, output: /'send-postcards' is not a scheduled job\. One of: .*close-budget-periods/ }, 'an unknown job');
  t.equal((await runJob()).exitCode, 2, 'no job named');
  t.equal((await runJob('fire-reminders', 'close-budget-periods')).exitCode, 2, 'one job at a time');
  t.match(await runJob('close-budget-periods'), { exitCode: 1, output: /start the service once/ }, 'no service has set the queue up yet');

  let runs = 0;
  let ran!: () => void;
  const first = new Promise<void>((resolve) => (ran = resolve));
  const runner = new JobRunner(api.connectionString, [{ name: 'close-budget-periods', cron: '5 * * * *', run: async () => void (runs++, ran()) }], { db: api.db, services: api.app.services, log: api.app.log }, 0.5);
  await runner.start();
  t.teardown(() => runner.stop());
  t.same(await runJob('close-budget-periods'), { exitCode: 0, output: 'close-budget-periods queued: a running service runs it within seconds.' });
  await first;
  t.equal(runs, 1, 'the worker ran it');
});

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgsFor('scripts/admin.ts'), ...args],
      {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          DATABASE_URL: api.connectionString,
          DATA_DIR: path.join('/tmp', `admin-cli-${randomUUID()}`),
          APP_KEY: 'cli-test-key-0123456789abcdef0123',
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

t.test('the command line: npm run admin -- grant <email> opens the admin routes', async (t) => {
  const user = await api.newUser();
  t.equal((await api.request('GET', '/api/v1/admin/users', { token: user.token })).status, 403);

  const granted = await runCli(['grant', user.email]);
  t.equal(granted.code, 0, granted.stderr);
  t.equal(granted.stdout.trim(), `${user.email} is now an admin.`);
  t.equal((await api.request('GET', '/api/v1/admin/users', { token: user.token })).status, 200, 'the same token now passes');

  const listed = await runCli(['list']);
  t.equal(listed.code, 0);
  t.match(listed.stdout, user.email);

  const unknown = await runCli(['grant', 'nobody@example.test']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, "User 'nobody@example.test' not found.");

  const usage = await runCli([]);
  t.equal(usage.code, 2);
  t.match(usage.stderr, 'Usage: npm run admin --');
});
