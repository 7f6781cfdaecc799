import { InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { migrateToLatest, openDatabase, type Database } from '../db/index.js';
import { createKeyService } from '../keys/keys.service.js';
import { createOrgService } from '../orgs/orgs.service.js';
import { createProductService } from '../products/products.service.js';
import { createCaseService } from '../cases/cases.service.js';
import { createComplianceService } from '../compliance/compliance.service.js';
import { createIncidentService } from '../incidents/incidents.service.js';
import { createSbomIngestService } from '../sbom/ingest.service.js';
import { parseDuration, parseTimestamp } from '../shared/time.js';

/** Everything a command needs: the same config, database and services as the server. */
export interface CliContext {
  config: Config;
  database: Database;
  orgs: ReturnType<typeof createOrgService>;
  keys: ReturnType<typeof createKeyService>;
  products: ReturnType<typeof createProductService>;
  incidents: ReturnType<typeof createIncidentService>;
  cases: ReturnType<typeof createCaseService>;
  compliance: ReturnType<typeof createComplianceService>;
  sbom: ReturnType<typeof createSbomIngestService>;
}

export async function openContext(): Promise<CliContext> {
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database);
  const orgs = createOrgService(database);
  const products = createProductService(database, orgs);
  return {
    config,
    database,
    orgs,
    keys: createKeyService(database, orgs),
    products,
    incidents: createIncidentService(database),
    cases: createCaseService(database, orgs),
    compliance: createComplianceService(database, orgs),
    sbom: createSbomIngestService(database, products),
  };
}

/** Runs one command with a context, printing JSON (with --json) or readable text. */
export function action<A extends unknown[]>(
  run: (ctx: CliContext, ...args: A) => Promise<{ json: unknown; text: string }>,
) {
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
