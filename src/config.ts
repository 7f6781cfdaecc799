// Environment → one typed, frozen Config. The server and cra-admin both read it, so they
// always talk to the same database. Every variable is read through ENVIRONMENT_VARIABLES, and
// each is in docs/configuration.md's table (test/readme/configuration-table.test.ts checks it).
import { parseDuration } from './shared/time.js';
import { fileURLToPath } from 'node:url';

/**
 * The default database: data/cra.db in the project (package) directory, wherever the server or
 * cra-admin is started from. This file is src/config.ts or dist/config.js, one level below it.
 */
export const DEFAULT_DATABASE_URL = `sqlite:${fileURLToPath(new URL('../data/cra.db', import.meta.url))}`;

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  apiHosts: ReadonlySet<string>;
  productionUrl: string;
  rateLimitPerMinute: number;
  authFailureLimitPerMinute: number;
  incidentMaxBytes: number;
  sbomMaxBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  sbomRequestTimeoutMs: number;
  /** Longest pause between two pieces of a request body (then 408), whatever the operation's deadline. */
  bodyIdleTimeoutMs: number;
  /** SBOM bodies held in memory at once, in bytes (beyond: 503); always at least one sbomMaxBytes. */
  sbomInflightBytes: number;
  /** SBOM_WARM_UP: the parse workers start with the server and warm up (sbom-reader.ts); off: on first use, cold. */
  sbomWarmUp: boolean;
  trustProxy: boolean | string;
  logLevel: string;
  /** LOG_FORMAT: JSON lines, or readable lines (pino-pretty); null: readable when stdout is a terminal. */
  logFormat: LogFormat | null;
  /** Base of links the console hands out (invitations); null: the server's own address. */
  publicUrl: string | null;
  /** Key material for TOTP secrets at rest; null: generated beside the SQLite database. */
  consoleSecret: string | null;
  /** Ed25519 private key (PEM or base64 PKCS#8 DER) that signs registry checkpoints; never stored. */
  registrySigningKey: string | null;
  /** A console session ends after this long without a request (the absolute limit is 12 h); fractions allowed. */
  consoleIdleMinutes: number;
  /** PostgreSQL: longest wait for a connection, and for one statement's answer (then 503). */
  databaseTimeouts: { connectTimeoutMs: number; queryTimeoutMs: number; stallAfterMs: number; probeTimeoutMs: number };
  webhooks: WebhookConfig;
  feeds: FeedConfig;
  /** ATTACHMENTS_DIR: where disclosure attachments are kept, sealed, on SQLite; default `attachments/` beside the database. */
  attachmentsDir: string | null;
  /** DISCLOSURE_ORG_REPORTS_PER_HOUR: report posts one organisation's form accepts per hour from every address together. */
  disclosureOrgReportsPerHour: number;
}

/** Vulnerability feeds (vulnerabilities.md): what the server fetches on a schedule, and how. */
export interface FeedConfig {
  /** VULN_FEEDS: URLs fetched every `everyMs`, one instance at a time; empty: nothing is fetched. */
  urls: readonly string[];
  everyMs: number;
  /** FEEDS_ALLOW_PRIVATE: feed URLs on non-public addresses (and plain http to them). */
  allowPrivate: boolean;
  /** FEEDS_MAX_BYTES: the largest download. */
  maxBytes: number;
  /** NVD_API_KEY: the NVD's API key, sent to its CVE API (ten times the requests allowed); null: none. */
  nvdApiKey: string | null;
}

/** The webhook dispatcher and scheduler (webhooks.md); every duration in milliseconds. */
export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE=true (or 1): endpoints on non-public addresses (and plain http to them). */
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryWindowMs: number;
  pollMs: number;
  concurrency: number;
  schedulerIntervalMs: number;
}

export type LogFormat = 'json' | 'pretty';

export class ConfigError extends Error {}

/**
 * Every variable this module reads, and the only ones it can: `Env` has no other keys, so reading
 * a new one means naming it here, where the documentation test finds it.
 */
