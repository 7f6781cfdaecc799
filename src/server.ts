import { buildApp } from './app.js';
import { ConfigError, loadConfig, publicBaseUrl } from './config.js';
import { migrationRunner } from './db/apply-migrations.js';
import { isUnavailable } from './db/index.js';
import { bannerFields, logBanner, logSetupLink } from './http/banner.js';
import { logFormatOf } from './http/logging.js';
import { createRateLimitStore } from './http/rate-limit/index.js';
import { openRuntime } from './start-up.js';

// Entry point: config → database → app → migrations → first-run set-up link → listen → banner;
// SIGTERM/SIGINT close gracefully (stop accepting, finish in-flight requests, close the database
// and rate-limit store).
// If the migrations cannot be applied (the database is unreachable), the server listens anyway:
// API operations and /readyz answer 503 while it retries, until the database appears.

async function main(): Promise<void> {
  const config = loadConfig();
  // The store may report Redis trouble before the app (and its logger) exists.
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const log = {
    warn: (obj: object, msg: string) => (app ? app.log.warn(obj, msg) : process.stderr.write(`${msg}\n`)),
    info: (obj: object, msg: string) => app?.log.info(obj, msg),
  };
  const rateLimitStore = await createRateLimitStore(config.redisUrl, log);
  // Webhook delivery and clock events run on timers beside the API, never inside a request.
  // While the database is unavailable their failures are part of the outage: logged once by
  // the availability (or the migration runner at start), not every poll.
  const workerLog = {
    info: (obj: object, msg: string) => app?.log.info(obj, msg),
    warn(obj: { err?: unknown }, msg: string) {
      if (!isUnavailable(obj.err)) return app!.log.warn(obj, msg);
      // (The workers run only once the schema is there, so this is an outage, not a start.)
      database.availability.failed(obj.err);
      app!.log.debug(obj, msg);
    },
  };
  const runtime = await openRuntime(config, { log: workerLog });
  const { database, services, consoleSecret } = runtime;
  let schemaReady = false;
  app = await buildApp({ config, services, rateLimitStore, schemaReady: () => schemaReady });
  if (!consoleSecret) app.log.warn('CONSOLE_SECRET is not set: the console cannot enrol or sign anyone in on PostgreSQL until it is');
  // The workers read tables the migrations create, so they start once the schema is there (on a
  // fresh database the scheduler's first tick would otherwise fail with "no such table").
  const startWorkers = () => services.workers.start();
  // One line when the database stops answering or writing (with the real cause), one when it is back.
  database.availability.onChange((change) => {
    if (change.available) app!.log.info('database available again');
    else app!.log.error({ cause: change.cause }, `database unavailable: ${change.cause}`);
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app!.log.info({ signal }, 'shutting down');
    // close() ends the connections that are idle when it starts; a keep-alive connection whose
    // request is still in flight would then hold the process until its keep-alive timeout
    // (72 s). Ending each one as soon as its response is out lets shutdown take as long as
    // the slowest request.
    const idleCloser = setInterval(() => app!.server.closeIdleConnections(), 50);
    try {
      // The workers stop claiming at once and record the sends in flight (each ends within its
      // timeout); the parse threads stop once the requests that use them are answered.
      await Promise.all([app!.close(), services.workers.stop()]);
      clearInterval(idleCloser);
      await rateLimitStore.close();
      await runtime.close();
      process.exit(0);
    } catch (error) {
      app!.log.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Every start voids the set-up links printed before; while no console user exists it prints a
  // fresh one (an info line, not a warning: a first start is not a problem).
  const setupLink = async (): Promise<string | null> => {
    try {
      return await services.setup.linkAtStart();
    } catch (error) {
      app!.log.warn({ err: error }, 'could not prepare the first-run set-up link; `cra-admin setup-link` prints one');
      return null;
    }
  };

  const migrations = migrationRunner(database, app.log, { consoleSecret });
  schemaReady = await migrations.attempt();
  let setupToken: string | null = null;
  if (schemaReady) {
    setupToken = await setupLink();
    startWorkers();
  }
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const base = publicBaseUrl({ ...config, port: typeof address === 'object' && address ? address.port : config.port });
  const setupUrl = (token: string) => `${base}/console/setup/${token}`;
  const format = logFormatOf(config);
  logBanner(app.log, format, bannerFields(config, base, setupToken ? setupUrl(setupToken) : null));
  if (!schemaReady) {
    schemaReady = await migrations.untilApplied(() => closing);
    if (schemaReady && !closing) {
      const token = await setupLink();
      if (token) logSetupLink(app.log, format, setupUrl(token));
      startWorkers();
    }
  }
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`cra-api failed to start: ${message}\n`);
  process.exit(1);
});
