import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { SHORT_PREFIX } from './context.js';
import { sendError } from './errors.js';
import { addRouteHook } from './route-hooks.js';

/**
 * The short form (/v1/…) exists only on the dedicated API hosts; on any other host it is an
 * unknown path. Runs first, so a short path on the wrong host is a 404 whatever the method.
 */
export function registerShortFormHosts(app: FastifyInstance, apiHosts: ReadonlySet<string>): void {
  const onApiHostOnly = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (apiHosts.has(request.hostname.toLowerCase())) return done();
    sendError(reply, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
  };
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(`${SHORT_PREFIX}/`)) addRouteHook(route, 'onRequest', onApiHostOnly);
  });
}
