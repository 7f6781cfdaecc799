import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { ErrorBodySchema } from '../errors.js';
import { API_PREFIX } from './context.js';
import { applyExamples, type OperationExamples } from './openapi-examples.js';
import { sendError } from './errors.js';
import { ownHostMatcher } from './own-hosts.js';

const API_DESCRIPTION = `JSON API for manufacturers' systems: register inbound security signals, read the product
catalogue with SBOM status and risk, read the compliance score with the running 24h/72h
notification clocks, and push SBOMs from build pipelines.

Every call needs an API key (header \`X-CRA-API-Key\` or \`Authorization: Bearer\`), scoped to one
organisation. Each key may make ${'{limit}'} requests in any rolling 60 seconds; every authenticated
response carries \`X-RateLimit-Limit\` and \`X-RateLimit-Remaining\`, a 429 adds \`Retry-After\`.
Errors are JSON: \`{"errore", "code", "request_id"}\`, plus \`details\` (JSON pointers) on 422.
Timestamps are RFC 3339 UTC with milliseconds. Lists come back whole with a count.`;

// Host header as the client sent it: a DNS name, IPv4 or bracketed IPv6, optional port.
const VALID_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The document with `servers` naming the instance that served it (only when the Host header is
 * one of its own names), then production.
 */
function withServers(document: Record<string, unknown>, request: FastifyRequest, productionUrl: string, isOwnHost: boolean) {
  const production = { url: `${productionUrl}${API_PREFIX}`, description: 'Production' };
  const instance = { url: `${request.protocol}://${request.host}${API_PREFIX}`, description: 'This instance' };
  return { ...document, servers: isOwnHost ? [instance, production] : [production] };
}

/** The document's tags, in the order Swagger UI lists them. */
const TAGS = [
  { name: 'incidents', description: 'Inbound security signals (CRA Art. 14 starts with awareness, decided at triage)' },
  { name: 'products', description: 'The product catalogue with SBOM status and risk level' },
  { name: 'compliance', description: 'The compliance score and the running 24 h / 72 h notification clocks' },
  { name: 'sbom', description: 'SBOM ingest (CycloneDX, SPDX) from build pipelines' },
];

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  app.addSchema(ErrorBodySchema);
  // Filled while the document is generated (transform runs per route), then applied to it.
  const examples = new Map<string, OperationExamples>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'CRA compliance platform: external API',
        version: '1.0.0',
        description: API_DESCRIPTION.replace('{limit}', String(config.rateLimitPerMinute)),
        contact: {
          name: 'CRA platform API support',
          url: 'https://cra-platform.example/support',
          email: 'api-support@cra-platform.example',
        },
        license: { name: "Proprietary: use under the CRA platform's terms of service", url: 'https://cra-platform.example/terms' },
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-CRA-API-Key' },
          BearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // The document lists each operation once, relative to the full prefix in `servers`; short
    // forms, 405 answers and infrastructure routes stay out of it.
    transform: ({ schema, url, route }) => {
      const isOperation = Boolean(route.config?.scope) && url.startsWith(`${API_PREFIX}/`);
      if (!isOperation) return { schema: { ...schema, hide: true }, url };
      if (schema?.operationId && route.config?.examples) examples.set(schema.operationId, route.config.examples);
      return { schema, url: url.slice(API_PREFIX.length) };
    },
    transformObject: (document) => ('openapiObject' in document ? applyExamples(document.openapiObject, examples) : document.swaggerObject),
  });

  const isOwnHost = ownHostMatcher(config);
  const serve = (request: FastifyRequest, reply: FastifyReply, document: Record<string, unknown>) => {
    if (!VALID_HOST.test(request.host)) return sendError(reply, 'invalid_host', 'the Host header is not a valid host name');
    return withServers(document, request, config.productionUrl, isOwnHost(request.host, request.socket.localAddress));
  };

  await app.register(swaggerUi, {
    routePrefix: '/swagger',
    // Everything the page loads comes from this server (the package's own assets); the
    // online validator badge would call out to swagger.io.
    validatorUrl: false,
    staticCSP:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'self'",
    transformSpecification: (document, request, reply) => serve(request, reply, document) as Record<string, unknown>,
  });

  app.get('/swagger/openapi.json', { schema: { hide: true } }, (request, reply) =>
    serve(request, reply, app.swagger() as unknown as Record<string, unknown>),
  );
  app.get('/docs', { schema: { hide: true } }, (_request, reply) => reply.redirect('/swagger', 302));
}