export const ENVIRONMENT_VARIABLES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'REDIS_URL',
  'API_HOSTS',
  'PRODUCTION_URL',
  'RATE_LIMIT_PER_MINUTE',
  'AUTH_FAILURE_LIMIT_PER_MINUTE',
  'INCIDENT_MAX_BYTES',
  'SBOM_MAX_BYTES',
  'SBOM_INFLIGHT_BYTES',
  'SBOM_WARM_UP',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'BODY_IDLE_TIMEOUT_MS',
  'SBOM_REQUEST_TIMEOUT_MS',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'ATTACHMENTS_DIR',
  'CONSOLE_SECRET',
  'REGISTRY_SIGNING_KEY',
  'CONSOLE_IDLE_MINUTES',
  'DATABASE_CONNECT_TIMEOUT_MS',
  'DATABASE_QUERY_TIMEOUT_MS',
  'DATABASE_STALL_PROBE_AFTER_MS',
  'DATABASE_PROBE_TIMEOUT_MS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'WEBHOOK_ALLOW_PRIVATE',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_RETRY_BASE_MS',
  'WEBHOOK_RETRY_MAX_MS',
  'WEBHOOK_RETRY_WINDOW_MS',
  'WEBHOOK_POLL_MS',
  'WEBHOOK_CONCURRENCY',
  'SCHEDULER_INTERVAL_MS',
  'VULN_FEEDS',
  'VULN_FEEDS_EVERY',
  'FEEDS_ALLOW_PRIVATE',
  'FEEDS_MAX_BYTES',
  'NVD_API_KEY',
  'DISCLOSURE_ORG_REPORTS_PER_HOUR',
] as const;
export type EnvironmentVariable = (typeof ENVIRONMENT_VARIABLES)[number];

type Env = Partial<Record<EnvironmentVariable, string>>;

