// `make migrate`: brings the configured database (DATABASE_URL, else the embedded one in
// DATA_DIR) to the latest migration and says what ran.
import { openDatabase } from '../db/connection.js';
import { migrateToLatest } from '../db/migrate.js';
import { loadConfig } from '../server/config.js';

const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
try {
  const result = await migrateToLatest(database.db);
  const applied = result.results ?? [];
  console.log(applied.length === 0 ? 'Database is up to date.' : applied.map((r) => `${r.status}: ${r.migrationName}`).join('\n'));
} finally {
  await database.close();
}
