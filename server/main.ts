// Starts the service: configuration, database (migrated), app, listen; drains on SIGTERM/SIGINT.
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { JobRunner } from './jobs.js';
import { jobs } from '../jobs/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, keepPlans: config.databaseKeepPlans });
  await migrateToLatest(database.db);
  const app = await buildApp({ config, database });
  const runner = config.runJobs ? new JobRunner(database.connectionString, jobs, { db: database.db, services: app.services, log: app.log }) : undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    try {
      await app.close(); // stops accepting, waits for in-flight requests
      await runner?.stop(); // lets running jobs finish
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await runner?.start();
  app.services.jobs.attach(runner);
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ database: database.kind, docs: `${config.publicUrl}/docs` }, 'finance service ready');
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
