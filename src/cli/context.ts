import { InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { migrateToLatest, openDatabase } from '../db/index.js';
import { resolveConsoleSecret } from '../console/auth/secret-box.js';
import { createServices, type Services } from '../services.js';
import { parseDuration, parseTimestamp } from '../shared/time.js';

/** Everything a command needs: the same config, database and services as the server. */
export interface CliContext extends Services {
  config: Config;
}

export async function openContext(): Promise<CliContext> {
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl, config.databaseTimeouts);
  await migrateToLatest(database);
  // The same key as the server's (CONSOLE_SECRET, or the generated file beside a SQLite database):
  // webhook secrets are sealed under it.
  const consoleSecret = resolveConsoleSecret(config.consoleSecret, config.databaseUrl);
  return {
    config,
    ...createServices({
      database,
      console: { secret: consoleSecret, idleMinutes: config.consoleIdleMinutes },
      webhookPolicy: config.webhooks,
    }),
  };
}
/** Runs one command with a context, printing JSON (with --json) or readable text. */
export function action<A extends unknown[]>(run: (ctx: CliContext, ...args: A) => Promise<{ json: unknown; text: string }>) {
  return async (...args: A): Promise<void> => {
    const command = args[args.length - 1] as { optsWithGlobals(): { json?: boolean } };
    const ctx = await openContext();
    try {
      const { json, text } = await run(ctx, ...args);
      process.stdout.write(command.optsWithGlobals().json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
    } finally {
      await ctx.database.close();
    }
  };
}

export function timestampOption(value: string): Date {
  const date = parseTimestamp(value);
  if (!date) throw new InvalidArgumentError('expected an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z');
  return date;
}

export function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new InvalidArgumentError('expected a duration such as 10m, 2h or 1d');
  return ms;
}
