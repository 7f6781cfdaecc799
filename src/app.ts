import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Config } from './config.js';
import { registerAuth } from './http/auth.js';
import { registerCompression } from './http/compression.js';
import { API_PREFIX, SHORT_PREFIX } from './http/context.js';
import { registerClosingAnswer } from './http/closing.js';
import { registerDatabaseGate } from './http/database-gate.js';
import { registerErrorHandling } from './http/errors.js';
import { registerHealth } from './http/health.js';
import { registerJsonOnly } from './http/json-body.js';
import { loggerOptions, RequestLog } from './http/logging.js';
import { onClientError, onFrameworkError, registerMalformedRequestAnswers } from './http/malformed-requests.js';
import type { BodyPace } from './http/body-pace.js';
import { registerBodyIdleTimeout, registerRequestDeadlines, serverTimeoutOptions } from './http/timeouts.js';
import { registerShortFormHosts } from './http/hosts.js';
import { routeEveryMethod, trackOperations } from './http/method-not-allowed.js';
import { registerOpenApi } from './http/openapi.js';
import type { RateLimitStore } from './http/rate-limit/store.js';
import { createAuthenticator } from './keys/authenticate.js';
import { listProductsRoute, productSchemas } from './products/list-products.routes.js';
import { complianceSchemas, complianceScoreRoute } from './compliance/compliance-score.routes.js';
import { createIncidentRoute, incidentSchemas } from './incidents/create-incident.routes.js';
import { createBodyBudget } from './sbom/http/body-budget.js';
import { ingestSbomRoute, sbomSchemas } from './sbom/http/ingest-sbom.routes.js';
import type { Services } from './services.js';
import './http/context.js';
import { registerConsole } from './console/plugin.js';
import { registerDisclosurePages } from './disclosure/http/public.routes.js';

export interface AppDeps {
  config: Config;
  /** The composition root's services (src/services.ts); their database and clock are the app's. */
  services: Services;
  rateLimitStore: RateLimitStore;
  /** False while the server is still waiting to apply migrations: API operations and /readyz answer 503. */
  schemaReady?: () => boolean;
  /** false in tests that do not read logs; a pino destination otherwise (else stdout, in LOG_FORMAT). */
  logger?: boolean | { stream: NodeJS.WritableStream };
  /** Tests only: the least pace of a disclosure report's body, so that a slow post is judged in a second, not ten. */
  reportBodyPace?: BodyPace;
}

/** Builds the whole HTTP application; never listens, so tests can use `inject`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, services, rateLimitStore } = deps;
  const { database, clock, products, incidents, compliance, sbom } = services;
  const logger = deps.logger === false ? false : loggerOptions(config, typeof deps.logger === 'object' ? deps.logger.stream : undefined);

  const timeouts = serverTimeoutOptions(config);
  const app = Fastify({
    logger,
    logController: new RequestLog(),
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    exposeHeadRoutes: false,
    // Requests that arrive while closing get the contract's 503 (registerClosingAnswer).
    return503OnClosing: false,
    bodyLimit: config.incidentMaxBytes,
    requestTimeout: timeouts.requestTimeout,
    // Node would answer a missing Host with an empty 400; registerMalformedRequestAnswers does it.
    http: { ...timeouts.http, requireHostHeader: false },
    clientErrorHandler: onClientError,
    frameworkErrors: onFrameworkError,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: true, allErrors: true } },
  });
  routeEveryMethod(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerClosingAnswer(app);

  registerMalformedRequestAnswers(app);
  registerRequestDeadlines(app, config.requestTimeoutMs);
  registerBodyIdleTimeout(app, config.bodyIdleTimeoutMs);
  registerErrorHandling(app, { onUnavailable: (error) => database.availability.failed(error) });
  registerJsonOnly(app);
  await registerCompression(app);
  await registerOpenApi(app, config);
  for (const schema of productSchemas) app.addSchema(schema);
  for (const schema of [...incidentSchemas, ...complianceSchemas]) app.addSchema(schema);
  for (const schema of sbomSchemas) app.addSchema(schema);

  const authenticate = createAuthenticator(database, clock, (error) => app.log.warn({ err: error }, 'could not record key use'));

  const schemaReady = deps.schemaReady ?? (() => true);
  registerShortFormHosts(app, config.apiHosts);
  registerDatabaseGate(app, schemaReady);
  registerAuth(app, {
    authenticate,
    store: rateLimitStore,
    perKeyPerMinute: config.rateLimitPerMinute,
    failuresPerAddressPerMinute: config.authFailureLimitPerMinute,
    now: () => clock().getTime(),
  });
  const operations = trackOperations(app);
  // One bound on the SBOM bodies in memory, for the API's uploads and the console's form alike.
  const sbomBodies = createBodyBudget({ budgetBytes: config.sbomInflightBytes, maxBodyBytes: config.sbomMaxBytes });

  // Operations with a short form answer under both prefixes; SBOM ingest only under the full one.
  const shortFormOperations = async (scope: FastifyInstance) => {
    listProductsRoute(scope, { products });
    createIncidentRoute(scope, { incidents, maxBytes: config.incidentMaxBytes });
    complianceScoreRoute(scope, { compliance });
  };
  await app.register(shortFormOperations, { prefix: API_PREFIX });
  await app.register(shortFormOperations, { prefix: SHORT_PREFIX });
  // Encapsulated: its raw-body JSON parser applies to this operation only.
  await app.register(
    async (scope) => {
      scope.addHook('onRoute', (route) => {
        route.config = { ...route.config, requestTimeoutMs: config.sbomRequestTimeoutMs };
      });
      ingestSbomRoute(scope, {
        sbom,
        maxBytes: config.sbomMaxBytes,
        bodies: sbomBodies,
        warmUp: config.sbomWarmUp ? services.sbomReader.warmUp : null,
      });
    },
    { prefix: API_PREFIX },
  );
  operations.registerMethodNotAllowed();

  registerHealth(app, { database, store: rateLimitStore, schemaReady });
  await registerConsole(app, { config, ...services, sbomBodies });
  await registerDisclosurePages(app, {
    config,
    disclosure: services.disclosure,
    rateLimitStore,
    csrfKey: services.disclosureCsrfKey,
    bodyPace: deps.reportBodyPace,
  });
  return app;
}
