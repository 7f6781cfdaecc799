import type { Config } from './config.js';
import { type Database, migrateToLatest, openDatabase } from './db/index.js';
import { createServices, type ServiceDeps, type Services } from './services.js';
import { resolveConsoleSecret } from './shared/secret-box.js';
import { attachmentsDirFor } from './disclosure/attachment-store.js';
import { fullCollection } from './shared/full-collection.js';

// What the server and cra-admin both start from: config → database → the console's key →
// the services of the composition root. Each then adds its own door (HTTP or the commands).

export interface Runtime {
  config: Readonly<Config>;
  database: Database;
  services: Services;
  /** CONSOLE_SECRET, or on SQLite the generated key beside the database; null when neither. */
  consoleSecret: string | null;
  /** Stops what the services run (workers, parse threads), then closes the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Apply pending migrations before anything else (cra-admin); the server retries them itself. */
  migrate?: boolean;
  /** The process runs one command and may pause for full garbage collections in bulk work (cra-admin). */
  pauseForCollections?: boolean;
  log?: ServiceDeps['log'];
}

export async function openRuntime(config: Readonly<Config>, options: RuntimeOptions = {}): Promise<Runtime> {
  const database = openDatabase(config.databaseUrl, config.databaseTimeouts);
  // The same key on the server and in cra-admin: TOTP and webhook secrets are sealed under it
  // (and a migration may seal what was stored in the clear).
  const consoleSecret = resolveConsoleSecret(config.consoleSecret, config.databaseUrl);
  if (options.migrate) {
    try {
      await migrateToLatest(database, { consoleSecret });
    } catch (error) {
      await database.close();
      throw error;
    }
  }
  const services = createServices({
    database,
    console: { secret: consoleSecret, idleMinutes: config.consoleIdleMinutes },
    webhookPolicy: config.webhooks,
    workers: config.webhooks,
    feeds: config.feeds,
    attachmentsDir: attachmentsDirFor(config.databaseUrl, config.attachmentsDir),
    collectGarbage: options.pauseForCollections ? { collect: fullCollection } : undefined,
    log: options.log,
  });
  return {
    config,
    database,
    services,
    consoleSecret,
    async close() {
      await services.close();
      await database.close();
    },
  };
}

/** Applies pending migrations on its own connection (`cra-admin migrate`); names those applied. */
export async function migrateDatabase(config: Readonly<Config>): Promise<string[]> {
  const database = openDatabase(config.databaseUrl, config.databaseTimeouts);
  try {
    return await migrateToLatest(database, { consoleSecret: resolveConsoleSecret(config.consoleSecret, config.databaseUrl) });
  } finally {
    await database.close();
  }
}
