import type { Database } from './database.js';
import { describeCause } from './errors.js';
import { migrateToLatest } from './migrate.js';
import type { MigrationSecrets } from './migrations/types.js';

export interface MigrationLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * Applies pending migrations once or until the database lets it (the server starts while the
 * database is down and becomes ready when it appears). Each distinct failure is logged once.
 */
export function migrationRunner(database: Database, log: MigrationLog, secrets: MigrationSecrets) {
  let lastCause: string | null = null;
  async function attempt(): Promise<boolean> {
    try {
      const applied = await migrateToLatest(database, secrets);
      if (lastCause !== null) log.info({ applied }, 'database reachable: migrations applied, ready');
      return true;
    } catch (error) {
      const cause = describeCause(error);
      if (cause !== lastCause) log.error({ cause }, `cannot apply migrations yet, retrying: ${cause}`);
      lastCause = cause;
      return false;
    }
  }
  return {
    attempt,
    /** Retries with backoff; resolves true once applied, false if `stopped()` turns true first. */
    async untilApplied(stopped: () => boolean): Promise<boolean> {
      for (let delay = FIRST_RETRY_MS; !stopped(); delay = Math.min(delay * 2, MAX_RETRY_MS)) {
        if (await attempt()) return true;
        await new Promise((r) => setTimeout(r, delay));
      }
      return false;
    },
  };
}
