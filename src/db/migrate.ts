import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import { migrating } from './autocommit-writes.js';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';
import { columnTypes, type MigrationSecrets } from './migrations/types.js';

/**
 * Applies pending migrations; safe to call from several processes at once (Kysely locks).
 * `secrets`: the console's key, for a migration that seals what was stored in the clear (017);
 * without it such a migration fails when it finds something to seal (a fresh database has none).
 */
export async function migrateToLatest(database: Database, secrets: MigrationSecrets = { consoleSecret: null }): Promise<string[]> {
  const t = columnTypes(database.dialect);
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of migrations) out[m.name] = { up: (db) => m.up(db, t, secrets) };
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
