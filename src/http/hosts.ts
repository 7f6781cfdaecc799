import type { FastifyInstance } from 'fastify';
import { SHORT_PREFIX } from './context.js';
import { sendError } from './errors.js';

/**
 * The short form (/v1/…) exists only on the dedicated API hosts; on any other host it is an
 * unknown path. Runs first, so a short path on the wrong host is a 404 whatever the method.
 */
export function registerShortFormHosts(app: FastifyInstance, apiHosts: ReadonlySet<string>): void {
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    if (url === undefined || !url.startsWith(`${SHORT_PREFIX}/`)) return;
    if (!apiHosts.has(request.hostname.toLowerCase())) {
      return sendError(reply, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
    }
  });
}
