// Runs the numbered migrations of db/migrations in order; called at start and by `make migrate`.
import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { migrations } from './migrations/index.js';

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async (): Promise<Record<string, Migration>> => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Migration ${failed} failed: ${(result.error as Error).message ?? result.error}`);
  }
  return result;
}
