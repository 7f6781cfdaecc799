import { after, before, type TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { MemoryRateLimitStore, RedisRateLimitStore } from '../../src/http/rate-limit/index.js';
import { randomUUID } from 'node:crypto';
import type { RateLimitStore } from '../../src/http/rate-limit/store.js';
import type { Scope } from '../../src/keys/scopes.js';
import { createServices, type Services } from '../../src/services.js';
import { attachmentsDirFor } from '../../src/disclosure/attachment-store.js';
import { createTestDatabase, TEST_BACKEND, TEST_REDIS_URL } from './db.js';

/** The console key of every harness (TOTP and webhook secrets are sealed under it). */
export const TEST_CONSOLE_SECRET = 'test-console-secret';

/** A movable clock: tests jump in time instead of sleeping. */
export class TestClock {
  constructor(public current = new Date('2026-11-22T10:00:00.000Z')) {}
  now = (): Date => new Date(this.current.getTime());
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** The app and the very services it runs on (one composition root), on the test clock. */
export interface Harness extends Omit<Services, 'clock'> {
  app: FastifyInstance;
  database: Database;
  config: Config;
  clock: TestClock;
  /** A new organisation with one key holding `scopes`; returns the slug, org id and secret. */
  tenant(slug: string, scopes: Scope[], options?: { intakeMode?: 'signal' | 'case' }): Promise<Tenant>;
  request(options: InjectOptions & { key?: string }): Promise<LightMyRequestResponse>;
}

export interface Tenant {
  slug: string;
  orgId: string;
  key: string;
  keyFor(scopes: Scope[], name?: string): Promise<string>;
}

/** The app on a fresh database of this run's backend, closed when the test ends. */
export interface Teardown {
  after(fn: () => Promise<void>): void;
}

export async function buildHarness(
  t: TestContext | Teardown,
  env: Record<string, string> = {},
  options: { store?: RateLimitStore; app?: Pick<AppDeps, 'logger' | 'reportBodyPace'> } = {},
): Promise<Harness> {
  const testDb = await createTestDatabase();
  const config = loadConfig({ DATABASE_URL: testDb.url, LOG_LEVEL: 'silent', ...env });
  const clock = new TestClock();
  // The scale-out configuration (postgres run) shares rate-limit windows through Redis.
  const now = () => clock.now().getTime();
  const store =
    options.store ??
    (TEST_BACKEND === 'postgres'
      ? new RedisRateLimitStore(TEST_REDIS_URL, { keyPrefix: `test:${randomUUID()}:`, now })
      : new MemoryRateLimitStore(now));
  if (store instanceof RedisRateLimitStore) await store.waitUntilReady();
  const services = createServices({
    database: testDb.database,
    clock: clock.now,
    console: { secret: TEST_CONSOLE_SECRET, idleMinutes: config.consoleIdleMinutes },
    webhookPolicy: config.webhooks,
    feeds: config.feeds,
    attachmentsDir: attachmentsDirFor(testDb.url, null),
  });
  const { orgs, keys } = services;
  const app = await buildApp({ config, services, rateLimitStore: store, logger: false, ...options.app });
  await app.ready();
  t.after(async () => {
    await app.close();
    await services.close();
    await store.close();
    await testDb.drop();
  });
  let keyCounter = 0;
  return {
    ...services,
    app,
    config,
    clock,
    async tenant(slug, scopes, opts = {}) {
      const org = await orgs.createOrg({ slug, intakeMode: opts.intakeMode });
      const keyFor = async (s: Scope[], name = `key-${++keyCounter}`) => (await keys.createKey({ org: slug, name, scopes: s })).secret;
      return { slug, orgId: org.id, key: await keyFor(scopes), keyFor };
    },
    request({ key, headers, ...rest }) {
      return app.inject({ ...rest, headers: { ...(key ? { 'x-cra-api-key': key } : {}), ...headers } });
    },
  };
}

/**
 * For a describe block: teardown steps registered while its hooks or tests run, executed after
 * its last test, newest first (as node:test's own `t.after`).
 */
export function suiteTeardown(): Teardown {
  const steps: Array<() => Promise<void>> = [];
  after(async () => {
    for (const step of steps.reverse()) await step();
  });
  return { after: (fn) => void steps.push(fn) };
}

/**
 * For a describe block: builds one harness before its tests and tears it down after them.
 * Returns a getter, since the harness exists only once `before` has run.
 */
export function useHarness(env: Record<string, string> = {}): () => Harness {
  let harness: Harness | undefined;
  const teardown = suiteTeardown();
  before(async () => {
    harness = await buildHarness(teardown, env);
  });
  return () => {
    if (!harness) throw new Error('harness used outside a test');
    return harness;
  };
}