function positiveInt(env: Env, name: EnvironmentVariable, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function positiveNumber(env: Env, name: EnvironmentVariable, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function onOff(env: Env, name: EnvironmentVariable, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function logFormat(raw: string | undefined): LogFormat | null {
  const value = raw?.trim();
  if (value === undefined || value === '') return null;
  if (value === 'json' || value === 'pretty') return value;
  throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${raw}"`);
}

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  // Fastify accepts a comma-separated list of addresses or CIDR ranges.
  return raw;
}

function absoluteUrl(name: EnvironmentVariable, raw: string | undefined, fallback: string): string {
  const value = (raw ?? fallback).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${name} must use http or https`);
  }
  return value;
}

/** Where a browser reaches this server: PUBLIC_URL, else the listening address. */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/**
 * Deadlines for receiving a request (README, Configuration). Headers must be complete within
 * 10 s and an ordinary request (64 KiB at most) within 30 s. An SBOM of up to 50 MiB gets
 * 10 minutes: a pipeline sending at 1 Mbit/s needs about 7.
 */
function timeouts(env: Env): Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'sbomRequestTimeoutMs' | 'bodyIdleTimeoutMs'> {
  const headersTimeoutMs = positiveInt(env, 'HEADERS_TIMEOUT_MS', 10_000);
  const requestTimeoutMs = positiveInt(env, 'REQUEST_TIMEOUT_MS', 30_000);
  const sbomRequestTimeoutMs = positiveInt(env, 'SBOM_REQUEST_TIMEOUT_MS', 600_000);
  // A client that stops sending mid-body would otherwise hold an SBOM upload for 10 minutes.
  const bodyIdleTimeoutMs = positiveInt(env, 'BODY_IDLE_TIMEOUT_MS', 20_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  return { headersTimeoutMs, requestTimeoutMs, sbomRequestTimeoutMs, bodyIdleTimeoutMs };
}

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const databaseUrl = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!databaseUrl.startsWith('sqlite:') && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
  }
  const apiHosts = new Set(
    (env.API_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  return Object.freeze({
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    redisUrl: env.REDIS_URL?.trim() || null,
    apiHosts,
    productionUrl: absoluteUrl('PRODUCTION_URL', env.PRODUCTION_URL, 'https://api.cra-platform.example'),
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 100),
    authFailureLimitPerMinute: positiveInt(env, 'AUTH_FAILURE_LIMIT_PER_MINUTE', 30),
    incidentMaxBytes: positiveInt(env, 'INCIDENT_MAX_BYTES', 64 * 1024),
    sbomMaxBytes: positiveInt(env, 'SBOM_MAX_BYTES', 50 * 1024 * 1024),
    ...timeouts(env),
    sbomInflightBytes: positiveInt(env, 'SBOM_INFLIGHT_BYTES', 100 * 1024 * 1024),
    sbomWarmUp: onOff(env, 'SBOM_WARM_UP', true),
    trustProxy: trustProxy(env.TRUST_PROXY?.trim()),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    logFormat: logFormat(env.LOG_FORMAT),
    publicUrl: env.PUBLIC_URL?.trim() ? absoluteUrl('PUBLIC_URL', env.PUBLIC_URL.trim(), '') : null,
    consoleSecret: env.CONSOLE_SECRET?.trim() || null,
    registrySigningKey: env.REGISTRY_SIGNING_KEY?.trim() || null,
    consoleIdleMinutes: positiveNumber(env, 'CONSOLE_IDLE_MINUTES', 30),
    databaseTimeouts: Object.freeze({
      connectTimeoutMs: positiveInt(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000),
      queryTimeoutMs: positiveInt(env, 'DATABASE_QUERY_TIMEOUT_MS', 10_000),
      stallAfterMs: positiveInt(env, 'DATABASE_STALL_PROBE_AFTER_MS', 1_500),
      probeTimeoutMs: positiveInt(env, 'DATABASE_PROBE_TIMEOUT_MS', 2_000),
    }),
    webhooks: Object.freeze({
      // A value that is neither on nor off stops the start: `yes` silently meaning "refuse" would
      // leave an operator hunting for why every private endpoint is turned away.
      allowPrivate: onOff(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      timeoutMs: positiveInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
      retryBaseMs: positiveInt(env, 'WEBHOOK_RETRY_BASE_MS', 10_000),
      retryMaxMs: positiveInt(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000),
      retryWindowMs: positiveInt(env, 'WEBHOOK_RETRY_WINDOW_MS', 86_400_000),
      pollMs: positiveInt(env, 'WEBHOOK_POLL_MS', 1_000),
      concurrency: positiveInt(env, 'WEBHOOK_CONCURRENCY', 8),
      schedulerIntervalMs: positiveInt(env, 'SCHEDULER_INTERVAL_MS', 60_000),
    }),
    feeds: Object.freeze({
      urls: Object.freeze(feedUrls(env.VULN_FEEDS)),
      everyMs: durationSetting(env, 'VULN_FEEDS_EVERY', 6 * 3_600_000),
      allowPrivate: onOff(env, 'FEEDS_ALLOW_PRIVATE', false),
      maxBytes: positiveInt(env, 'FEEDS_MAX_BYTES', 2 * 1024 ** 3),
      nvdApiKey: env.NVD_API_KEY?.trim() || null,
    }),
    attachmentsDir: env.ATTACHMENTS_DIR?.trim() || null,
    disclosureOrgReportsPerHour: positiveInt(env, 'DISCLOSURE_ORG_REPORTS_PER_HOUR', 30),
  });
}

/** VULN_FEEDS: comma-separated absolute http(s) URLs. */
function feedUrls(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => absoluteUrl('VULN_FEEDS', u, ''));
}

/** A duration such as 30m, 6h or 1d, at least one minute. */
function durationSetting(env: Env, name: EnvironmentVariable, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const ms = parseDuration(raw);
  if (ms === null || ms < 60_000) throw new ConfigError(`${name} must be a duration of at least 1m, such as 30m, 6h or 1d, got "${raw}"`);
  return ms;
}
