// Starts the service: configuration, database, app, listen; then migrate and settle the
// signing key while the health checks say "starting" (server/lifecycle.ts), then serve.
// SIGTERM/SIGINT: readiness turns false at once; after SHUTDOWN_DELAY (SIGTERM only: a
// balancer needs it, a person pressing Ctrl-C does not) drain, stop the jobs, close the database.
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { JobRunner } from './jobs.js';
import { drainAndClose, Lifecycle } from './lifecycle.js';
import { jobs } from '../jobs/index.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, keepPlans: config.databaseKeepPlans });
  const lifecycle = new Lifecycle('starting', config.readinessTimeoutMs);
  const app = await buildApp({ config, database, lifecycle });
  let runner: JobRunner | undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: not ready, then draining requests');
    try {
      await drainAndClose(app, signal === 'SIGTERM' ? config.shutdownDelaySeconds * 1000 : 0);
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

  await app.listen({ port: config.port, host: config.host });
  await migrateToLatest(database.db);
  await app.services.appKey(); // settled now, so a database problem stops the start, not a request
  if (stopping) return;
  runner = config.runJobs ? new JobRunner(database.connectionString, jobs, { db: database.db, services: app.services, log: app.log }, undefined, database.kind === 'postgresql') : undefined;
  await runner?.start();
  app.services.jobs.attach(runner);
  lifecycle.serve();
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
