import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import { migrating } from './autocommit-writes.js';
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
  // Numbers are handed out per change and land in any order: a database that already ran 008
  // must still accept 003 when it arrives later.
  const migrator = new Migrator({ db: database.db, provider, allowUnorderedMigrations: true });
  migrating.add(database.db);
  const { error, results } = await migrator.migrateToLatest().finally(() => migrating.delete(database.db));
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
