import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/index.js';
import type { RateLimitStore } from './rate-limit/store.js';

/** Liveness and readiness for load balancers: no key needed, nothing revealed beyond up/down. */
export function registerHealth(
  app: FastifyInstance,
  deps: { database: Database; store: RateLimitStore; schemaReady: () => boolean },
): void {
  const hidden = { hide: true };
  app.get('/healthz', { schema: { ...hidden, response: { 200: Type.Object({ status: Type.Literal('ok') }) } } }, async () => ({
    status: 'ok' as const,
  }));

  const Ready = Type.Object({
    status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
    database: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    rate_limit: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  });
  app.get('/readyz', { schema: { ...hidden, response: { 200: Ready, 503: Ready } } }, async (request, reply) => {
    // Not ready before the migrations are applied. The ping records its outcome in the
    // database's availability, whose changes are logged once; no line per probe.
    const database = !deps.schemaReady()
      ? ('unavailable' as const)
      : await deps.database.ping().then(
          () => 'ok' as const,
          (error: unknown) => {
            request.log.debug({ err: error }, 'readiness: database unavailable');
            return 'unavailable' as const;
          },
        );
    // A degraded rate-limit store still serves (per instance), so it does not fail readiness.
    const rateLimit = await deps.store.health();
    const status = database === 'ok' ? ('ready' as const) : ('unavailable' as const);
    return reply.code(status === 'ready' ? 200 : 503).send({ status, database, rate_limit: rateLimit });
  });
}
