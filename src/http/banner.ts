import { createRequire } from 'node:module';
import type { Config, LogFormat } from '../config.js';

// The start banner: where the API, the Swagger UI and the console answer, which database and
// rate-limit store this server uses, its version, and while nobody can sign in yet the one-time
// set-up link. One JSON log line for machines, a readable block on a terminal. It never holds a
// password: the database and Redis URLs are shown without theirs (and without query strings,
// which may carry one).

// src/http/ and dist/http/ are both two levels below the package.
export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/** A database or Redis URL fit for a log: no password, no query string. */
export function withoutSecrets(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return `${url.split(':')[0]}://…`;
  }
}

export interface BannerFields {
  api: string;
  swagger: string;
  console: string;
  database: string;
  rate_limit: string;
  version: string;
  /** Only while no console user exists. */
  setup_url?: string;
}

/** The banner's facts; `base` is where a browser reaches this server. */
export function bannerFields(config: Pick<Config, 'databaseUrl' | 'redisUrl'>, base: string, setupUrl: string | null): BannerFields {
  return {
    api: `${base}/api/v1/external`,
    swagger: `${base}/swagger`,
    console: `${base}/console`,
    database: withoutSecrets(config.databaseUrl),
    rate_limit: config.redisUrl ? withoutSecrets(config.redisUrl) : 'memory',
    version: VERSION,
    ...(setupUrl ? { setup_url: setupUrl } : {}),
  };
}

/** What a person at the terminal is told about the set-up link. */
export function setupBlock(setupUrl: string): string {
  return [
    'First run: nobody can sign in yet. Open this one-time link to create the first',
    'organisation and its owner (it works once, and only until the server restarts):',
    '',
    `    ${setupUrl}`,
    '',
    'No browser near this server? `npx cra-admin setup-link` prints a fresh link.',
  ].join('\n');
}

/** The banner as a readable block. */
export function prettyBanner(fields: BannerFields): string {
  const rateLimit =
    fields.rate_limit === 'memory' ? 'in this process (REDIS_URL shares it between instances)' : `Redis ${fields.rate_limit}`;
  const rows: Array<[string, string]> = [
    ['API', fields.api],
    ['Swagger UI', fields.swagger],
    ['Console', fields.console],
    ['Database', fields.database],
    ['Rate limit', rateLimit],
  ];
  const lines = [`CRA compliance API ${fields.version} is ready`, ...rows.map(([name, value]) => `  ${name.padEnd(12)}${value}`)];
  if (fields.setup_url) lines.push('', setupBlock(fields.setup_url));
  return lines.join('\n');
}

type InfoLog = { info(obj: object, msg: string): void; info(msg: string): void };

/** Logs the banner: one structured line (JSON), or the block (pretty). */
export function logBanner(log: InfoLog, format: LogFormat, fields: BannerFields): void {
  if (format === 'pretty') log.info(prettyBanner(fields));
  else log.info(fields, fields.setup_url ? 'ready; first run: open setup_url to create the first organisation and its owner' : 'ready');
}

/** The set-up link alone, for a server whose database appeared only after it started listening. */
export function logSetupLink(log: InfoLog, format: LogFormat, setupUrl: string): void {
  if (format === 'pretty') log.info(setupBlock(setupUrl));
  else log.info({ setup_url: setupUrl }, 'first run: open setup_url to create the first organisation and its owner');
}
