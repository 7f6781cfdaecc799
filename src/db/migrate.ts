import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import { columnTypes } from './migrations/types.js';

/** Applies pending migrations; safe to call from several processes at once (Kysely locks). */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const t = columnTypes(database.dialect);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of migrations) out[m.name] = { up: (db) => m.up(db, t) };
      return out;
    },
  };
  const migrator = new Migrator({ db: database.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
