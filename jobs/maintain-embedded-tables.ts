// Autovacuum's work for the embedded database (db/table-maintenance.ts), every five minutes
// and at start; a PostgreSQL server does it itself, so there the job does nothing.
import { maintainTables } from '../db/table-maintenance.js';
import type { JobDefinition } from '../server/jobs.js';

export const maintainEmbeddedTablesJob: JobDefinition = {
  name: 'maintain-embedded-tables',
  cron: '*/5 * * * *',
  resumeAtStart: true,
  async run({ db, services, log }) {
    if (services.databaseKind !== 'embedded') return;
    const done = await maintainTables(db);
    if (done.length > 0) log.info({ tables: done }, 'embedded tables vacuumed and analyzed');
  },
};
