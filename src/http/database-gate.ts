import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './errors.js';
import { addRouteHook } from './route-hooks.js';

/**
 * Until the server has applied its migrations (it starts, and keeps retrying, while the
 * database is unreachable), every API operation answers 503 before touching the database.
 * Registered before authentication, which reads keys.
 */
export function registerDatabaseGate(app: FastifyInstance, schemaReady: () => boolean): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope) addRouteHook(route, 'onRequest', gate);
  });
  async function gate(_request: FastifyRequest, reply: FastifyReply) {
    if (!schemaReady()) return sendError(reply, 'service_unavailable', 'the database is not ready yet; retry later');
  }
}
