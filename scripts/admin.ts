// `npm run admin -- <command>`: the only way to grant or revoke the admin role (never the
// API). Uses the server's configuration and database (DATABASE_URL, else the embedded one in
// DATA_DIR), migrated first.
//
//   grant <email|id>    give the account the admin role
//   revoke <email|id>   take it away
//   list                the admin accounts
//   run-job <name>      queue one run of a scheduled job now (e.g. close-budget-periods after
//                       restoring a backup); a running service's worker takes it
//
// Exit codes: 0 done (also when nothing had to change), 1 no such account or no job queue
// (no service has started on this database yet), 2 bad usage.
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { jobs } from '../jobs/index.js';
import { loadConfig } from '../server/config.js';
import { queueJobRun } from '../server/jobs.js';
import { runAsProgram } from './run-as-program.js';

export const USAGE = 'Usage: npm run admin -- grant <email|id> | revoke <email|id> | list | run-job <name>';

/** The jobs run-job may queue: the scheduled ones, which run without data. */
const SCHEDULED_JOBS = jobs.filter((job) => job.cron).map((job) => job.name);

export interface CommandResult {
  exitCode: 0 | 1 | 2;
  output: string;
}

/** An account by id (all digits) or by e-mail, case-insensitively. */
function findAccount(db: Kysely<Database>, identifier: string) {
  const query = db.selectFrom('users').select(['id', 'email', 'first_name', 'last_name', 'role', 'created_at']);
  return /^\d+$/.test(identifier)
    ? query.where('id', '=', Number(identifier)).executeTakeFirst()
    : query.where(sql<string>`lower(email)`, '=', identifier.trim().toLowerCase()).executeTakeFirst();
}

const notFound = (identifier: string): CommandResult => ({ exitCode: 1, output: `User '${identifier}' not found. Give the e-mail address or the id of an existing account.` });

export async function grantAdmin(db: Kysely<Database>, identifier: string): Promise<CommandResult> {
  const user = await findAccount(db, identifier);
  if (!user) return notFound(identifier);
  if (user.role === 'admin') return { exitCode: 0, output: `${user.email} is already an admin.` };
  await db.updateTable('users').set({ role: 'admin', updated_at: new Date() }).where('id', '=', user.id).execute();
  return { exitCode: 0, output: `${user.email} is now an admin.` };
}

export async function revokeAdmin(db: Kysely<Database>, identifier: string): Promise<CommandResult> {
  const user = await findAccount(db, identifier);
  if (!user) return notFound(identifier);
  if (user.role !== 'admin') return { exitCode: 0, output: `${user.email} is not an admin.` };
  await db.updateTable('users').set({ role: 'user', updated_at: new Date() }).where('id', '=', user.id).execute();
  return { exitCode: 0, output: `Admin role revoked from ${user.email}.` };
}

export async function listAdmins(db: Kysely<Database>): Promise<CommandResult> {
  const admins = await db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'created_at'])
    .where('role', '=', 'admin')
    .orderBy('id')
    .execute();
  if (admins.length === 0) return { exitCode: 0, output: 'No admin users found.' };
  const rows = [
    ['ID', 'Name', 'Email', 'Created'],
    ...admins.map((a) => [String(a.id), `${a.first_name} ${a.last_name ?? ''}`.trim(), a.email, a.created_at.toISOString().slice(0, 10)]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return { exitCode: 0, output: rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n') };
}

export async function runJob(connectionString: string, name: string): Promise<CommandResult> {
  if (!SCHEDULED_JOBS.includes(name)) return { exitCode: 2, output: `'${name}' is not a scheduled job. One of: ${SCHEDULED_JOBS.join(', ')}.` };
  if (!(await queueJobRun(connectionString, name))) return { exitCode: 1, output: `No job queue on this database yet: start the service once, then run ${name} again.` };
  return { exitCode: 0, output: `${name} queued: a running service runs it within seconds.` };
}

/** One command line (the arguments after `--`); run-job needs the database's connection string. */
export async function runAdminCommand(db: Kysely<Database>, args: string[], connectionString?: string): Promise<CommandResult> {
  const [action, identifier, ...extra] = args;
  if (action === 'list' && identifier === undefined) return listAdmins(db);
  if (action === 'run-job' && identifier && extra.length === 0 && connectionString) return runJob(connectionString, identifier);
  if (action === 'run-job') return { exitCode: 2, output: `Give one job: npm run admin -- run-job <name> (${SCHEDULED_JOBS.join(', ')})` };
  if ((action === 'grant' || action === 'revoke') && identifier && extra.length === 0) {
    return action === 'grant' ? grantAdmin(db, identifier) : revokeAdmin(db, identifier);
  }
  if (action === 'grant' || action === 'revoke') return { exitCode: 2, output: `Give one e-mail address or id: npm run admin -- ${action} <email|id>` };
  return { exitCode: 2, output: action ? `Unknown command '${args.join(' ')}'.\n${USAGE}` : USAGE };
}

async function main(): Promise<number> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    await migrateToLatest(database.db);
    const result = await runAdminCommand(database.db, process.argv.slice(2), database.connectionString);
    (result.exitCode === 0 ? console.log : console.error)(result.output);
    return result.exitCode;
  } finally {
    await database.close();
  }
}

runAsProgram(import.meta.url, main);
